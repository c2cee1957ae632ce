#pragma once
/// @file The segment stage: for rows whose shifted systems are tridiagonal and long (2D, and the
/// inner 2D problems of 3D), RhsStage, the shifted solves and SumStage of one level without the
/// systems ever reaching global memory (DESIGN.md §3: "fused kernels that keep intermediates on
/// chip"). The solves are tridiag/cuda's segment method (segment.cuh: segments of 32·K rows, one
/// warp per segment, K rows per lane in registers), driven from here:
///   condense: per (problem p, chunk c, segment) a warp forms each right-hand side
///     x_l = Σ_s W_{s,l} g_s (eq. 26/28) of its rows in registers, eliminates the segment's
///     interior and writes the two coarse rows of the segment for system p·S + b.sys + l;
///   the coarse systems (2 rows per segment) are solved by tridiag::cuda, in place;
///   finish: per (p, c, segment) the warp forms x_l again, solves the segment with its first and
///     last unknowns fixed by the coarse solution, and adds W_{r,l} y_l into registers (eq. 24/27);
///     after the chunk's last eigenvalue it writes the outputs to u (or to the chunk's slot, as
///     SumStage).
/// Global traffic per (chunk, segment): the ≤ 3 source rows read by both passes (condense keeps
/// them in registers for the chunk, finish reads them per eigenvalue, from cache after the first)
/// and, in back substitution, the 2 rows of the coupling terms once per pass; ≤ 3 output rows
/// written; 4 + 1 coarse values per system and segment. The separate stages write, read, write
/// and read one row per eigenvalue.
///
/// No pivoting and no singular lane here: as for FusedStage (fused.cuh), the engine uses this path
/// only for stages whose systems passed the plan-time monitor and hold no null-space lane.
/// Device code only: include only from .cu files.

#include <type_traits>

#include "pscr/cuda/kernels.cuh"
#include "pscr/cuda/stage_fusion.hpp"
#include "tridiag/cuda/segment.cuh"

