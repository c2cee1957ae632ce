#pragma once
/// @file The exit codes of the `pscr` command (documented in README.md and `pscr --help`).

namespace pscr::app {

enum ExitCode : int {
  exit_ok = 0,         ///< success
  exit_internal = 1,   ///< an unexpected internal error (a bug: please report it)
  exit_usage = 2,      ///< bad command line
  exit_bad_input = 3,  ///< an input file or value was rejected (missing, malformed, invalid)
  exit_output = 4,     ///< the output could not be written, or exists and --force was not given
  exit_solver = 5,     ///< the solver failed (singular problem, no convergence) or a residual
                       ///< exceeded the --tolerance asked for
  exit_library = 6,    ///< a library failed (CUDA, HDF5, LAPACK), memory ran out, or the GPU
                       ///< backend was requested but is not available
};

/// The table printed by `pscr --help`.
inline constexpr const char* exit_code_help =
    "Exit codes:\n"
    "  0  success\n"
    "  1  internal error (a bug: please report it)\n"
    "  2  bad command line\n"
    "  3  bad input (a file or value was rejected)\n"
    "  4  output not written (exists without --force, or cannot be written)\n"
    "  5  solver failure, or a residual above --tolerance\n"
    "  6  library failure (CUDA, HDF5, LAPACK), out of memory, or GPU backend unavailable\n";

}  // namespace pscr::app
