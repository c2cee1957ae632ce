#pragma once
/// @file Tiled PCR with the buffered sliding window (kim2011 §III): k steps of parallel cyclic
/// reduction (kim2011 eqs. 5–6) split every system of n rows into S = 2^k independent systems
/// (subsystem m: rows m, m + S, m + 2S, …), padded with identity rows to J = ⌈n / S⌉ rows each.
/// For few, long systems: the PCR stage spreads a system over many blocks, and what is left are
/// batch·S systems of J rows side by side in memory, which the caller solves with the method the
/// selection table picks for them (tridiag/cuda/solve.cu, launch_tiled_pcr), in place, before
/// pcr_scatter_kernel moves their solution to x's layout.
///
/// PCR stage (tiled_pcr_kernel): block (system k, chunk c) computes the level-k rows [r0, r1) of
/// its system, r0 = c·kPcrChunkRows, r1 = min(r0 + kPcrChunkRows, J·S). A level-k row depends on
/// the level-0 rows within S − 1 of it, so the block walks the rows [r0 − (S − 1), r1 + S − 1) in
/// tiles of kPcrThreads rows, one row per thread: each tile's level-0 rows are formed as unit
/// rows (divided by their diagonal), then each level l = 1..k combines the level l − 1 rows
/// 2^(l−1) below and above (pcr_combine, warp.cuh). Level l of a tile lags its level 0 by 2^l − 1
/// rows, so every input of a level is in the tile or in earlier ones; what a level still needs
/// from earlier tiles stays in its circular buffer in shared memory, the buffered sliding window.
/// So a block reads each level-0 row once and computes each row of each level once; only the
/// 2(S − 1) halo rows of a chunk are also computed by its neighbours. The level-k rows go to the
/// workspace as four arrays a, b (= 1), c, d of an interleaved layout: row j of subsystem
/// t = k·S + m (global row j·S + m) at j·(batch·S) + t (PcrGeometry::at), so the writes of a tile
/// are consecutive. Rows at or past n are identity rows (a = c = d = 0) throughout.
/// Against kim2011: its window serves sub tiles of 2^k rows with 2^k threads (top, middle and
/// bottom buffers, shifted by a copy after each sub tile); here a tile has kPcrThreads rows for
/// any k and each level its own circular buffer, so nothing is copied. The chunks are its
/// Figure 11(b), a long system over a group of blocks with overlapping halos; its p-Thomas on
/// the independent systems is replaced by the selection table's method (one thread per
/// independent system left 4096 threads at 2^20 × 16: docs/tridiag-performance.md).
///
/// Bytes per row, real: d read (8), the level-k rows written (32), the subsystems' solve (reads
/// those, writes x in place: 40 and more), the scatter (16): 96 and more, six times the floor of
/// one read of d and one write of x.
/// tiled_pcr_block, TiledPcrBlock::walk and ::phase, and pcr_scatter are host and device code:
/// tests/tridiag/test_cuda_emulation.cu runs them on the CPU. Include only from .cu files.

#include "tridiag/cuda/solve.hpp"
#include "tridiag/cuda/warp.cuh"

namespace pscr::tridiag::cuda::detail {

/// Threads (rows per tile) of tiled_pcr_kernel.
constexpr int kPcrThreads = 128;
/// Level-k rows per block of tiled_pcr_kernel: its 2(S − 1) halo rows cost at most 1/8 more.
constexpr index_t kPcrChunkRows = 32 * kPcrThreads;
static_assert(kPcrChunkRows >= (index_t{16} << kTiledPcrMaxSteps),
              "a chunk must be long against its halo");
/// Threads per block of pcr_scatter_kernel.
constexpr int kPcrScatterThreads = 256;

/// The level-k rows of the batch's independent systems: four arrays (a, b, c, d) of
/// PcrGeometry::rows(batch) scalars each, side by side in a workspace.
template <class T>
struct PcrLevels {
  T* a;
  T* b;
  T* c;
  T* d;
};

/// How tiled PCR with `steps` PCR steps cuts systems of n rows.
struct PcrGeometry {
  int steps;         ///< k
  index_t span;      ///< S = 2^k: subsystems per system, and their rows' distance in the system
  index_t sub_rows;  ///< J = ⌈n / S⌉: rows per subsystem (identity rows past n)
  index_t chunks;    ///< blocks of tiled_pcr_kernel per system

