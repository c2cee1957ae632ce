#pragma once
/// @file The selection table of the GPU tridiagonal solvers: which method and parameters to use
/// for a problem shape (n, batch, layout, scalar type, form). Each entry records the fastest
/// configuration measured at one benchmark shape; a problem takes the entry of the same layout,
/// scalar type and form nearest to it in (log n, log batch). The entries live in
/// tridiag/cuda/selection_table.inc, written by bench/tridiag_select.py from the benchmark's
/// CSV. Host C++.

#include "common/scalar.hpp"
#include "tridiag/cuda/solve.hpp"

namespace pscr::tridiag::cuda {

/// @brief One measured shape and the configuration that won there.
struct SelectionEntry {
  bool interleaved;  ///< layout of d: interleaved (row_stride > system_stride) or contiguous
  bool complex;      ///< complex scalar
  bool general;      ///< general form (a, b, c per system), else shifted (A + s_k M)
  index_t n;
  index_t batch;
  Method method;        ///< thomas, partition, warp, segment, block, columns or sweep
  int rows_per_thread;  ///< partition: M; warp, segment, block, columns, sweep: K
  bool staged;          ///< partition, warp, shifted form: A and M staged in shared memory
};

/// @brief The configuration for this shape: method, rows_per_thread and staging all set (never
/// automatic).
Options select_method(index_t n, index_t batch, bool interleaved, bool complex, bool general);

}  // namespace pscr::tridiag::cuda
