#pragma once
/// @file Command-line parsing shared by the benchmarks' executables, so that they name what they
/// expected and found alike.
#include <cmath>
#include <limits>
#include <optional>
#include <string>

#include "common/error.hpp"
#include "common/parse.hpp"
#include "common/scalar.hpp"

namespace pscr::bench {

/// `text` as a positive integer of type Int (the value of `what`, e.g. "--reps"), or an input
/// error naming what was found.
template <class Int = index_t>
Int parse_positive(const std::string& what, const std::string& text) {
  const std::optional<long long> v = parse_integer(text);
  if (!v || *v < 1 || *v > std::numeric_limits<Int>::max())
    PSCR_INPUT_ERROR(what << ": expected a positive integer, found '" << text << "'");
  return static_cast<Int>(*v);
}

/// `text` as a finite number > 0 (the value of `what`, e.g. "--max-solve-s"), or an input error
/// naming what was found.
inline double parse_positive_real(const std::string& what, const std::string& text) {
  const std::optional<double> v = parse_real(text);
  if (!v || !std::isfinite(*v) || !(*v > 0))
    PSCR_INPUT_ERROR(what << ": expected a positive number, found '" << text << "'");
  return *v;
}

/// The value after option argv[i] (which it names), i advanced past it; an input error where the
/// command line ends first.
inline std::string option_value(int argc, char** argv, int& i) {
  if (i + 1 >= argc) PSCR_INPUT_ERROR(argv[i] << ": expected a value after it");
  return argv[++i];
}

/// Whether `arg` asks for the help (--help or -h).
inline bool is_help(const std::string& arg) {
  return arg == "--help" || arg == "-h";
}

}  // namespace pscr::bench