  /// Workspace index of row g of system k in a batch of `batch`: row g / S of subsystem
  /// k·S + g mod S, the batch·S subsystems side by side (an interleaved layout).
  PSCR_HD index_t at(index_t k, index_t g, index_t batch) const {
    return (g >> steps) * (batch * span) + k * span + (g & (span - 1));
  }
  /// Rows of the batch·S independent systems together: the length of each of the workspace's
  /// arrays a, b, c, d of level-k rows.
  PSCR_HD index_t rows(index_t batch) const { return batch * span * sub_rows; }
  /// The level-k rows' four arrays at the start of `ws` (4·rows(batch) scalars).
  template <class T>
  PSCR_HD PcrLevels<T> levels(T* ws, index_t batch) const {
    const index_t r = rows(batch);
    return {ws, ws + r, ws + 2 * r, ws + 3 * r};
  }
};

__host__ __device__ inline PcrGeometry pcr_geometry(index_t n, int steps) {
  const index_t span = index_t{1} << steps;
  const index_t sub_rows = (n + span - 1) / span;
  return {steps, span, sub_rows, (sub_rows * span + kPcrChunkRows - 1) / kPcrChunkRows};
}

/// Slots of level l's circular buffer: the rows level l + 1 reads while a tile passes, the
/// tile's kPcrThreads and the 2^(l+1) before them, rounded up to a power of two.
PSCR_HD int pcr_window_slots(int level) {
  const int rows = kPcrThreads + (2 << level);
#ifdef __CUDA_ARCH__
  return 1 << (32 - __clz(rows - 1));
#else
  int slots = 1;
  while (slots < rows) slots *= 2;
  return slots;
#endif
}

/// Slots of the buffers of levels 0 .. steps − 1 together (each slot holds a, c, d).
PSCR_HD int pcr_window_total(int steps) {
  int total = 0;
  for (int level = 0; level < steps; ++level) total += pcr_window_slots(level);
  return total;
}

/// Where one level's circular buffer lies in the window: its a at [start, start + slots), its c
/// and d in the next two ranges of `slots`.
struct PcrBuffer {
  int start;
  int slots;  ///< a power of two (pcr_window_slots)

  /// Level 0's buffer.
  PSCR_HD static PcrBuffer first() { return {0, pcr_window_slots(0)}; }
  /// The buffer of level l + 1, after this one (of level l).
  PSCR_HD PcrBuffer next(int l) const { return {start + 3 * slots, pcr_window_slots(l + 1)}; }
};

/// One block of the PCR stage: system k, level-k rows [r0, r1). Positions p count rows from
/// base() = r0 − (S − 1), the first level-0 row; at tile τ, thread i takes the level-l row at
/// p = τ·kPcrThreads + i − (2^l − 1).
template <class T, class Rows>
struct TiledPcrBlock {
  PcrGeometry geo;
  Rows rows;  ///< the form's global_rows of system k
  const T* d;
  Strides ds;
  index_t k, n, batch;
  index_t r0, r1;
  T* window;         ///< 3·pcr_window_total(steps) scalars: the levels' buffers (PcrBuffer)
  PcrLevels<T> out;  ///< workspace: level-k rows (see the file comment)

  PSCR_HD index_t base() const { return r0 - (geo.span - 1); }
  /// Tiles until the last level-k row, r1 − 1, is computed.
  PSCR_HD int tiles() const {
    return static_cast<int>((r1 - r0 + 2 * (geo.span - 1) + kPcrThreads - 1) / kPcrThreads);
  }

  /// Calls step(tile, level, below, here) for every tile and level in order, with the buffers
  /// phase() takes: the kernel runs phase() for its thread and a barrier in each step.
  template <class Step>
  PSCR_HD void walk(Step&& step) const {
    const int count = tiles();
    for (int tile = 0; tile < count; ++tile) {
      PcrBuffer below{}, here = PcrBuffer::first();
      for (int level = 0; level <= geo.steps; ++level) {
        step(tile, level, below, here);
        below = here;
        here = here.next(level);
      }
    }
  }

  /// Level `level` of tile `tile` for thread i: level 0 forms the tile's rows into `here` (its
  /// buffer), level l ≥ 1 combines rows of `below` (level l − 1's buffer) into `here`, the last
  /// level into the workspace. Every level of a tile needs the previous one complete: a barrier
  /// after each. The caller walks the levels in order, from PcrBuffer::first() by next().
  PSCR_HD void phase(int tile, int level, int i, PcrBuffer below, PcrBuffer here) const {
    const int p = tile * kPcrThreads + i - ((1 << level) - 1);
    if (level == 0) {
      store(here, p, level0_row(base() + p));
      return;
    }
    const int h = 1 << (level - 1);
    const Row4<T> r =
        pcr_combine(fetch(below, p), fetch(below, p - h), true, fetch(below, p + h), true);
    if (level < geo.steps) {
      store(here, p, r);
      return;
    }
    const index_t g = base() + p;
    if (g < r0 || g >= r1) return;
    const index_t at = geo.at(k, g, batch);
    out.a[at] = r.a;
    out.b[at] = r.b;
    out.c[at] = r.c;
    out.d[at] = r.d[0];
  }

