#pragma once
/// @file The segment method's reduce pass with one lane per (system, segment) unit, for the
/// shifted form, real, rows contiguous: each lane eliminates the interior of its segment of
/// 32·K rows downward by itself (lane_reduce's recurrence and three scalars over the whole
/// segment) and writes the segment's two coarse rows, the same rows as warp_condense leaves
/// (docs/tridiag-performance.md). No shuffles, no condensing tree: about 20 instructions per row
/// against about 80 for lanes of K rows and the tree, so the pass can wait on DRAM alone.
///
/// The 32 lanes of a warp take 32 consecutive units in segment-major order (unit = segment·batch +
/// system), so that they share their rows of A and M (two segments at most). The warp copies its
/// units' rows of d and its segments' rows of A and M into shared memory tile by tile (16 rows:
/// one 128-byte line per unit and array) with coalesced 16-byte cp.async, the next tile under the
/// current one, and each lane reads its rows back in pairs (its tables as broadcasts). Include only
/// from .cu files.

#include "tridiag/cuda/segment.cuh"

namespace pscr::tridiag::cuda::detail {

/// Rows of a unit per tile: 16 (128 bytes, eight 16-byte pieces).
constexpr int kLanesTileRows = 16;
/// Warps per block.
constexpr int kLanesWarps = 4;
/// 16-byte pieces of a stage's right-hand sides: 32 units × 8.
constexpr int kLanesDPieces = kWarpLanes * kLanesTileRows / 2;
/// 16-byte pieces of a stage's tables: two segments × four arrays (A's and M's diagonals and
/// couplings) × 8.
constexpr int kLanesTablePieces = 2 * 4 * kLanesTileRows / 2;
/// 16-byte pieces of a stage; a warp has two stages (the next tile copied in while the current
/// one is solved).
constexpr int kLanesStagePieces = kLanesDPieces + kLanesTablePieces;

/// Shared-memory bytes of a block of segment_lanes_reduce_kernel.
constexpr std::size_t segment_lanes_smem() {
  return 16 * static_cast<std::size_t>(kLanesStagePieces) * 2 * kLanesWarps;
}

/// Slot of piece q (rows 2q, 2q + 1 of the tile) of the warp's unit w in a stage: unit-major, the
/// piece index XORed with w mod 8, so that the 8 lanes of a phase of 16-byte reads (piece q of
/// units w..w+7) meet 8 distinct 16-byte bank groups, as do the 8 lanes copying one unit's line.
PSCR_HD constexpr int lanes_slot(int w, int q) {
  return w * (kLanesTileRows / 2) + (q ^ (w & 7));
}

/// Whether the pass applies: the shifted form's tables and the rows of d (strides `s`)
/// contiguous and 16-byte aligned wherever a tile starts (d and the tables aligned, an even
/// system stride, segments of 32·K rows a multiple of 16), and every warp's 32 consecutive
/// units within two segments (batch ≥ 31, or 16).
template <class T>
bool segment_lanes_apply(const ShiftedMatrix<T>& m, const T* d, Strides s, index_t batch, int K) {
  auto aligned = [](const T* a) { return reinterpret_cast<std::uintptr_t>(a) % 16 == 0; };
  return sizeof(T) == 8 && s.row == 1 && aligned(d) && s.system % 2 == 0 &&
         (kWarpLanes * K) % kLanesTileRows == 0 && aligned(m.a_diag) && aligned(m.m_diag) &&
         aligned(m.a_off) && aligned(m.m_off) && (batch >= kWarpLanes - 1 || batch == 16);
}

/// The lane's downward elimination of its segment's interior (lane_eliminate's recurrence,
/// lane_reduce's three scalars): interior row i is x_i = dp + gp x_first − cp x_{i+1};
/// x_{first+1} = α + β x_first + γ x_{i+1}. The start values make the first interior row no
/// special case.
template <class T>
struct SegmentElimination {
  T cp = T(0), dp = T(0), gp = T(1);
  T alpha = T(0), beta = T(0), gamma = T(1);
  PSCR_HD void step(T a, T b, T c, T d) {
    const T inv = recip(b - a * cp);
    dp = (d - a * dp) * inv;
    gp = -a * gp * inv;
    cp = c * inv;
    alpha += gamma * dp;
    beta += gamma * gp;
    gamma = -gamma * cp;
  }
};

/// One tile of a lane's segment: rows r0 .. r0 + 15, their right-hand sides at `dq` (the lane's
/// unit's slots), A's and M's rows at `tab` (its segment's table slots: ad, md, ao, mo, 8 pieces
/// each; ao, mo zero past n − 2). `sub` carries the coupling to the row before (in: row r0's,
/// out: the next tile's first row's). First: row r0 is the segment's first row; Last: row
/// r0 + 15 its last. Guard: rows may reach n (identity rows there: diagonal 1).
template <bool First, bool Last, bool Guard, class T>
__device__ __forceinline__ void segment_lanes_tile(T s, index_t r0, index_t n, const double2* stage,
                                                   int lane, const double2* tab, T& sub,
                                                   SegmentElimination<T>& e, Row4<T>& first,
                                                   Row4<T>& last) {
#pragma unroll
  for (int q = 0; q < kLanesTileRows / 2; ++q) {
    const double2 dd = stage[lanes_slot(lane, q)];
    const double2 ad = tab[q], md = tab[8 + q], ao = tab[16 + q], mo = tab[24 + q];
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int i = 2 * q + h;
      const T d = h == 0 ? dd.x : dd.y;
      T adi = h == 0 ? ad.x : ad.y;
      if constexpr (Guard) adi = r0 + i < n ? adi : T(1);
      const T a = sub, b = adi + s * (h == 0 ? md.x : md.y);
      const T c = (h == 0 ? ao.x : ao.y) + s * (h == 0 ? mo.x : mo.y);
      sub = c;
      if (First && i == 0)
        first = {a, b, c, {d}};
      else if (Last && i == kLanesTileRows - 1)
        last = {a, b, c, {d}};
      else
        e.step(a, b, c, d);
    }
  }
}