namespace pscr::cuda::detail {

/// Rows per lane of the segment stage: 8 real, 4 complex, the fastest of the segment method on
/// long systems (tridiag/cuda/selection_table_h100.inc, _h200.inc); complex segments of 8 rows per
/// lane lose accuracy on Helmholtz shifts (docs/tridiag-performance.md).
template <class T>
inline constexpr int kSegmentStageRows = std::is_floating_point_v<T> ? 8 : 4;

/// Rows of one segment of the segment stage (32 lanes).
template <class T>
inline constexpr index_t kSegmentStageSegmentRows =
    static_cast<index_t>(tridiag::cuda::detail::kWarpLanes) * kSegmentStageRows<T>;

/// Eigenvalues per chunk where the segment stage runs (engine.cuh: TridiagSolve::chunk_lanes).
inline constexpr index_t kSegmentStageChunkLanes = 16;

static_assert(kSegmentStageMinN > kSegmentStageSegmentRows<double> &&
                  kSegmentStageMinN > kSegmentStageSegmentRows<tridiag::cuda::detail::Complex>,
              "the segment stage's systems have several segments (a coarse system)");

/// Segments of a system of n rows (at least 2 from kSegmentStageMinN rows on).
template <class T>
index_t segment_stage_segments(index_t n) {
  return (n + kSegmentStageSegmentRows<T> - 1) / kSegmentStageSegmentRows<T>;
}

/// The unit table of a warp: for each eigenvalue l of its chunk (column l − l_begin), the weights
/// W_{s,l} of the unit's sources and outputs and the shift, loaded once per unit, so that the
/// eigenvalue loop reads them from shared memory (broadcast) instead of from global memory behind
/// a load of the block's component index (ncu, 2D Poisson 8192², H100: those dependent loads were
/// 38% of the finish pass's stall samples). Rows:
///   0 … kMaxInner − 1: the inner rows' components (sources, and the outputs of back substitution);
///   kUnitFirst, kUnitLast: back substitution: comp_first, comp_last (couplings); reduction: the
///     outputs red_comp[0], red_comp[1];
///   kUnitShift: λ_l + σ_p;
///   kUnitCoarse, kUnitCoarse + 1 (finish pass): the coarse solution at the segment's first and
///     last rows (ncu: lane 0's and lane 31's loads of it stalled the reduced solve, 6% of the
///     finish pass's samples).
inline constexpr int kUnitFirst = kMaxInner;
inline constexpr int kUnitLast = kMaxInner + 1;
inline constexpr int kUnitShift = kMaxInner + 2;
inline constexpr int kUnitCoarse = kMaxInner + 3;
inline constexpr int kUnitRows = kMaxInner + 5;
inline constexpr int kUnitTable = kUnitRows * static_cast<int>(kSegmentStageChunkLanes);

/// Scalars of shared memory per warp: the lane tables of A and M (segment.cuh), the two coupling
/// rows of back substitution (K per lane each, lane-major as the tables), the unit table.
template <int K, class T>
inline constexpr int kSegmentStageSlice = tridiag::cuda::detail::ShiftedLaneCoefs<K, T>::elements +
                                          2 * K* tridiag::cuda::detail::kWarpLanes + kUnitTable;

/// @brief The arguments of both passes of one level's segment stage.
template <class T>
struct SegmentStage {
  LevelArgs<T, TridiagRowOp<T>> a;  ///< a.row: (A, M) of the systems, a.N = n
  index_t problems;
  index_t segments;
  /// How the warps of the grid take the (problem·chunk, segment) units: (p·nchunks + c) is the
  /// walk's system.
  tridiag::cuda::detail::SegmentWalk walk;
  T* ca;  ///< coarse systems: system k = p·S + b.sys + l at k·2·segments (a, b, c, d)
  T* cb;
  T* cc;
  T* cd;
  T* slots;
  index_t nslots;
};

/// Writes −T_{j,j'} x (DESIGN.md §1, j' = j ± 1, k = min(j, j')) on the lane's rows r0 … r0 + K − 1
/// into out[i·32]: (α M + β A) x with α = (A1 + σ M1)_{jj'}, β = (M1)_{jj'}, from the lane's
/// tables.
template <int K, class T>
__device__ __forceinline__ void couple(const LevelArgs<T, TridiagRowOp<T>>& a,
                                       const tridiag::cuda::detail::ShiftedLaneCoefs<K, T>& c,
                                       index_t k, const T& sig, const T* x, index_t r0, T* out) {
  namespace td = tridiag::cuda::detail;
  const index_t n = a.N;
  const T beta = a.m1_off[k];
  const T alpha = a.a1_off[k] + sig * beta;
  T xv[K];
  td::load_lane<K>(x, td::Strides{0, 1}, 0, r0, n, xv);
  T prev = r0 > 0 && r0 <= n ? x[r0 - 1] : T(0);  // x past its n rows is not x's
  const T next = r0 + K < n ? x[r0 + K] : T(0);
#pragma unroll
  for (int i = 0; i < K; ++i) {
    const T right = i + 1 < K ? xv[i + 1] : next;
    const T mx = c.mo(i) * prev + c.md(i) * xv[i] + c.mo(i + 1) * right;
    const T ax = c.ao(i) * prev + c.ad(i) * xv[i] + c.ao(i + 1) * right;
    out[i * td::kWarpLanes] = -(alpha * mx + beta * ax);
    prev = xv[i];
  }
}

/// Loads the lane's K values of R source rows: rows[e] points at the lane's first row r0 of row e;
/// values past n are zero. All loads are issued before any value is used (one branch for all).
/// `whole`: the lane's rows are all below n and every rows[e] is 16-byte aligned (then
/// tridiag's load_vector for double).
template <int K, class T, int R>
__device__ __forceinline__ void load_sources(const T* const (&rows)[R], bool whole, index_t r0,
                                             index_t n, T (&g)[R][K]) {
  if constexpr (tridiag::cuda::detail::kVectorLane<K, T>) {
    if (whole) {
#pragma unroll
      for (int e = 0; e < R; ++e) tridiag::cuda::detail::load_vector<K>(rows[e], g[e]);
      return;
    }
  }
#pragma unroll
  for (int e = 0; e < R; ++e)
#pragma unroll
    for (int i = 0; i < K; ++i) g[e][i] = r0 + i < n ? rows[e][i] : T(0);
}

/// Blocks per SM each pass is compiled for (__launch_bounds__): real condense 4 (128 registers,
/// no spills), the others 3 (168 registers; ptxas, nvcc 13, sm_90: real finish 64 bytes spilled,
/// complex finish 288, since its loads of all sources are issued together). The complex finish
/// pass was held to 3 blocks rather than 2 (193 registers): measured on an H100 in one run, 2D
/// Helmholtz 4095² 10.14 → 9.92 ms and 8191² 46.4 → 44.4 ms, 2047² 2.79 → 3.05 ms. The real
/// finish pass at 4 blocks (128 registers, 272 bytes spilled) measured 14% slower (8192²).
template <bool Condense, class T>
inline constexpr int kSegmentStageMinBlocks = Condense&& std::is_floating_point_v<T> ? 4 : 3;

/// One pass of the segment stage (see the file comment): warp w takes the (problem·chunk, segment)
/// units of s.walk, and the eigenvalues of its unit's chunk one after another.
template <int K, bool Condense, class T>
__global__ void __launch_bounds__(tridiag::cuda::detail::kSegmentThreads,
                                  kSegmentStageMinBlocks<Condense, T>)
    segment_stage_kernel(SegmentStage<T> s) {
  namespace td = tridiag::cuda::detail;
  constexpr int L = td::kWarpLanes;
  extern __shared__ __align__(16) unsigned char smem_raw[];
  const index_t warp = (static_cast<index_t>(blockIdx.x) * blockDim.x + threadIdx.x) / L;
  if (warp >= s.walk.warps) return;
  const int lane = static_cast<int>(threadIdx.x) & (L - 1);
  T* slice = reinterpret_cast<T*>(smem_raw) + (threadIdx.x / L) * kSegmentStageSlice<K, T>;
  const td::ShiftedLaneCoefs<K, T> lc{slice, lane};
  // Coupling rows of the lane's rows: left at cpl[i·L], right at cpl[(K + i)·L].
  T* cpl = slice + td::ShiftedLaneCoefs<K, T>::elements + lane;
  T* unit = slice + td::ShiftedLaneCoefs<K, T>::elements + 2 * K * L;  // the unit table
  const LevelArgs<T, TridiagRowOp<T>>& a = s.a;
  const index_t n = a.N;
  const td::ShiftedSegmentForm<T> form{{a.row.a_diag, a.row.a_off, a.row.m_diag, a.row.m_off, n},
                                       nullptr};
  const index_t nc = 2 * s.segments;
  index_t loaded = -1;
  for (td::GroupUnits u(s.walk, s.problems * a.nchunks, s.segments, warp, 1, 0); u.more();
       u.next()) {  // uniform over the warp
    const index_t pc = u.system();
    const index_t seg = u.segment();
    const index_t p = pc / a.nchunks;
    const ChunkInfo c = a.chunks[pc - p * a.nchunks];
    const BlockInfo& b = a.blocks[c.block];
    const index_t r0 = (seg * L + lane) * K;  // the lane's first row
    if (seg != loaded) {
      form.template load<K>(lc, r0);
      loaded = seg;
    }
    const T sig = a.sigma[p];
    const T* src = a.level1 ? a.f + p * a.f_stride : a.u + p * a.u_stride;
    const T* up = a.u + p * a.u_stride;
    const T* Wb = a.W + b.w;
    const index_t m = b.m;
    const int ninner = b.ninner;
    const bool left = a.back && b.has_left;
    const bool right = a.back && b.has_right;
    // The coupling rows −T_{a,a−1} u_{a−1}, −T_{b,b+1} u_{b+1} (eq. 28) on the lane's rows, once
    // per unit, from the lane's tables of A and M (zero past n: identity rows, zero x).
    if (left) couple<K>(a, lc, b.first - 1, sig, up + (b.first - 1) * n, r0, cpl);
    if (right) couple<K>(a, lc, b.last, sig, up + (b.last + 1) * n, r0, cpl + K * L);
    const int nout = a.back ? b.ninner : b.nred;
    // The unit table (see kUnitRows) for eigenvalues l_begin … l_end − 1; the barriers keep the
    // previous unit's readers and this unit's writers apart.
    __syncwarp();
    constexpr int rows_used = (Condense ? kUnitCoarse : kUnitRows) * kSegmentStageChunkLanes;
    for (int t = lane; t < rows_used; t += L) {
      const int row = t / static_cast<int>(kSegmentStageChunkLanes);
      const index_t l = c.l_begin + t % kSegmentStageChunkLanes;
      if (l >= c.l_end) continue;
      if (row == kUnitShift) {
        unit[t] = a.lambda[b.lambda + l] + sig;
        continue;
      }
      if (row >= kUnitCoarse) {
        unit[t] = s.cd[(p * a.S + b.sys + l) * nc + 2 * seg + (row - kUnitCoarse)];
        continue;
      }
      int comp = -1;
      if (row < kMaxInner)
        comp = row < ninner ? b.inner_comp[row] : -1;
      else if (a.back)
        comp = row == kUnitFirst ? (left ? b.comp_first : -1) : (right ? b.comp_last : -1);
      else if (row - kUnitFirst < b.nred)
        comp = b.red_comp[row - kUnitFirst];
      unit[t] = comp >= 0 ? Wb[comp * m + l] : T(0);
    }
    __syncwarp();
    T acc[kMaxOutputs][K];
    if constexpr (!Condense) {
#pragma unroll
      for (int o = 0; o < kMaxOutputs; ++o)
#pragma unroll
        for (int i = 0; i < K; ++i) acc[o][i] = T(0);
    }
    // The lane's rows of the sources g_s: in registers for the whole chunk in the condense pass
    // (ncu: reloading them per eigenvalue made it L1-bound), reloaded per eigenvalue (from cache)
    // in the finish pass, whose accumulators take those registers. Absent sources (e ≥ ninner,
    // weight 0 in the unit table) read source 0 again, so that every load is unconditional and
    // the loads of all sources are in flight together.
    const T* gsrc[kMaxInner];
    bool whole = r0 + K <= n;  // the lane's rows are all below n
#pragma unroll
    for (int e = 0; e < kMaxInner; ++e) {
      gsrc[e] = src + b.inner_row[e < ninner ? e : 0] * n + r0;
      whole = whole && (reinterpret_cast<std::uintptr_t>(gsrc[e]) & 15) == 0;
    }
    T g[kMaxInner][K];
    if constexpr (Condense) load_sources<K>(gsrc, whole, r0, n, g);
    const int chunk = static_cast<int>(c.l_end - c.l_begin);
    for (int j = 0; j < chunk; ++j) {  // eigenvalue l_begin + j
      const T* uj = unit + j;          // column j of the unit table
      if constexpr (!Condense) load_sources<K>(gsrc, whole, r0, n, g);
      // x_l on the lane's rows, eq. (26)/(28); zero past n.
      T v[K];
#pragma unroll
      for (int i = 0; i < K; ++i) v[i] = T(0);
#pragma unroll
      for (int e = 0; e < kMaxInner; ++e) {
        const T w = uj[e * kSegmentStageChunkLanes];
#pragma unroll
        for (int i = 0; i < K; ++i) v[i] += w * g[e][i];
      }
      if (left) {
        const T w = uj[kUnitFirst * kSegmentStageChunkLanes];
#pragma unroll
        for (int i = 0; i < K; ++i) v[i] += w * cpl[i * L];
      }
      if (right) {
        const T w = uj[kUnitLast * kSegmentStageChunkLanes];
#pragma unroll
        for (int i = 0; i < K; ++i) v[i] += w * cpl[(K + i) * L];
      }
      const td::ShiftedLaneRows<K, T> rows{lc, uj[kUnitShift * kSegmentStageChunkLanes], r0};
      const td::LaneVector<T> vec{v, r0};
      td::Row4<T> P, Q;
      td::lane_reduce<K>(rows, vec, r0, n, P, Q);
      if constexpr (Condense) {
        const index_t e = (p * a.S + b.sys + c.l_begin + j) * nc + 2 * seg;
        const td::Condensed<T> cr = td::warp_condense(td::Condensed<T>{P, Q});
        if (lane == 0) {
          s.ca[e] = cr.F.a;
          s.cb[e] = cr.F.b;
          s.cc[e] = cr.F.c;
          s.cd[e] = cr.F.d[0];
          s.ca[e + 1] = cr.L.a;
          s.cb[e + 1] = cr.L.b;
          s.cc[e + 1] = cr.L.c;
          s.cd[e + 1] = cr.L.d[0];
        }
      } else {
        // The segment's first and last unknowns from the coarse solution: identity rows.
        if (lane == 0) P = {T(0), T(1), T(0), {uj[kUnitCoarse * kSegmentStageChunkLanes]}};
        if (lane == L - 1)
          Q = {T(0), T(1), T(0), {uj[(kUnitCoarse + 1) * kSegmentStageChunkLanes]}};
        T xf[1], xl[1];
        td::warp_reduced_solve(P, Q, xf, xl);
        td::lane_resolve<K>(rows, vec, r0, n, xf[0], xl[0]);
        // v_r += W_{r,l} y_l, eq. (24)/(27).
#pragma unroll
        for (int o = 0; o < kMaxOutputs; ++o) {
          if (o >= nout) break;
          const T w = uj[(a.back ? o : kUnitFirst + o) * kSegmentStageChunkLanes];
#pragma unroll
          for (int i = 0; i < K; ++i) acc[o][i] += w * v[i];
        }
      }
    }
    if constexpr (!Condense) {
      // Outputs: u rows of the block, or the chunk's slot (added by CombineStage).
#pragma unroll
      for (int o = 0; o < kMaxOutputs; ++o) {
        if (o >= nout) break;
        T* out;
        if (c.slot < 0) {
          const index_t row = a.back ? b.inner_row[o] : b.red_row[o < 2 ? o : 0];
          out = a.u + p * a.u_stride + row * n;
        } else {
          out = s.slots + ((p * s.nslots + c.slot) * kMaxOutputs + o) * n;
        }
        td::store_lane<K>(out, td::Strides{0, 1}, 0, r0, n, acc[o]);
      }
    }
  }
}

}  // namespace pscr::cuda::detail
