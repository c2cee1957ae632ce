# pscr_add_test(<name> LABEL <unit|gpu|integration> SOURCES <files...> [LIBRARIES <libs...>])
# One GoogleTest executable per call; every test case becomes a CTest test with the label.
include(GoogleTest)
function(pscr_add_test name)
  cmake_parse_arguments(ARG "" "LABEL" "SOURCES;LIBRARIES" ${ARGN})
  if(NOT ARG_LABEL MATCHES "^(unit|gpu|integration)$")
    message(FATAL_ERROR "pscr_add_test(${name}): LABEL must be unit, gpu or integration")
  endif()
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE pscr pscr_test_support GTest::gtest_main ${ARG_LIBRARIES})
  gtest_discover_tests(${name} DISCOVERY_MODE PRE_TEST PROPERTIES LABELS ${ARG_LABEL}
                       DISCOVERY_TIMEOUT 60)
endfunction()
