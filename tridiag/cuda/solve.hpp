#pragma once
/// @file GPU solvers for batches of tridiagonal systems (level 3 of PSCR, DESIGN.md §3): the
/// twins of tridiag/reference/solve.hpp, same names and arguments plus a stream first, with every
/// array in device memory. Host C++ (no CUDA syntax).
///
/// Forms, layouts, in-place use and errors are those of the references (see
/// tridiag/reference/solve.hpp): element (system k, row r) at `layout.offset(k, r)`, x may alias
/// d when both layouts are equal, a at row 0 and c at row n−1 are never read.
///
/// Methods (non-pivoting, `solve_shifted` / `solve_general`):
///   thomas:    p-Thomas, one thread per system (sakharnykh2010). Rows go through shared memory
///              in chunks, read and written in the order the layout makes coalesced (rows of a
///              system for contiguous layouts, systems of a row for interleaved ones); the Thomas
///              factors c' go to the workspace. Six passes over the rows. The shifted form's
///              systems of n ≤ 64 rows, d and x both interleaved (systems closer together than
///              rows), take two threads per system instead, eliminating from both ends toward
///              the middle with every right-hand side in registers: d read once, x written once,
///              no workspace.
///   partition: Thomas–PCR hybrid (the partitioned, Schur-complement scheme of RPTS, klein2021):
///              each thread eliminates the interior of a partition of M rows (downward and upward
///              sweeps), the 2 interface rows per partition form a coarse tridiagonal system,
///              solved by PCR in shared memory (kim2011 eqs. 5–6), and each thread recomputes its
///              partition's interior from the interface values. When the whole system fits one
///              block, d is read once and x written once (the floor); larger systems are split
///              over blocks, the coarse system goes through the workspace and is solved
///              recursively, and d is read twice.
///   warp:      register partition (tridiag/cuda/warp.cuh): one warp per system of n ≤ 32·K
///              rows (K = rows_per_thread: 2, 4, 8 or 16; 0 or too small = the smallest K with
///              32·K ≥ n); each lane keeps K consecutive rows in registers, eliminates its
///              interior, and the warp solves the 64-row interface system with shuffles (one
///              cyclic-reduction step, five PCR steps). d read once, x written once, shared
///              memory only for the coalesced transposes (and the staged A, M). Systems with
///              n > 512 run the partition method instead (M from the table's entry where it is
///              the partition method, else 8, complex 4: see Options).
///   segment:   register segments (tridiag/cuda/segment.cuh): one warp per segment of 32·K rows
///              (K = rows_per_thread: 2, 4, 8 or 16; short systems: narrower segments, several
///              per warp), K rows per lane in registers from load to store, warps independent
///              (no block barriers); the shifted form's A and M rows stay in the warp's shared
///              memory while it walks through the systems. One
///              segment: d read once, x written once, no workspace. Several: each segment's two
///              coarse rows go to the workspace, the coarse systems (2 rows per segment) are
///              solved recursively, and a second pass reads d again and writes x. Where the rows
///              are contiguous and 16-byte aligned (real: an even system stride) and the batch
///              is large, the reduce pass takes one lane per (system, segment), eliminating the
///              segment's interior alone (tridiag/cuda/segment_lanes.cuh), and the substitute
///              pass one lane per segment too, from the reduce pass's elimination states kept in
///              the workspace (3 scalars per 256-byte tile: 32 real rows, 16 complex). Layouts
///              whose rows are not contiguous (interleaved) run the columns method (same K).
///              Complex systems with K = 8 or 16 (this method and columns) guard the warp's solve
///              of a segment's reduced rows against growth and solve them again in order where it
///              finds some (warp.cuh, guarded_reduced_solve); the selection table still gives
///              complex systems not declared dominant K ≤ 4 here.
///   block:     the segment method in one pass for systems of 2 to 16 segments
///              (tridiag/cuda/segment.cuh, segment_block_kernel): one block per system, a warp
///              per segment; the segments' coarse rows go through shared memory and every warp
///              solves the small coarse system itself with shuffles, then substitutes its segment
///              with d still in registers. d read once, x written once, no workspace. Systems of
///              one segment, of more than 16, or whose A, M tables do not fit the block's shared
///              memory run the segment method (same K); interleaved layouts the columns method.
///   sweep:     shifted form, rows contiguous (tridiag/cuda/sweep.cuh): one warp per system of
///              n ≤ 768 rows, lane l owning K consecutive rows (K =
///              rows_per_thread raised to the smallest even K ≥ 4 with 32·K ≥ n), as in the warp
///              method, but what a lane keeps per row (d′, c′ and the spike column) lives in the
///              warp's shared memory, so K reaches 64 without spilling registers (real K = 18–32
///              and complex K = 12–16 keep c′ in registers instead, for more warps per SM); the
///              shifted form's A, M stay in shared memory for the launch, up to 16 warps per block
///              as the shared memory holds (fewer for batches too small to fill every SM). d read
///              once (coalesced asynchronous copies), x written once, no workspace. Complex systems
///              not declared `dominant` guard the warp's solve of the lanes' reduced rows (cyclic
///              reduction and PCR) against growth and solve them again in order where it finds some
///              (about 1.5% of indefinite Helmholtz shifts): accurate on those (verified up to K =
///              32), where the selection table uses it. Systems of 769 to 16384 rows (complex:
///              8192): clusters of blocks (tridiag/cuda/sweep_cluster.cuh), a warp per segment of
///              32·K rows and system (K = 16, or 8: see Options::rows_per_thread; complex 8, or
///              16 up to 1024 rows), a cluster solving as many systems at once as its blocks'
///              shared memory and registers allow (slots, sharing each segment's A, M tables),
///              each lane sweeping its K rows in shared memory, the segments' coarse rows
///              exchanged through distributed shared memory; d read once. At K = 16 systems of up
///              to 1024 rows take one block of two segment warps that each solve the system's
///              128 reduced rows from the block's shared memory (no spikes, no coarse rows).
///              Complex systems not declared `dominant` guard the segments' spike solves and the
///              coarse solve (or that block's reduced solve) as above (accurate on indefinite
///              Helmholtz shifts up to 8191 rows; where it is faster on those the selection table
///              measures: kSweepGuardedMaxRows). The general form, interleaved layouts and other
///              systems run the block method (its K).
///   columns:   interleaved layouts, and one segment of contiguous ones
///              (tridiag/cuda/columns.cuh): the segment method's segments of up to 32·K rows
///              (K = rows_per_thread: 2, 4, 8 or 16) with a thread per K-row chunk of one system
///              and the systems fastest across the threads of a block, so that each
///              load and store of a warp is one row of adjacent systems (no transposing tile) and
///              the shifted form's A, M rows are the same across a chunk's lanes. The chunks'
///              reduced rows go through shared memory, where a group of lanes per system solves
///              them with shuffles. One segment: d read once, x written once, no workspace;
///              several: reduce, recursive coarse solve and substitute, as the segment method.
///              Shifted systems of several segments whose rows of d and x are 16-byte aligned
///              (real: an even row stride), in large batches (at least 16 systems, and at least 2
///              warps per SM, complex 1.5), reduce and substitute one lane per (system, segment)
///              instead (tridiag/cuda/segment_lanes.cuh), the reduce pass keeping its
///              elimination states in the workspace (3 scalars per tile: 16 real rows, 8
///              complex); their complex segments are 64·K rows (16·K in systems of at most 64·K
///              rows). On layouts whose rows are contiguous, complex shifted systems of one
///              segment (n ≤ 32·K) take each block's systems through shared memory: the block
///              copies them whole (one run of memory each) into a tile a unit ahead, its threads
///              take their chunks from it, and x goes back through it to coalesced stores; real
///              systems, the general form, longer systems and row-fastest layouts whose rows are
///              not contiguous (in d or x) run the segment method instead (same K).
///   tiled_pcr: tiled PCR with the buffered sliding window (kim2011; tridiag/cuda/tiled_pcr.cuh):
///              k = rows_per_thread PCR steps (1 to kTiledPcrMaxSteps; 0 = 4, fewer where n
///              needs fewer) split each system into 2^k independent ones of ⌈n / 2^k⌉ rows,
///              computed in chunks of a system by many blocks, each walking its chunk in tiles with
///              the rows the next tiles need kept in shared memory. The independent systems
///              (general form, side by side in the workspace) are solved by the method the
///              selection table picks for them, and their solution scattered to x. For few, long
///              systems; any layout (coalesced for rows that are contiguous). d read once, x
///              written once, the reduced rows through the workspace (96 bytes per row real and
///              more).
///   window:    shifted form, n > 32·K (K = rows_per_thread: 0 or kWindowLaneRows = 16): each
///              system cut into windows of 32·K rows that overlap by 64, each solved alone,
///              writing only the rows at least 32 from a cut: on contiguous rows by one warp as
///              the sweep method solves a system (tridiag/cuda/sweep.cuh, sweep_window_kernel), on
///              rows side by side (interleaved) by 32 threads of K rows as the columns method's
///              whole pass solves a system of one segment (tridiag/cuda/columns.cuh).
///              Exact to rounding where every row satisfies |a| + |c| ≤ θ|b| with θ = 2^(−54/33)
///              ≈ 0.32, which the call checks on the device, every row at every shift, inside
///              the window kernel: each warp checks the rows it solves (every row lies inside
///              some window with both its couplings), and all stop once one is past the bound.
///              The selection table's method (the sweep, block, segment or columns method)
///              follows, gated on the warps' count on the device: where a row fails it solves
///              the batch, else it returns at once; the count stays in the workspace's first 4
///              bytes (an unsigned: 0 where the window kernel's solution stands). Nothing waits
///              on the host, so the call may be captured into a CUDA graph. A caller that knows its
///              systems meet the bound (window_bound_holds on the same A, M and shifts, once for
///              any number of right-hand sides) sets Options::window_bound, and the call then
///              launches the window kernel alone, unchecked. d read once (the halos twice), x
///              written once. In place (x aliasing d) the table's method; the general form and n ≤
///              32·K take the sweep method's rules.
///   automatic: picked by the selection table (tridiag/cuda/selection.hpp) from
///              (n, batch, layout, scalar type), and Options::dominant and window_bound.
/// Pivoting (`solve_shifted_pivoting` / `solve_general_pivoting`): LU with the scaled partial
/// pivoting of the reference, one thread per system, rows through shared memory as in thomas,
/// U in the workspace (ten passes): stable where the non-pivoting methods lose accuracy, but not
/// parallel within a system (slow for a few long systems).
///
/// Workspace: device memory owned by the caller, `workspace_size` / `pivoting_workspace_size`
/// scalars. Every call is asynchronous on `stream`; zero pivots are not detected on the GPU
/// (they give Inf/NaN in x).
///
/// Alignment: complex arrays (d, x, the workspace, A, M and the shifts, or a, b, c) must be
/// 16-byte aligned, as arrays of std::complex<double> from cudaMalloc are (the kernels load each
/// element whole; std::complex<double> itself asks only 8). InputError otherwise, thrown before
/// any work reaches the device.

