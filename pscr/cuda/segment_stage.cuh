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
#include "tridiag/cuda/segment.cuh"

namespace pscr::cuda::detail {

/// Rows per lane of the segment stage: 8 real, 4 complex, the fastest of the segment method on
/// long systems (tridiag/cuda/selection_table.inc); complex segments of 8 rows per lane lose
/// accuracy on Helmholtz shifts (docs/tridiag-performance.md).
template <class T>
inline constexpr int kSegmentStageRows = std::is_floating_point_v<T> ? 8 : 4;

/// Rows of one segment of the segment stage (32 lanes).
template <class T>
inline constexpr index_t kSegmentStageSegmentRows =
    static_cast<index_t>(tridiag::cuda::detail::kWarpLanes) * kSegmentStageRows<T>;

/// Smallest system the segment stage takes (shorter ones: FusedStage up to kFusedMaxN, separate
/// stages between). Measured on an H100 (2D, fused against separate stages, same run): faster
/// from n = 2047 (complex: 2.84 against 3.19 ms) and 2048 (real: 1.31 against 1.46 ms), slower at
/// 1023 / 1024 (1.00 against 0.97 ms, 0.92 against 0.76 ms), its chunks of 16 eigenvalues leaving
/// too few warps at work on the top levels of short systems.
inline constexpr index_t kSegmentStageMinN = 2047;

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

/// Scalars of shared memory per warp: the lane tables of A and M (segment.cuh), then the two
/// coupling rows of back substitution (K per lane each, lane-major as the tables).
template <int K, class T>
inline constexpr int kSegmentStageSlice = tridiag::cuda::detail::ShiftedLaneCoefs<K, T>::elements +
                                          2 * K* tridiag::cuda::detail::kWarpLanes;

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

/// Blocks per SM each pass is compiled for (__launch_bounds__), the most its registers allow
/// without spilling (ptxas, nvcc 13, sm_90: real condense 128 registers, real finish 168, complex
/// condense 164), except the complex finish pass, held to 3 blocks (168 registers, 152 bytes
/// spilled, instead of 193 registers and 2 blocks): measured on an H100 in one run, 2D Helmholtz
/// 4095² 10.14 → 9.92 ms and 8191² 46.4 → 44.4 ms, 2047² 2.79 → 3.05 ms.
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
    T acc[kMaxOutputs][K];
    if constexpr (!Condense) {
#pragma unroll
      for (int o = 0; o < kMaxOutputs; ++o)
#pragma unroll
        for (int i = 0; i < K; ++i) acc[o][i] = T(0);
    }
    // The sources g_s on the lane's rows: in registers for the whole chunk in the condense pass
    // (ncu: reloading them per eigenvalue made it L1-bound), reloaded per eigenvalue (from cache)
    // in the finish pass, whose accumulators take those registers.
    T g[Condense ? kMaxInner : 1][K];
    if constexpr (Condense) {
#pragma unroll
      for (int e = 0; e < kMaxInner; ++e)
        if (e < ninner)
          td::load_lane<K>(src + b.inner_row[e] * n, td::Strides{0, 1}, 0, r0, n, g[e]);
    }
    for (index_t l = c.l_begin; l < c.l_end; ++l) {
      // x_l on the lane's rows, eq. (26)/(28); zero past n.
      T v[K];
#pragma unroll
      for (int i = 0; i < K; ++i) v[i] = T(0);
#pragma unroll
      for (int e = 0; e < kMaxInner; ++e) {
        if (e >= ninner) break;
        const T w = Wb[b.inner_comp[e] * m + l];
        if constexpr (!Condense)
          td::load_lane<K>(src + b.inner_row[e] * n, td::Strides{0, 1}, 0, r0, n, g[0]);
        const T(&ge)[K] = g[Condense ? e : 0];
#pragma unroll
        for (int i = 0; i < K; ++i) v[i] += w * ge[i];
      }
      if (left) {
        const T w = Wb[b.comp_first * m + l];
#pragma unroll
        for (int i = 0; i < K; ++i) v[i] += w * cpl[i * L];
      }
      if (right) {
        const T w = Wb[b.comp_last * m + l];
#pragma unroll
        for (int i = 0; i < K; ++i) v[i] += w * cpl[(K + i) * L];
      }
      const td::ShiftedLaneRows<K, T> rows{lc, a.lambda[b.lambda + l] + sig, r0};
      const td::LaneVector<T> vec{v, r0};
      td::Row4<T> P, Q;
      {
        td::LaneState<K, T> st;  // not kept: lane_resolve solves the interior again
        td::lane_reduce<K>(rows, vec, r0, n, st, P, Q);
      }
      const index_t e = (p * a.S + b.sys + l) * nc + 2 * seg;
      if constexpr (Condense) {
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
        if (lane == 0) P = {T(0), T(1), T(0), {s.cd[e]}};
        if (lane == L - 1) Q = {T(0), T(1), T(0), {s.cd[e + 1]}};
        T xf[1], xl[1];
        td::warp_reduced_solve(P, Q, xf, xl);
        td::lane_resolve<K>(rows, vec, r0, n, xf[0], xl[0]);
        // v_r += W_{r,l} y_l, eq. (24)/(27).
#pragma unroll
        for (int o = 0; o < kMaxOutputs; ++o) {
          if (o >= nout) break;
          const int comp = a.back ? b.inner_comp[o] : b.red_comp[o < 2 ? o : 0];
          const T w = Wb[comp * m + l];
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
