// Validation of the GPU solvers' Options (host C++, no device).
#include "common/error.hpp"
#include "tridiag/cuda/solve.hpp"

namespace pscr::tridiag::cuda {

void check_options(const Options& options) {
  const int r = options.rows_per_thread;
  switch (options.method) {
    case Method::sweep:
      if (r < 0 || r > kSweepMaxLaneRows)
        PSCR_INPUT_ERROR("tridiag::cuda: rows_per_thread of the sweep method must be 0 to "
                         << kSweepMaxLaneRows << ", got " << r);
      return;
    case Method::partition:
      if (r != 0 && r != 4 && r != 8 && r != 16)
        PSCR_INPUT_ERROR(
            "tridiag::cuda: rows_per_thread of the partition method must be 0, 4, 8 or 16, got "
            << r);
      return;
    default:
      if (r != 0 && r != 2 && r != 4 && r != 8 && r != 16)
        PSCR_INPUT_ERROR("tridiag::cuda: rows_per_thread must be 0, 2, 4, 8 or 16 (0 to "
                         << kSweepMaxLaneRows << " for the sweep method), got " << r);
  }
}

}  // namespace pscr::tridiag::cuda
