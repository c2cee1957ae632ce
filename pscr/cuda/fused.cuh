#pragma once
/// @file A fused stage for rows whose shifted systems are tridiagonal (2D, and the inner 2D
/// problems of 3D): RhsStage, the shifted solves and SumStage of one level in one kernel, the
/// systems kept on chip (DESIGN.md §3: "fused kernels that keep intermediates on chip").
///
/// One CUDA block per (problem p, chunk c). For groups of G eigenvalues l of the chunk at a time:
///   1. x_l = Σ_s W_{s,l} g_s (+ coupling rows in back substitution) into G shared tiles (eq.
///   26/28);
///   2. (A + (λ_l + σ_p) M) y_l = x_l in place by the partition method of tridiag/cuda
///      (partition.cuh: partition_reduce per thread, PCR of the coarse system, partition_substitute
///      per thread; the tridiagonal solver is tridiag::cuda's, only driven from here);
///   3. v_r += Σ_l W_{r,l} y_l into shared accumulators (eq. 24/27).
/// The chunk's outputs then go to u (or to its slot, for split blocks, as SumStage).
/// Global traffic per chunk: its ≤ 3 source rows (and 2 coupling rows) read, ≤ 3 rows written,
/// instead of writing, solving and reading one row per eigenvalue.
///
/// No pivoting and no singular lane here: the engine uses this path only for stages whose
/// systems passed the plan-time monitor and hold no null-space lane.
///
/// The block program is written against a Block (DeviceBlock below: threadIdx and
/// __syncthreads; the emulation test has a CPU one that runs the threads of a phase in turn), so
/// that the same code runs in both. Include only from .cu files.

#include "pscr/cuda/kernels.cuh"
#include "tridiag/cuda/partition.cuh"

namespace pscr::cuda::detail {

/// Rows per partition of the fused stage's partition method.
inline constexpr int kFusedRows = 8;
/// Target threads per block of the fused stage.
inline constexpr int kFusedThreads = 256;
/// Largest system the fused stage takes. Measured on an H200 (bench/results/pscr-gpu-h200.csv,
/// fused vs separate stages): faster up to n = 64 (2D n = 64: 0.175 vs 0.208 ms; 3D 63³: 0.67 vs
/// 0.94 ms), slower from n = 90 on (2D n = 128: 0.33 vs 0.22 ms; n = 1024: 5.2 vs 0.72 ms; 3D
/// 90³: 3.2 vs 2.3 ms), so the stages stay separate beyond 64 (complex ones by default beyond 41:
/// block_stage_pays, stage_fusion.hpp).
inline constexpr index_t kFusedMaxN = 64;

/// @brief Launch shape of the fused stage for systems of size n and at most `lanes` eigenvalues
/// per chunk: G systems solved at once, P partitions (threads) per system.
struct FusedShape {
  int G = 1;
  int P = 1;
  int threads = 32;
  std::size_t smem_elems = 0;  ///< shared memory, in scalars

  static FusedShape make(index_t n, index_t lanes) {
    FusedShape s;
    s.P = static_cast<int>((n + kFusedRows - 1) / kFusedRows);
    s.G = static_cast<int>(std::max<index_t>(1, std::min<index_t>(kFusedThreads / s.P, lanes)));
    s.threads = (s.G * s.P + 31) / 32 * 32;
    const int ni = static_cast<int>(n);
    s.smem_elems = static_cast<std::size_t>(
        s.G * tridiag::cuda::detail::PaddedIndex<kFusedRows>::system_stride(ni)  // systems
        + 4 * s.G * 2 * s.P         // coarse a, b, c, d
        + (kMaxOutputs + 2) * ni);  // output accumulators, coupling rows
    return s;
  }
};

/// @brief The fused stage of one level (see the file comment).
template <class T>
struct FusedStage {
  LevelArgs<T, TridiagRowOp<T>> a;  ///< a.row: (A, M) of the systems, a.N = n
  T* slots;
  index_t nslots;
  FusedShape shape;

