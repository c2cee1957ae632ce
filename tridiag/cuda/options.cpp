// Validation of the GPU solvers' Options (host C++, no device).
#include <string>

#include "common/error.hpp"
#include "tridiag/cuda/solve.hpp"

namespace pscr::tridiag::cuda {
namespace {

/// "0, 2, 4, 8 or 16": 0 (from the table) and the list's values, for the error messages.
template <int... Ks>
std::string allowed(RowsList<Ks...>) {
  constexpr int values[] = {Ks...};
  std::string s = "0";
  for (int v : values) s += (v == values[sizeof...(Ks) - 1] ? " or " : ", ") + std::to_string(v);
  return s;
}

}  // namespace

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
    case Method::partition:
      if (r != 0 && !PartitionRows::contains(r))
        PSCR_INPUT_ERROR("tridiag::cuda: rows_per_thread of the partition method must be "
                         << allowed(PartitionRows{}) << ", got " << r);
      return;
    default:
      if (r != 0 && !LaneRows::contains(r))
        PSCR_INPUT_ERROR("tridiag::cuda: rows_per_thread must be "
                         << allowed(LaneRows{}) << " (0 to " << kSweepMaxLaneRows
                         << " for the sweep method), got " << r);
  }
}

}  // namespace pscr::tridiag::cuda