#include <cuda_runtime_api.h>

#include <cmath>
#include <string>

#include "common/cuda/device_buffer.hpp"
#include "common/scalar.hpp"
#include "pscr/operator.hpp"
#include "tridiag/layout.hpp"

namespace pscr::tridiag::cuda {

/// @brief A symmetric tridiagonal matrix in device memory (the device twin of SymTridiag):
/// `diag` has n entries, `off` n−1 (off[k] = T(k, k+1) = T(k+1, k); may be null when n = 1).
template <class Scalar>
struct DeviceSymTridiag {
  const Scalar* diag = nullptr;
  const Scalar* off = nullptr;
  index_t n = 0;

  index_t size() const { return n; }
};

/// @brief Owns a copy of a host SymTridiag in device memory.
template <class Scalar>
class DeviceSymTridiagBuffer {
 public:
  /// Uploads `t` (synchronous).
  explicit DeviceSymTridiagBuffer(const SymTridiag<Scalar>& t);
  DeviceSymTridiag<Scalar> view() const { return {diag_.data(), off_.data(), n_}; }

 private:
  pscr::cuda::DeviceBuffer<Scalar> diag_;
  pscr::cuda::DeviceBuffer<Scalar> off_;
  index_t n_ = 0;
};

/// @brief Non-pivoting method of solve_shifted / solve_general.
enum class Method {
  automatic,
  thomas,
  partition,
  warp,
  segment,
  block,
  sweep,
  columns,
  tiled_pcr,
  window
};

/// @brief Where the partition and warp methods read the shifted form's A and M from: straight from
/// global memory (cached), or staged once per block in shared memory (used only where it fits
/// without shrinking the block's work).
enum class Staging { automatic, global, shared };

/// @brief Method and parameters; the defaults take everything from the selection table.
struct Options {
  Method method = Method::automatic;
  /// partition: rows per partition (4, 8 or 16); warp: rows per lane (2, 4, 8 or 16, raised to
  /// the smallest that covers n); segment, block, columns: rows per lane or thread (2, 4, 8 or
  /// 16); sweep: rows per lane (1 to kSweepMaxLaneRows), raised to the smallest even K ≥ 4 that
  /// covers n (real n > 768: 8 where it is 1 to 8, or 0 where 8 pads at least a tenth fewer rows
  /// than 16 and the batch has fewer than 2^23 rows, and n ≤ 8192; else 16; complex n > 768: 16
  /// where more than 8 is asked and n ≤ kSweepComplexWideMaxRows (selection.hpp), else 8);
  /// tiled_pcr: its PCR steps k (1 to kTiledPcrMaxSteps: 2^k independent systems per system).
  /// Otherwise (and 0 for every method) = from the selection table where its entry for the shape
  /// is the same kind of method, else 8 (complex: 4, since eliminating more rows per thread without
  /// pivoting loses accuracy on indefinite complex systems, bench/tridiag_select.py, unless
  /// `dominant`; tiled_pcr: see Method). The options resolved_options returns are valid options
  /// again, and resolve to themselves.
  int rows_per_thread = 0;
  Staging staging = Staging::automatic;
  /// The caller's assurance that every system is diagonally dominant by rows, |b_r| ≥ |a_r| + |c_r|
  /// on every row (`tridiag::reference::shifted_dominant` / `general_dominant` check it on the
  /// host). Elimination without pivoting is then stable in any order: Schur complements and
  /// principal submatrices of such a matrix are diagonally dominant again, and the growth factor of
  /// Gaussian elimination is at most 2 (Wilkinson; Higham, Accuracy and Stability of Numerical
  /// Algorithms, 2nd ed., §9.5). So complex systems may take configurations that eliminate more
  /// than kMaxComplexLaneRows (selection.hpp) rows per lane: the selection table's dominant
  /// entries, and 8 rows per thread where the call and the table give none, and the sweep method
  /// skips its guard (Method::sweep). Real systems run the same either way. A system that is not
  /// dominant may lose accuracy (as the rows_per_thread a call sets may).
  bool dominant = false;
  /// The caller's assurance that every row of every system meets the window method's bound,
  /// |a_r| + |c_r| ≤ θ|b_r| with θ = 2^(−54/33) ≈ 0.32 (window_bound_holds checks it on the
  /// device), for the shifted form: the window method then skips its own check and the launch of
  /// its fallback (Method::window), and `automatic` takes it where the selection table measured
  /// it faster (SelectionEntry::window). The bound implies `dominant`, which the call then takes as
  /// set. A system past the bound may lose accuracy (θ^33 no longer bounds the halos' error).
  bool window_bound = false;
};

/// @brief Most rows per lane of the sweep method: systems of up to 32·64 = 2048 rows.
inline constexpr int kSweepMaxLaneRows = 64;

/// @brief Rows per lane of the window method: windows of 32·16 = 512 rows, 448 of them written.
inline constexpr int kWindowLaneRows = 16;

/// @brief Rows of a window of the window method (its 32 lanes' kWindowLaneRows each): systems of
/// at most this many rows take the sweep method instead.
inline constexpr index_t kWindowRows = 32 * kWindowLaneRows;

/// @brief Rows a window of the window method leaves unwritten at each end that cuts its system
/// (its halo; windows overlap by twice as many).
inline constexpr int kWindowHaloRows = 32;

/// @brief θ of the window method's bound |a| + |c| ≤ θ|b| (Options::window_bound): its error at
/// rows L = kWindowHaloRows from a cut, at most 2θ^(L+1)‖x‖∞ (tridiag/cuda/sweep.cuh), is then
/// 2^-53 ‖x‖∞: θ = 2^(−54/33) ≈ 0.3219.
inline double window_theta() {
  return std::exp2(-54.0 / (kWindowHaloRows + 1));
}

/// @brief Most PCR steps of the tiled PCR method (2^8 independent systems per system): its
/// sliding window holds about 2^(k+1) + 128 k rows per block in shared memory.
inline constexpr int kTiledPcrMaxSteps = 8;

/// @brief The rows-per-thread values a method's kernels are compiled for, one instantiation each.
template <int... Ks>
struct RowsList {
  static constexpr bool contains(int r) { return ((r == Ks) || ...); }
  /// "2, 4, 8 or 16", for messages.
  static std::string text() {
    constexpr int values[] = {Ks...};
    std::string s;
    for (int v : values)
      s += (s.empty() ? "" : v == values[sizeof...(Ks) - 1] ? " or " : ", ") + std::to_string(v);
    return s;
  }
};
/// @brief K of the warp, segment, block and columns methods (rows per lane or thread).
using LaneRows = RowsList<2, 4, 8, 16>;
/// @brief M of the partition method (rows per partition).
using PartitionRows = RowsList<4, 8, 16>;

/// @brief Throws InputError unless `options.rows_per_thread` is one that `options.method` takes
/// (see Options). Host only, no device needed; every solve, workspace query and resolved_options
/// checks its options with it.
void check_options(const Options& options);

/// @brief Scalars of device workspace that solve_shifted / solve_general need for systems of size
/// n in a batch of `batch` with these options, for any layouts (0 is possible: pass any pointer).
template <class Scalar>
index_t workspace_size(index_t n, index_t batch, const Options& options = {});

/// @brief The method and parameters solve_general (`general`) or solve_shifted runs with these
/// arguments on the current device: automatic choices taken from the selection table, and a
/// method that does not apply to the shape or layout replaced by the one that runs instead (see
/// Method).
template <class Scalar>
Options resolved_options(index_t n, index_t batch, BatchLayout d_layout, bool general,
                         const Options& options = {});

/// @brief Scalars of device workspace that the pivoting solvers need: 3 n batch.
index_t pivoting_workspace_size(index_t n, index_t batch);

/// @brief (A + s_k M) x_k = d_k for k = 0..batch−1 on `stream`; A, M, d_shifts (batch shifts),
/// d_rhs, d_x and d_workspace are device memory.
template <class Scalar>
void solve_shifted(cudaStream_t stream, DeviceSymTridiag<Scalar> A, DeviceSymTridiag<Scalar> M,
                   const Scalar* d_shifts, index_t batch, const Scalar* d_rhs, BatchLayout d_layout,
                   Scalar* d_x, BatchLayout x_layout, Scalar* d_workspace, index_t workspace_count,
                   const Options& options = {});

/// @brief General systems a (sub), b (diagonal), c (super), d, all with d_layout, on `stream`.
template <class Scalar>
void solve_general(cudaStream_t stream, index_t n, index_t batch, const Scalar* d_a,
                   const Scalar* d_b, const Scalar* d_c, const Scalar* d_rhs, BatchLayout d_layout,
                   Scalar* d_x, BatchLayout x_layout, Scalar* d_workspace, index_t workspace_count,
                   const Options& options = {});

/// @brief Whether every row of every shifted system (A + s_k M), k = 0..batch−1, meets the window
/// method's bound |a| + |c| ≤ θ|b| (Options::window_bound, θ = window_theta()), checked on the
/// device on `stream` as Method::window checks it (exact to rounding, as
/// tridiag::reference::shifted_dominant with θ), and waits for the check: real shifts O(n + batch)
/// work where no row's diagonal vanishes between them, complex ones O(n · batch).
template <class Scalar>
bool window_bound_holds(cudaStream_t stream, DeviceSymTridiag<Scalar> A, DeviceSymTridiag<Scalar> M,
                        const Scalar* d_shifts, index_t batch);

/// @brief Scaled partial pivoting for (A + s_k M) x_k = d_k (arguments as solve_shifted).
template <class Scalar>
void solve_shifted_pivoting(cudaStream_t stream, DeviceSymTridiag<Scalar> A,
                            DeviceSymTridiag<Scalar> M, const Scalar* d_shifts, index_t batch,
                            const Scalar* d_rhs, BatchLayout d_layout, Scalar* d_x,
                            BatchLayout x_layout, Scalar* d_workspace, index_t workspace_count);

/// @brief Scaled partial pivoting for general systems (arguments as solve_general).
template <class Scalar>
void solve_general_pivoting(cudaStream_t stream, index_t n, index_t batch, const Scalar* d_a,
                            const Scalar* d_b, const Scalar* d_c, const Scalar* d_rhs,
                            BatchLayout d_layout, Scalar* d_x, BatchLayout x_layout,
                            Scalar* d_workspace, index_t workspace_count);

}  // namespace pscr::tridiag::cuda
