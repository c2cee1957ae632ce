#pragma once
/// @file Command-line parsing shared by the benchmarks' executables (tridiag_bench,
/// solve_host_bench, read_patterns_bench), so that they name what they expected and found alike.
#include <exception>
#include <limits>
#include <string>

#include "common/error.hpp"
#include "common/scalar.hpp"

namespace pscr::bench {

/// `text` as a positive integer of type Int (the value of `what`, e.g. "--reps"), or an input
/// error naming what was found.
template <class Int = index_t>
Int parse_positive(const std::string& what, const std::string& text) {
  std::size_t used = 0;
  long long v = 0;
  try {
    v = std::stoll(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != text.size() || v < 1 || v > std::numeric_limits<Int>::max())
    PSCR_INPUT_ERROR(what << ": expected a positive integer, found '" << text << "'");
  return static_cast<Int>(v);
}

}  // namespace pscr::bench
