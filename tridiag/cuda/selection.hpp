#pragma once
/// @file The selection table of the GPU tridiagonal solvers: which method and parameters to use
/// for a problem shape (n, batch, layout, scalar type). Each entry records the fastest
/// configuration measured at one benchmark shape; a problem takes the entry of the same layout
/// and scalar type nearest to it in (log n, log batch). The entries live in
/// tridiag/cuda/selection_table.inc, written by bench/tridiag_select.py from the benchmark's
/// CSV. Host C++.

#include "common/scalar.hpp"
#include "tridiag/cuda/solve.hpp"

namespace pscr::tridiag::cuda {

/// @brief One measured shape and the configuration that won there.
struct SelectionEntry {
  bool interleaved;  ///< layout of d: interleaved (row_stride > system_stride) or contiguous
  bool complex;      ///< complex scalar
  index_t n;
  index_t batch;
  Method method;        ///< thomas or partition
  int rows_per_thread;  ///< partition: M
  bool staged;          ///< partition, shifted form: A and M staged in shared memory
};

/// @brief The configuration for this shape: method, rows_per_thread and staging all set (never
/// automatic).
Options select_method(index_t n, index_t batch, bool interleaved, bool complex);

}  // namespace pscr::tridiag::cuda
