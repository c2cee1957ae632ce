#pragma once
/// @file Exceptions of the library. Library code never prints or exits: it throws one of these,
/// and the command-line program maps each kind to a documented exit code (apps/exit_codes.hpp).

#include <sstream>
#include <stdexcept>
#include <string>

namespace pscr {

/// @brief Base of every pscr exception.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// @brief Input rejected at the door: a file, a dataset or an argument that does not hold what
/// was expected. The message says what was expected and what was found.
class InputError : public Error {
 public:
  using Error::Error;
};

/// @brief An output could not be written, or would overwrite an existing file.
class OutputError : public Error {
 public:
  using Error::Error;
};

/// @brief The numerical method failed: a singular system, an eigensolver that did not converge.
class SolverError : public Error {
 public:
  using Error::Error;
};

/// @brief A call into an external library (CUDA, cuBLAS, LAPACKE, HDF5) failed.
class LibraryError : public Error {
 public:
  using Error::Error;
};

namespace detail {
[[noreturn]] inline void throw_library_error(const char* library, const char* call, long code,
                                             const std::string& detail, const char* file,
                                             int line) {
  std::ostringstream msg;
  msg << library << " call `" << call << "` failed with code " << code;
  if (!detail.empty()) msg << " (" << detail << ")";
  msg << " at " << file << ":" << line;
  throw LibraryError(msg.str());
}
}  // namespace detail

}  // namespace pscr

/// Checks a LAPACKE call: a non-zero `info` throws LibraryError naming the call and place.
#define PSCR_LAPACK_CHECK(call)                                                                  \
  do {                                                                                           \
    const long pscr_info_ = static_cast<long>(call);                                             \
    if (pscr_info_ != 0)                                                                         \
      ::pscr::detail::throw_library_error("LAPACKE", #call, pscr_info_, "", __FILE__, __LINE__); \
  } while (0)

/// Throws InputError with a message built by streaming: PSCR_INPUT_ERROR("n must be >= 1, got " <<
/// n).
#define PSCR_INPUT_ERROR(stream_expr)          \
  do {                                         \
    std::ostringstream pscr_msg_;              \
    pscr_msg_ << stream_expr;                  \
    throw ::pscr::InputError(pscr_msg_.str()); \
  } while (0)
