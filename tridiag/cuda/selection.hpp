#pragma once
/// @file The selection table of the GPU tridiagonal solvers: which method and parameters to use
/// for a problem shape (n, batch, layout, scalar type, form). Each entry records the fastest
/// configuration measured at one benchmark shape; a problem takes the entry of the same layout,
/// scalar type, form and kind of complex systems (any, or diagonally dominant: Options::dominant)
/// nearest to it in (log n, log batch), an octave of n counting for three of batch
/// (selection.cpp, kNWeight), of near ties the one of the nearer n (kTie). Each GPU that pscr
/// was measured on has its own table, tridiag/cuda/selection_table_<gpu>.inc, written by
/// bench/tridiag_select.py from a benchmark CSV of that GPU: the same kernels rank differently
/// on GPUs whose memory is faster relative to their SMs. Host C++.

#include <string_view>

#include "common/scalar.hpp"
#include "tridiag/cuda/solve.hpp"

namespace pscr::tridiag::cuda {

/// @brief One measured shape and the configuration that won there.
struct SelectionEntry {
  bool interleaved;  ///< layout of d: interleaved (row_stride > system_stride) or contiguous
  bool complex;      ///< complex scalar
  /// Complex entries: the fastest configuration for diagonally dominant systems
  /// (Options::dominant), with no bound on the rows a lane eliminates; false: the fastest with at
  /// most kMaxComplexLaneRows, or a guarded one (the sweep method up to kSweepGuardedMaxRows, the
  /// segment and columns methods on one segment up to kMaxGuardedLaneRows), timed on indefinite
  /// Helmholtz systems (bench/tridiag_select.py --helmholtz), the systems such entries serve.
  /// Real entries: false (their configurations have no such bound).
  bool dominant;
  bool general;  ///< general form (a, b, c per system), else shifted (A + s_k M)
  index_t n;
  index_t batch;
  /// thomas, partition, warp, segment, block, columns, sweep or tiled_pcr: the fastest exact
  /// method (the window method's fallback where a flag below sends calls to it)
  Method method;
  int rows_per_thread;  ///< partition: M; warp, segment, block, columns, sweep: K
  bool staged;          ///< partition, warp, shifted form: A and M staged in shared memory
  /// Shifted form, real entries and complex `dominant` ones: the window method (Method::window)
  /// with its bound assured (Options::window_bound) ran faster at this shape than the entry's
  /// configuration, so calls with Options::window_bound take it (select_method).
  bool window;
  /// Likewise with its bound checked on the device, so every call of such systems takes it.
  bool checked;
};

/// @brief The GPUs with a selection table of their own (selection_table_h100.inc, _h200.inc).
enum class SelectionGpu { h100, h200 };

/// @brief Every SelectionGpu, for code that checks each table.
inline constexpr SelectionGpu kSelectionGpus[] = {SelectionGpu::h100, SelectionGpu::h200};

/// @brief The table for a GPU of this name (cudaDeviceProp::name): the H200's where the name
/// holds "H200" (the H200, and by name the GH200, whose memory is nearer the H200's 4.8 TB/s than
/// the H100's 3.35; not measured on one), the H100's for every other GPU.
SelectionGpu selection_gpu(std::string_view gpu_name);

/// @brief The table of CUDA device `device`: selection_gpu of its name.
SelectionGpu device_selection_gpu(int device);

/// @brief The table of the current CUDA device (device_selection_gpu), asked once per device.
SelectionGpu current_selection_gpu();

/// @brief Most rows a lane or thread of a complex configuration eliminates without pivoting: more
/// lose accuracy on indefinite Helmholtz systems (bench/tridiag_select.py, MAX_COMPLEX_LANE_ROWS),
/// also where the segment method's lanes passes eliminate whole segments of 32·K rows
/// (test_cuda_emulation.cu, LanesBeyondFourRowsPerLaneLoseAccuracy). Diagonally dominant systems
/// (Options::dominant) are not bound by it.
inline constexpr int kMaxComplexLaneRows = 4;

/// @brief Most rows of complex systems not declared dominant that the selection table sends to the
/// sweep method, whose reduced solves guard against growth and solve again in order where they
/// find some: one warp per system up to 768 rows (sweep.cuh), the cluster kernel from 769 rows on
/// (K = 8, its spike and coarse solves guarded, sweep_cluster.cuh, up to 8192 rows; K = 16 up to
/// kSweepComplexWideMaxRows, its InBlock instance's solve guarded: so far on the CPU's emulation
/// only, test_cuda_emulation.cu), verified on
/// the GPU on Helmholtz systems of 511 to 8191 rows (bench/tridiag_select.py,
/// SWEEP_GUARDED_MAX_ROWS). Where the cluster kernel wins is measured on Helmholtz systems with
/// the shifts PSCR forms (tridiag_bench --systems helmholtz): one flagged segment holds its whole
/// cluster, and those shifts flag eleven times as often as evenly spaced ones.
inline constexpr index_t kSweepGuardedMaxRows = 8192;

/// @brief Most rows of complex systems that the sweep method's cluster kernel solves with K = 16
/// (where a call or the table asks for more than 8): its InBlock instance, whose two segment warps
/// share the system's reduced rows in one block (sweep_cluster.cuh, kSweepClusterBlockMaxRows);
/// with spikes and coarse rows across more segments, complex K = 16 loses accuracy on indefinite
/// systems. Longer complex systems take K = 8.
inline constexpr index_t kSweepComplexWideMaxRows = 1024;

/// @brief Whether complex systems of n rows that the sweep method's cluster kernel takes run
/// K = 16 (its InBlock instance) where a call or a table entry asks for `requested` rows per lane:
/// more than 8, up to kSweepComplexWideMaxRows rows; else K = 8.
inline constexpr bool sweep_complex_wide(index_t n, int requested) {
  return requested > 8 && n <= kSweepComplexWideMaxRows;
}

/// @brief Most rows per lane that the selection table gives the segment and columns methods on
/// complex systems not declared dominant where one segment (32 lanes or chunks of K rows) covers a
/// system: beyond kMaxComplexLaneRows they guard the solve of the segment's reduced rows and solve
/// them again in order where it grows (warp.cuh, kGuardedLanes), verified on the GPU on Helmholtz
/// systems at K = 8 and 16 (bench/tridiag_select.py, MAX_GUARDED_LANE_ROWS). Several segments are
/// condensed unguarded, so longer systems keep kMaxComplexLaneRows.
inline constexpr int kMaxGuardedLaneRows = 16;

/// @brief Entry e's configuration for systems of n rows. An entry of the segment method measured
/// on one segment (32·K ≥ e.n), or of the columns method on contiguous rows (one segment, through
/// tiles; resolve gives longer systems the segment method), would cut longer systems into several,
/// which takes the segment method's three launches and a second read of d, a configuration the
/// entry never measured: such systems take the smallest K of LaneRows from the entry's on that
/// covers them in one segment (complex entries that are not `dominant`: at most
/// kMaxGuardedLaneRows), else the block method with the entry's K (complex entries that are not
/// `dominant`: at most kMaxComplexLaneRows). Measured on an H100 (pscr_gpu_bench, 3D, tridiagonal
/// systems of 180 rows, whose nearest entry is the segment method with K = 4 at 127 rows): with the
/// segment method's two segments per system Poisson 180³ took 9.07 ms and Helmholtz 20.7 ms,
/// against 6.27 ms (one segment, K = 8) and 16.9 ms (the block method, K = 4) with the table before
/// the 127-row entry; with this rule (A/B, one H200) 8.59 → 5.82 ms and 20.1 → 16.5 ms; with one
/// segment of K = 8 for Helmholtz too (guarded) 17.2 → 14.6 ms against the block method (H100).
/// Complex entries that are not `dominant` serve only systems their guarded configurations were
/// verified on: a sweep entry systems of up to kSweepGuardedMaxRows rows, longer ones the block
/// method with kMaxComplexLaneRows; a columns entry of more than kMaxComplexLaneRows rows per
/// thread (one segment, guarded) longer systems as a segment entry does, in one segment up to
/// kMaxGuardedLaneRows, else with kMaxComplexLaneRows. Every other entry is taken as it is.
Options entry_options(const SelectionEntry& e, index_t n);

/// @brief Whether entry e's configuration is the one systems of n rows would run: not so for a
/// complex sweep entry of K = 16 (sweep_complex_wide: the cluster kernel's InBlock instance) and
/// n > kSweepComplexWideMaxRows, which runs the K = 8 cluster kernel, a configuration the entry did
/// not measure. Such entries lie near n = 1024 only; the systems of 1025 to 1448 rows in batches
/// of 2^24 rows in all, whose nearest entry was the 1024 × 2^14 one, ran the K = 8 cluster 1.5–1.7
/// times as long as the segment method with K = 4, which the next entry (2048 × 8192) holds
/// (complex, contiguous, shifted; H200, tridiag_bench, 2026-12-05: 1100 × 15252 0.567 against
/// 0.325 ms, 1400 × 11983 0.468 against 0.303 ms on Helmholtz systems; 1100² 0.0605 against 0.0589,
/// 1400² 0.0773 against 0.0606; docs/tridiag-performance.md).
bool entry_measures(const SelectionEntry& e, index_t n);

/// @brief The configuration for this shape on `gpu`'s table: entry_options of the nearest entry
/// of the same layout, scalar type and form in (log n, log batch), n weighted, among the complex
/// entries the `dominant` ones where `dominant` (Options::dominant), and among the entries whose
/// configuration n runs (entry_measures); the window method instead where n > kWindowRows and
/// the entry's `checked` flag is set, or its `window` flag and `window_bound`
/// (Options::window_bound), unless `exact` (the window method's fallback: the entry's own
/// configuration). Method, rows_per_thread and staging all set (never automatic), `dominant` and
/// `window_bound` as given.
Options select_method(SelectionGpu gpu, index_t n, index_t batch, bool interleaved, bool complex,
                      bool general, bool dominant, bool window_bound = false, bool exact = false);

}  // namespace pscr::tridiag::cuda
