// Nearest measured shape in (log n, log batch), n weighted (kNWeight), near ties to the nearer n
// (kTie), of the same layout, scalar type, form and kind of complex systems.
#include "tridiag/cuda/selection.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <vector>

#include "common/cuda/check.hpp"

namespace pscr::tridiag::cuda {
namespace {

const SelectionEntry kH100Table[] = {
#include "tridiag/cuda/selection_table_h100.inc"
};

const SelectionEntry kH200Table[] = {
#include "tridiag/cuda/selection_table_h200.inc"
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

/// Distances within this much of the nearest count as a tie, which the entry of the nearer n wins.
/// The table holds shapes one row apart (PSCR's 2D shapes 4095² and 4096², 2047² and 2048 ×
/// 2^13) whose fastest configurations differ by more than their distance says (complex Helmholtz
/// 4095²: the cluster sweep 0.471 ms, the segment method 0.533; 4096²: the segment method 0.442,
/// H100): systems of 4095 rows in batches of 5460 were 0.0003 nearer the 4096² entry, a
/// difference of batch, which only fills the GPU. A wider rule (a system's own n within an octave
/// of its batch) gave PSCR 2D Helmholtz 4095² that cluster entry on 2026-11-27 and ran 2% slower
/// with separate stages, before the complex products were fused (complex.cuh), which gained the
/// cluster sweep 4–10% on the segment method (Helmholtz A/B, 1024 to 8192 rows). With this rule
/// and the fused products PSCR 2D Helmholtz ran as fast as without it (kTie = 0; H100 A/B, 3
/// rounds, 1023² to 4095², fused and separate stages within ±0.3%:
/// bench/results/pscr-gpu-h100-ab-selection-tie.csv).
constexpr double kTie = 0.01;

Options entry_options(const SelectionEntry& e, index_t n) {
  Options o{e.method, e.method != Method::thomas ? e.rows_per_thread : 0,
            e.staged ? Staging::shared : Staging::global};
  const index_t lanes = 32;  // a segment's lanes (detail::kWarpLanes)
  const bool bounded = e.complex && !e.dominant;
  if (e.method == Method::sweep && bounded && n > kSweepGuardedMaxRows)
    return {Method::block, kMaxComplexLaneRows, Staging::global};
  const bool one_segment = lanes * e.rows_per_thread >= e.n;
  // The columns method on contiguous rows runs one segment only (through tiles; resolve sends
  // longer systems to the segment method), so its entries extend as the segment method's do.
  const bool segment_like =
      e.method == Method::segment || (e.method == Method::columns && !e.interleaved);
  const bool keeps_one_segment =
      (segment_like && one_segment) ||
      (e.method == Method::columns && bounded && e.rows_per_thread > kMaxComplexLaneRows);
  if (!keeps_one_segment || lanes * e.rows_per_thread >= n) return o;
  for (int k = 2 * e.rows_per_thread;
       LaneRows::contains(k) && (!bounded || k <= kMaxGuardedLaneRows); k *= 2) {
    if (lanes * k >= n) {
      o.rows_per_thread = k;
      return o;
    }
  }
  if (segment_like) o.method = Method::block;
  if (bounded) o.rows_per_thread = std::min(o.rows_per_thread, kMaxComplexLaneRows);
  return o;
}

bool entry_measures(const SelectionEntry& e, index_t n) {
  return !(e.complex && e.method == Method::sweep && sweep_complex_wide(e.n, e.rows_per_thread) &&
           !sweep_complex_wide(n, e.rows_per_thread));
}

namespace {

/// An entry of a table with the log2 of its n and batch, taken once rather than at every
/// selection (a solve selects on the host before it launches).
struct PlacedEntry {
  const SelectionEntry* entry;
  double log_n;
  double log_batch;
};

/// The kinds of entries select_method tells apart: layout, scalar, form, and dominant (an entry's
/// flag; a call's only where complex), so that it scans one kind's entries, not the whole table.
constexpr int kKinds = 16;
constexpr int kind_of(bool interleaved, bool complex, bool general, bool dominant) {
  return (interleaved ? 1 : 0) | (complex ? 2 : 0) | (general ? 4 : 0) | (dominant ? 8 : 0);
}

/// A table's entries by kind, each kind's in the table's order.
using PlacedTable = std::array<std::vector<PlacedEntry>, kKinds>;

template <std::size_t Size>
PlacedTable placed(const SelectionEntry (&table)[Size]) {
  PlacedTable p;
  for (const SelectionEntry& e : table)
    p[kind_of(e.interleaved, e.complex, e.general, e.dominant)].push_back(
        {&e, std::log2(static_cast<double>(e.n)), std::log2(static_cast<double>(e.batch))});
  return p;
}

const PlacedTable& placed_table(SelectionGpu gpu) {
  static const PlacedTable h100 = placed(kH100Table);
  static const PlacedTable h200 = placed(kH200Table);
  return gpu == SelectionGpu::h200 ? h200 : h100;
}

}  // namespace

SelectionGpu selection_gpu(std::string_view gpu_name) {
  return gpu_name.find("H200") != std::string_view::npos ? SelectionGpu::h200 : SelectionGpu::h100;
}

SelectionGpu device_selection_gpu(int device) {
  cudaDeviceProp prop{};
  PSCR_CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
  return selection_gpu(prop.name);
}

Options select_method(SelectionGpu gpu, index_t n, index_t batch, bool interleaved, bool complex,
                      bool general, bool dominant, bool window_bound, bool exact) {
  struct Near {
    const SelectionEntry* entry;
    double dn;    // octaves of n from the entry's
    double dist;  // kNWeight-weighted distance
  };
  const double log_n = std::log2(static_cast<double>(n));
  const double log_batch = std::log2(static_cast<double>(batch));
  // An entry whose configuration these systems would not run (entry_measures) lies infinitely far.
  auto near = [&](const PlacedEntry& p) {
    const double dn = log_n - p.log_n;
    const double db = log_batch - p.log_batch;
    const double dist = entry_measures(*p.entry, n) ? kNWeight * kNWeight * dn * dn + db * db
                                                    : std::numeric_limits<double>::infinity();
    return Near{p.entry, std::abs(dn), dist};
  };
  const std::vector<PlacedEntry>& kind =
      placed_table(gpu)[kind_of(interleaved, complex, general, complex && dominant)];
  double nearest = std::numeric_limits<double>::infinity();
  for (const PlacedEntry& p : kind) nearest = std::min(nearest, near(p).dist);
  // Among the entries within kTie of the nearest, the one of the nearest n (then the nearest).
  Near best{nullptr, 0.0, 0.0};
  for (const PlacedEntry& p : kind) {
    const Near c = near(p);
    if (c.dist > nearest + kTie) continue;
    if (!best.entry || c.dn < best.dn || (c.dn == best.dn && c.dist < best.dist)) best = c;
  }
  Options choice =
      best.entry ? entry_options(*best.entry, n) : Options{Method::partition, 8, Staging::shared};
  if (!exact && best.entry && n > kWindowRows &&
      (best.entry->checked || (window_bound && best.entry->window)))
    choice = {Method::window, kWindowLaneRows};
  choice.dominant = dominant;
  choice.window_bound = window_bound;
  return choice;
}

}  // namespace pscr::tridiag::cuda