  /// Runs block `block_id` = p · nchunks + chunk with `smem` its shared memory. (Block is
  /// device-only on the GPU and host-only in the emulation: the pragma lets this host-device
  /// template call either.)
#pragma nv_exec_check_disable
  template <class Block>
  PSCR_HD void run(const Block& blk, index_t block_id, T* smem) const {
    namespace td = tridiag::cuda::detail;
    using Index = td::PaddedIndex<kFusedRows>;
    constexpr int M = kFusedRows;
    const index_t p = block_id / a.nchunks;
    const ChunkInfo c = a.chunks[block_id - p * a.nchunks];
    const BlockInfo& b = a.blocks[c.block];
    const index_t n = a.N;
    const int ni = static_cast<int>(n);
    const int G = shape.G;
    const int P = shape.P;
    const int cs = 2 * P;
    const Index idx{Index::system_stride(ni)};
    T* dt = smem;
    T* ca = dt + G * idx.stride;
    T* cb = ca + G * cs;
    T* cc = cb + G * cs;
    T* cd = cc + G * cs;
    T* acc = cd + G * cs;             // kMaxOutputs rows of n
    T* cpl = acc + kMaxOutputs * ni;  // 2 rows of n: −T_{a,a−1} u_{a−1}, −T_{b,b+1} u_{b+1}
    const int nt = blk.size();
    const int nout = a.back ? b.ninner : b.nred;
    const int ninner = b.ninner;
    const bool left = a.back && b.has_left;
    const bool right = a.back && b.has_right;
    const T* src = a.level1 ? a.f + p * a.f_stride : a.u + p * a.u_stride;
    const T* up = a.u + p * a.u_stride;
    const T sig = a.sigma[p];
    const T* Wb = a.W + b.w;
    const index_t m = b.m;
    const td::ShiftedMatrix<T> mat{a.row.a_diag, a.row.a_off, a.row.m_diag, a.row.m_off, n};
    const index_t nc = td::coarse_size(n, M);

    // Accumulators to zero; the coupling rows of back substitution, once per chunk (eq. 28).
    blk.each([&](int t) {
      for (int r = t; r < ni; r += nt) {
        for (int o = 0; o < kMaxOutputs; ++o) acc[o * ni + r] = T(0);
        cpl[r] = left ? -a.coupling(b.first - 1, sig, up + (b.first - 1) * n, r) : T(0);
        cpl[ni + r] = right ? -a.coupling(b.last, sig, up + (b.last + 1) * n, r) : T(0);
      }
    });
    blk.sync();
    for (index_t l0 = c.l_begin; l0 < c.l_end; l0 += G) {
      const int gv = static_cast<int>(c.l_end - l0 < G ? c.l_end - l0 : G);
      // 1. Right-hand sides x_l, eq. (26)/(28).
      blk.each([&](int t) {
        for (int e = t; e < gv * ni; e += nt) {
          const int g = e / ni;
          const int r = e - g * ni;
          const index_t l = l0 + g;
          T x(0);
          for (int s = 0; s < ninner; ++s)
            x += Wb[b.inner_comp[s] * m + l] * src[b.inner_row[s] * n + r];
          if (left) x += Wb[b.comp_first * m + l] * cpl[r];
          if (right) x += Wb[b.comp_last * m + l] * cpl[ni + r];
          dt[idx(g, r)] = x;
        }
      });
      blk.sync();
      // 2. The shifted systems by the partition method: reduce, PCR, substitute.
      blk.each([&](int t) {
        const int g = t / P;
        const int j = t - g * P;
        if (g >= gv || j * M >= ni) return;
        const int mp = ni - j * M < M ? ni - j * M : M;
        const td::ShiftedRows<T> rows{mat, a.lambda[b.lambda + l0 + g] + sig};
        const td::TileVector<T, Index> rhs{dt, idx, g, 0};
        td::CoarseRows<T> cr;
        td::partition_reduce(rows, rhs, static_cast<index_t>(j) * M, mp, cr);
        td::store_coarse(cr, mp, ca, cb, cc, cd, g * cs + 2 * j);
      });
      blk.sync();
      blk.pcr(ca, cb, cc, cd, gv, cs, static_cast<int>(nc));
      blk.each([&](int t) {
        const int g = t / P;
        const int j = t - g * P;
        if (g >= gv || j * M >= ni) return;
        const int mp = ni - j * M < M ? ni - j * M : M;
        const int e = g * cs + 2 * j;
        const td::ShiftedRows<T> rows{mat, a.lambda[b.lambda + l0 + g] + sig};
        const td::TileVector<T, Index> v{dt, idx, g, 0};
        td::partition_substitute<M>(rows, v, static_cast<index_t>(j) * M, mp, cd[e],
                                    mp >= 2 ? cd[e + 1] : T(0));
      });
      blk.sync();
      // 3. v_r += Σ_l W_{r,l} y_l, eq. (24)/(27).
      blk.each([&](int t) {
        for (int r = t; r < ni; r += nt)
          for (int o = 0; o < nout; ++o) {
            const int comp = a.back ? b.inner_comp[o] : b.red_comp[o < 2 ? o : 0];
            T s = acc[o * ni + r];
            for (int g = 0; g < gv; ++g) s += Wb[comp * m + l0 + g] * dt[idx(g, r)];
            acc[o * ni + r] = s;
          }
      });
      blk.sync();
    }
    // Outputs: u rows of the block, or the chunk's slot (added by CombineStage).
    blk.each([&](int t) {
      for (int o = 0; o < nout; ++o) {
        T* out;
        if (c.slot < 0) {
          const index_t row = a.back ? b.inner_row[o] : b.red_row[o < 2 ? o : 0];
          out = a.u + p * a.u_stride + row * n;
        } else {
          out = slots + ((p * nslots + c.slot) * kMaxOutputs + o) * n;
        }
        for (int r = t; r < ni; r += nt) out[r] = acc[o * ni + r];
      }
    });
  }
};

}  // namespace pscr::cuda::detail