/// The reduce pass: warp w takes units [32w, 32w + 32) of batch·segments (segment-major), lane l
/// unit 32w + l, and writes its segment's coarse rows F, L as rows 2·segment, + 1 of system k's
/// coarse system (at k·2·segments, as segment_kernel's reduce pass). Lanes past the last unit
/// repeat it without storing. `rows` = 32·K, a multiple of kLanesTileRows; segment_lanes_apply.
template <class T>
__global__ void __launch_bounds__(kLanesWarps* kWarpLanes)
    segment_lanes_reduce_kernel(ShiftedMatrix<T> m, const T* shifts, index_t batch,
                                index_t segments, int rows, const T* d, index_t system_stride,
                                T* ca, T* cb, T* cc, T* cd) {
  static_assert(sizeof(T) == 8, "16-byte pieces of two real rows");
  extern __shared__ __align__(16) unsigned char smem_raw[];
  const int lane = static_cast<int>(threadIdx.x) & (kWarpLanes - 1);
  const int wib = static_cast<int>(threadIdx.x) / kWarpLanes;
  const index_t units = batch * segments;
  const index_t base = (static_cast<index_t>(blockIdx.x) * kLanesWarps + wib) * kWarpLanes;
  if (base >= units) return;  // uniform over the warp
  double2* stages = reinterpret_cast<double2*>(smem_raw) + wib * 2 * kLanesStagePieces;
  const index_t n = m.n;
  const int tiles = rows / kLanesTileRows;
  const index_t last_unit = std::min(base + kWarpLanes - 1, units - 1);
  const index_t seg_a = base / batch, seg_b = last_unit / batch;  // the warp's two segments

  // The copy of d: lane l copies piece q = l mod 8 of units 4j + l/8 (j = 0..7), one 128-byte
  // line of each of four units per instruction; of the tables: pieces l and 32 + l, array l/8 of
  // segment a, then b. Units at or past `split` (relative to base) lie in segment b.
  const int q = lane & 7;
  const int split = static_cast<int>(std::min<index_t>(seg_b * batch - base, kWarpLanes));
  const int present = static_cast<int>(std::min<index_t>(units - base, kWarpLanes));
  // Rows left in a system from a piece's first row, at most a segment's.
  auto rows_left = [&](index_t total, index_t first_row) {
    return static_cast<int>(std::min<index_t>(std::max<index_t>(total - first_row, 0), rows));
  };
  const double2* src[2];  // unit lane/8 of the warp (j = 0) as if in segment a, b
  int left[2];
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    const index_t seg = h == 0 ? seg_a : seg_b;
    const index_t first_row = seg * rows + 2 * q;
    src[h] = reinterpret_cast<const double2*>(d + (base + lane / 8 - seg * batch) * system_stride +
                                              first_row);
    left[h] = rows_left(n, first_row);
  }
  const index_t unit_step = 4 * system_stride / 2;  // pieces from unit w to unit w + 4
  const int array = lane / 8;
  const T* table = array == 0 ? m.a_diag : array == 1 ? m.m_diag : array == 2 ? m.a_off : m.m_off;
  const index_t table_n = array < 2 ? n : n - 1;
  const double2* tsrc[2];
  int tleft[2];
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    const index_t first_row = (h == 0 ? seg_a : seg_b) * rows + 2 * q;
    tsrc[h] = reinterpret_cast<const double2*>(table + first_row);
    tleft[h] = rows_left(table_n, first_row);
  }
  auto copy = [&](double2* to, const double2* from, int l, int t) {
    const int r = l - t * kLanesTileRows;
    const unsigned bytes = r >= 2 ? 16u : r == 1 ? 8u : 0u;
    copy_async(to, bytes ? from + t * (kLanesTileRows / 2) : reinterpret_cast<const double2*>(d),
               bytes);
  };
  auto fetch = [&](int t) {
    double2* stage = stages + (t & 1) * kLanesStagePieces;
    if (t < tiles) {
#pragma unroll
      for (int j = 0; j < 8; ++j) {
        const int w = 4 * j + lane / 8;
        const bool b = w >= split;
        copy(stage + lanes_slot(w, q), (b ? src[1] : src[0]) + j * unit_step,
             w < present ? (b ? left[1] : left[0]) : 0, t);
      }
#pragma unroll
      for (int h = 0; h < 2; ++h) copy(stage + kLanesDPieces + 32 * h + lane, tsrc[h], tleft[h], t);
    }
    copy_async_commit();  // empty past the last tile, so that every wait counts the same groups
  };
  fetch(0);

  const index_t u = std::min(base + lane, units - 1);
  const bool active = base + lane < units;
  const index_t seg = u / batch;
  const index_t k = u - seg * batch;
  const index_t p = seg * rows;
  const T s = shifts[k];
  const int slot = seg == seg_a ? 0 : 32;  // the lane's segment's table pieces
  const bool guard = !__all_sync(0xffffffffu, p + rows <= n);
  T sub = p >= 1 ? __ldg(m.a_off + p - 1) + s * __ldg(m.m_off + p - 1) : T(0);
  SegmentElimination<T> e;
  Row4<T> first, last;
  for (int t = 0; t < tiles; ++t) {
    fetch(t + 1);
    copy_async_wait_pending<1>();
    __syncwarp();
    const double2* stage = stages + (t & 1) * kLanesStagePieces;
    const double2* tab = stage + kLanesDPieces + slot;
    const index_t r0 = p + static_cast<index_t>(t) * kLanesTileRows;
    if (t == 0) {
      if (guard)
        segment_lanes_tile<true, false, true>(s, r0, n, stage, lane, tab, sub, e, first, last);
      else
        segment_lanes_tile<true, false, false>(s, r0, n, stage, lane, tab, sub, e, first, last);
    } else if (t == tiles - 1) {
      if (guard)
        segment_lanes_tile<false, true, true>(s, r0, n, stage, lane, tab, sub, e, first, last);
      else
        segment_lanes_tile<false, true, false>(s, r0, n, stage, lane, tab, sub, e, first, last);
    } else {
      if (guard)
        segment_lanes_tile<false, false, true>(s, r0, n, stage, lane, tab, sub, e, first, last);
      else
        segment_lanes_tile<false, false, false>(s, r0, n, stage, lane, tab, sub, e, first, last);
    }
    __syncwarp();  // the stage is fetched into again at the next tile
  }
  Row4<T> P, Q;
  lane_reduced_rows(first, last, e.alpha, e.beta, e.gamma, e.dp, e.gp, -e.cp, P, Q);
  if (active) store_coarse_rows(Condensed<T>{P, Q}, ca, cb, cc, cd, k * 2 * segments + 2 * seg);
}

}  // namespace pscr::tridiag::cuda::detail
