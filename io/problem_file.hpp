#pragma once
/// @file Problem files (HDF5, schema version 1, docs/file-format.md): the factor matrices of each
/// dimension, the shift c, the right-hand side(s) f, optionally the exact solution(s) and the
/// generator record. Readable and writable with plain h5py.

#include <string>

#include "problems/problem.hpp"

namespace pscr::io {

/// @brief The `format_version` this code reads and writes.
inline constexpr int problem_format_version = 1;

/// @brief Reads and validates a problem file (opened read-only).
///
/// The problem is complex if any of the operator datasets, `c`, `f` or `u_exact` is complex
/// (the real ones are promoted); otherwise real. Integer and any float datasets are converted
/// to double. Throws InputError, naming the file, the dataset, what was expected and what was
/// found, for: a missing or non-HDF5 file, a missing or unknown `format_version`, a `format`
/// other than "pscr-problem", a missing dataset, a wrong rank or shape, a non-numeric dtype,
/// a non-finite value.
AnyProblem read_problem(const std::string& path);

/// @brief Writes a problem file atomically (temporary file in the same directory, then rename).
///
/// Real values are float64, complex ones h5py's compound {r, i} of float64. `f` (and `u_exact`)
/// get shape (nrhs, n1, n2[, n3]) when `batched`, else (n1, n2[, n3]). Throws InputError if the
/// problem is inconsistent (f of the wrong size, nrhs > 1 but not batched, generator steps for
/// the wrong number of dimensions), OutputError if `path` exists and `force` is false (the
/// message says to use --force) or the file cannot be written; on failure nothing is left behind.
void write_problem(const std::string& path, const AnyProblem& problem, bool force);

}  // namespace pscr::io
