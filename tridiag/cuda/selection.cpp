// Nearest measured shape in (log n, log batch), n weighted (kNWeight), of the same layout, scalar
// type, form and kind of complex systems.
#include "tridiag/cuda/selection.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace pscr::tridiag::cuda {
namespace {

const SelectionEntry kTable[] = {
#include "tridiag/cuda/selection_table.inc"
};

}  // namespace

/// How many octaves of batch one octave of n counts for. A method's kernel changes with n (one
/// warp's 32·K rows, one block's segments, a cluster from 769 real rows) and the batch only fills
/// the GPU, so a shape takes the configuration measured at its own n before that of a neighbour
/// whose batch is closer. The table's shapes hold 2^24 rows each (n·batch), so PSCR's 2D systems
/// (batch ≈ n) lie far from all of them in batch: with n and batch weighed alike, those of 2048
/// rows took the 4096 × 2^12 entry, the sweep method, which at 2048 rows is one warp of K = 64
/// (three warps per SM), and 2D Poisson 2048² (separate stages) went from 1.25 to 1.36 ms (H100).
constexpr double kNWeight = 3.0;

Options entry_options(const SelectionEntry& e, index_t n) {
  Options o{e.method, e.method != Method::thomas ? e.rows_per_thread : 0,
            e.staged ? Staging::shared : Staging::global};
  const index_t lanes = 32;  // a segment's lanes (detail::kWarpLanes)
  const bool bounded = e.complex && !e.dominant;
  if (e.method == Method::sweep && bounded && n > kSweepGuardedMaxRows)
    return {Method::block, kMaxComplexLaneRows, Staging::global};
  const bool one_segment = lanes * e.rows_per_thread >= e.n;
  const bool keeps_one_segment =
      (e.method == Method::segment && one_segment) ||
      (e.method == Method::columns && bounded && e.rows_per_thread > kMaxComplexLaneRows);
  if (!keeps_one_segment || lanes * e.rows_per_thread >= n) return o;
  for (int k = 2 * e.rows_per_thread;
       LaneRows::contains(k) && (!bounded || k <= kMaxGuardedLaneRows); k *= 2) {
    if (lanes * k >= n) {
      o.rows_per_thread = k;
      return o;
    }
  }
  if (e.method == Method::segment) o.method = Method::block;
  if (bounded) o.rows_per_thread = std::min(o.rows_per_thread, kMaxComplexLaneRows);
  return o;
}

Options select_method(index_t n, index_t batch, bool interleaved, bool complex, bool general,
                      bool dominant) {
  double best = std::numeric_limits<double>::infinity();
  Options choice{Method::partition, 8, Staging::shared};
  for (const SelectionEntry& e : kTable) {
    if (e.interleaved != interleaved || e.complex != complex || e.general != general ||
        e.dominant != (complex && dominant))
      continue;
    const double dn = std::log2(static_cast<double>(n)) - std::log2(static_cast<double>(e.n));
    const double db =
        std::log2(static_cast<double>(batch)) - std::log2(static_cast<double>(e.batch));
    const double dist = kNWeight * kNWeight * dn * dn + db * db;
    if (dist < best) {
      best = dist;
      choice = entry_options(e, n);
    }
  }
  choice.dominant = dominant;
  return choice;
}

}  // namespace pscr::tridiag::cuda
