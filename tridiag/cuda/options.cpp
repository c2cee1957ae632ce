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
    case Method::tiled_pcr:
      if (r < 0 || r > kTiledPcrMaxSteps)
        PSCR_INPUT_ERROR(
            "tridiag::cuda: rows_per_thread of the tiled PCR method (its PCR steps) "
            "must be 0 to "
            << kTiledPcrMaxSteps << ", got " << r);
      return;
    case Method::window:
      if (r != 0 && r != kWindowLaneRows)
        PSCR_INPUT_ERROR("tridiag::cuda: rows_per_thread of the window method must be 0 or "
                         << kWindowLaneRows << ", got " << r);
      return;
    case Method::partition:
      if (r != 0 && !PartitionRows::contains(r))
        PSCR_INPUT_ERROR("tridiag::cuda: rows_per_thread of the partition method must be 0, "
                         << PartitionRows::text() << ", got " << r);
      return;
    default:
      if (r != 0 && !LaneRows::contains(r))
        PSCR_INPUT_ERROR("tridiag::cuda: rows_per_thread must be 0, "
                         << LaneRows::text() << " (0 to " << kSweepMaxLaneRows
                         << " for the sweep method), got " << r);
  }
}

}  // namespace pscr::tridiag::cuda