  /// Level-0 row g as a unit row; an identity row outside [0, n).
  PSCR_HD Row4<T> level0_row(index_t g) const {
    if (g < 0 || g >= n) return {T(0), T(1), T(0), {T(0)}};
    return unit_row(Row4<T>{rows.sub(g), rows.diag(g), rows.sup(g), {d[ds.at(k, g)]}});
  }

  /// The row at position p of a buffer (negative p before the first tile: the rows there only
  /// feed level-k rows before r0, which are not written).
  PSCR_HD Row4<T> fetch(PcrBuffer b, int p) const {
    const T* at = window + b.start + (p & (b.slots - 1));
    return {at[0], T(1), at[b.slots], {at[2 * b.slots]}};
  }
  PSCR_HD void store(PcrBuffer b, int p, const Row4<T>& r) const {
    T* at = window + b.start + (p & (b.slots - 1));
    at[0] = r.a;
    at[b.slots] = r.c;
    at[2 * b.slots] = r.d[0];
  }
};

/// Block b of the PCR stage: system b / chunks, chunk b mod chunks (see the file comment), its
/// window at `window`, the level-k rows to geo.levels(levels, batch).
template <class T, class Form>
PSCR_HD auto tiled_pcr_block(const Form& form, const PcrGeometry& geo, index_t n, index_t batch,
                             const T* d, Strides ds, index_t b, T* window, T* levels) {
  const index_t k = b / geo.chunks;
  const index_t r0 = (b - k * geo.chunks) * kPcrChunkRows;
  const index_t end = geo.span * geo.sub_rows;
  return TiledPcrBlock<T, decltype(form.global_rows(k, ds))>{
      geo,
      form.global_rows(k, ds),
      d,
      ds,
      k,
      n,
      batch,
      r0,
      r0 + kPcrChunkRows < end ? r0 + kPcrChunkRows : end,
      window,
      geo.levels(levels, batch)};
}

/// The PCR stage, a block per (system, chunk): tiled_pcr_block's walk with a barrier per level.
template <class T, class Form>
__global__ void __launch_bounds__(kPcrThreads)
    tiled_pcr_kernel(Form form, index_t n, index_t batch, const T* d, Strides ds, PcrGeometry geo,
                     T* levels) {
  extern __shared__ __align__(16) unsigned char smem_raw[];
  T* window = reinterpret_cast<T*>(smem_raw);
  const auto block = tiled_pcr_block(form, geo, n, batch, d, ds, blockIdx.x, window, levels);
  // Identity rows before the first tile (they feed only level-k rows before r0).
  for (int e = threadIdx.x; e < 3 * pcr_window_total(geo.steps); e += blockDim.x) window[e] = T(0);
  __syncthreads();
  block.walk([&](int tile, int level, PcrBuffer below, PcrBuffer here) {
    block.phase(tile, level, threadIdx.x, below, here);
    __syncthreads();
  });
}

/// Element e of the subsystems' solution `y` (PcrGeometry::at) to x: system k, row g, if g < n.
template <class T>
PSCR_HD void pcr_scatter(const PcrGeometry& geo, index_t n, index_t batch, index_t e, const T* y,
                         T* x, Strides xs) {
  const index_t subsystems = batch * geo.span;
  const index_t j = e / subsystems;
  const index_t t = e - j * subsystems;
  const index_t k = t / geo.span;
  const index_t g = j * geo.span + (t - k * geo.span);
  if (g < n) x[xs.at(k, g)] = y[e];
}

/// pcr_scatter with a thread per element of y: the reads are consecutive, and so are the writes
/// for rows that are.
template <class T>
__global__ void __launch_bounds__(kPcrScatterThreads)
    pcr_scatter_kernel(PcrGeometry geo, index_t n, index_t batch, const T* y, T* x, Strides xs) {
  const index_t e = static_cast<index_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (e < geo.rows(batch)) pcr_scatter(geo, n, batch, e, y, x, xs);
}

}  // namespace pscr::tridiag::cuda::detail
