#pragma once
/// @file Solution files (HDF5, schema version 1, docs/file-format.md): the solution u with the
/// shape the right-hand side f had, the relative residual per right-hand side, and a record of
/// the solve (backend, version, timings) as attributes. Readable with plain h5py.

#include <complex>
#include <string>
#include <variant>
#include <vector>

#include "common/scalar.hpp"

namespace pscr::io {

/// @brief The `format_version` this code reads and writes.
inline constexpr int solution_format_version = 1;

/// @brief How a solution was obtained: stored as attributes of the solution file.
struct SolveRecord {
  std::string backend;       ///< e.g. "cpu", "cuda"
  std::string pscr_version;  ///< pscr::version of the program that solved
  std::string problem_file;  ///< path of the problem file, as given
  int threads = 1;           ///< CPU threads used
  double init_seconds = 0;
  double solve_seconds = 0;
  double transfer_seconds = 0;
  /// ‖A u_k − f_k‖₂ / ‖f_k‖₂ for every right-hand side k (nrhs entries).
  std::vector<double> residuals;
};

/// @brief A solution: u of shape `shape` (C order), which is f's shape, (n1, n2[, n3]) or
/// (nrhs, n1, n2[, n3]).
template <class Scalar>
struct Solution {
  std::vector<index_t> shape;
  std::vector<Scalar> u;
  SolveRecord record;
};

/// @brief A real or complex solution, as read from a file.
using AnySolution = std::variant<Solution<double>, Solution<std::complex<double>>>;

/// @brief Reads and validates a solution file (opened read-only). `u` may be float64 (or any
/// float/integer type) or the complex compound {r, i}. Throws InputError naming the file, the
/// dataset or attribute, what was expected and what was found: missing or non-HDF5 file,
/// missing or unknown `format_version`, `format` other than "pscr-solution", missing
/// datasets/attributes, `u` of rank other than 2..4, `residual` not of shape (nrhs,) where nrhs
/// is 1 or u's leading extent, non-finite values.
AnySolution read_solution(const std::string& path);

/// @brief Writes a solution file atomically (see write_problem). Throws InputError if u does not
/// hold product(shape) entries, the rank is not 2..4, or residuals has neither 1 entry nor
/// shape[0] entries; OutputError if `path` exists and `force` is false, or writing fails.
void write_solution(const std::string& path, const AnySolution& solution, bool force);

}  // namespace pscr::io
