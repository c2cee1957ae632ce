#pragma once
/// @file The stages of one PSCR level on the GPU (DESIGN.md §2–3, myllykoski2018 §4.3), as
/// element functors: `f(row, col)` computes one element, and a launcher (engine.cuh) runs it over
/// a rows × cols grid, consecutive threads on consecutive cols (the fastest index of a grid row:
/// coalesced). They are `__host__ __device__` so that the same code runs on the CPU in the
/// emulation test. Include only from .cu files.
///
/// Array layouts (T = device scalar; N = length of a "row" of dimension 1: n2 in 2D, n2·n3 for the
/// outer level of 3D, n3 for its inner 2D problems):
///   problem p's grid (f, u):  row j at base + p·stride + j·N, C order;
///   X (systems of a level):   system s of problem p at X + (p·S + s)·N, S = systems of the level;
///   shifts:                   shift of system s of problem p at shifts[p·S + s];
///   slots:                    output r of slot s of problem p at slots + ((p·nslots + s)·3 + r)·N.
///
/// A thread never reads what another thread of the same launch writes: every stage reads arrays
/// that only earlier launches wrote (checked for each functor in its comment).

#include <cuda/std/cmath>
#include <type_traits>

#include "common/scalar.hpp"
#include "pscr/cuda/tables.hpp"
#include "tridiag/cuda/complex.cuh"

#ifndef PSCR_HD
#define PSCR_HD __host__ __device__ __forceinline__
#endif

namespace pscr::cuda::detail {

/// @brief Problems first, first + stride, …, first + (count − 1)·stride (count = 0: none).
struct Progression {
  index_t first = 0;
  index_t stride = 1;
  index_t count = 0;

  PSCR_HD bool contains(index_t p) const {
    if (count == 0 || p < first) return false;
    const index_t d = p - first;
    return d % stride == 0 && d / stride < count;
  }
  PSCR_HD index_t at(index_t r) const { return first + r * stride; }
};

/// @brief Rows of a 2D problem or the tridiagonal dimension of a 3D one: (α M + β A) x at q for a
/// symmetric tridiagonal pair (A, M) of size n (off[k] = T(k, k+1)).
template <class T>
struct TridiagRowOp {
  const T* a_diag;
  const T* a_off;
  const T* m_diag;
  const T* m_off;
  index_t n;

  PSCR_HD void both(const T* x, index_t q, T& mx, T& ax) const {
    const T xq = x[q];
    mx = m_diag[q] * xq;
    ax = a_diag[q] * xq;
    if (q > 0) {
      const T xl = x[q - 1];
      mx += m_off[q - 1] * xl;
      ax += a_off[q - 1] * xl;
    }
    if (q + 1 < n) {
      const T xr = x[q + 1];
      mx += m_off[q] * xr;
      ax += a_off[q] * xr;
    }
  }
  /// (α Mrow + β Krow) x at q with Mrow = M, Krow = A (DESIGN.md §1, T_{j,j'}).
  PSCR_HD T apply(const T& alpha, const T& beta, const T* x, index_t q) const {
    T mx, ax;
    both(x, q, mx, ax);
    return alpha * mx + beta * ax;
  }
  /// Flops of one apply, counted as real ones for real T.
  static constexpr double apply_flops = 13.0;
};

/// @brief Rows of the outer level of a 3D problem: n2 × n3 grids (C order), Mrow = M2⊗M3,
/// Krow = A2⊗M3 + M2⊗A3; (α Mrow + β Krow) x at q = (p2, p3), a 9-point stencil.
template <class T>
struct GridRowOp {
  TridiagRowOp<T> d2;  ///< (A2, M2), n2
  TridiagRowOp<T> d3;  ///< (A3, M3), n3

  PSCR_HD T apply(const T& alpha, const T& beta, const T* x, index_t q) const {
    const index_t n3 = d3.n;
    const index_t p2 = q / n3;
    const index_t p3 = q - p2 * n3;
    T mm(0), am(0);  // Σ (α M2 + β A2)_{p2,p2'} (M3 x_{p2'})_{p3} and Σ (M2)_{p2,p2'} (A3 x_{p2'})
    for (index_t pp = (p2 > 0 ? p2 - 1 : 0); pp <= p2 + 1 && pp < d2.n; ++pp) {
      T m3x, a3x;
      d3.both(x + pp * n3, p3, m3x, a3x);
      T m2, a2;
      if (pp == p2) {
        m2 = d2.m_diag[p2];
        a2 = d2.a_diag[p2];
      } else {
        const index_t k = pp < p2 ? pp : p2;
        m2 = d2.m_off[k];
        a2 = d2.a_off[k];
      }
      mm += (alpha * m2 + beta * a2) * m3x;
      am += m2 * a3x;
    }
    return mm + beta * am;
  }
  static constexpr double apply_flops = 40.0;
};

/// @brief Arguments shared by the stages of one level.
template <class T, class RowOp>
struct LevelArgs {
  const BlockInfo* blocks;  ///< the level's work blocks
  const ChunkInfo* chunks;  ///< the level's chunks
  index_t nchunks;
  const T* lambda;  ///< flat eigenvalues (Tables::lambda)
  const T* W;       ///< flat eigenvector components (Tables::W)
  const T* a1_off;  ///< off-diagonal of this dimension's A (couplings T_{j,j±1})
  const T* m1_off;  ///< off-diagonal of this dimension's M
  RowOp row;        ///< Mrow, Krow of the rows
  index_t N;        ///< row length
  index_t S;        ///< systems of the level
  const T* f;       ///< problem p's f at f + p·f_stride
  index_t f_stride;
  T* u;  ///< problem p's u (also f^(i) on J_1 and the partial solutions v) at u + p·u_stride
  index_t u_stride;
  const T* sigma;  ///< σ_p: operator A1⊗Mrow + M1⊗Krow + σ_p M1⊗Mrow
  int level1;      ///< level 1: the sources are rows of f (later levels: f^(i) in u)
  int back;        ///< back substitution (else reduction)

  /// T_{j,j'} x at q for |j − j'| = 1, k = min(j, j'): α = (A1 + σ M1)_{jj'}, β = (M1)_{jj'}.
  PSCR_HD T coupling(index_t k, const T& sig, const T* x, index_t q) const {
    const T m = m1_off[k];
    return row.apply(a1_off[k] + sig * m, m, x, q);
  }
};

/// @brief lx_stage_11 / lx_stage_21: the right-hand sides of the shifted systems of one level,
///   x_l = Σ_s W_{s,l} g_s,  g_s = f^(i)_s for s ∈ J_{i−1} ∩ B               (eq. 26),
/// in back substitution plus g_a −= T_{a,a−1} u_{a−1}, g_b −= T_{b,b+1} u_{b+1}  (eq. 28),
/// and their shifts λ_l + σ_p (0 for the null-space lane of a singular problem at the top level).
/// Grid: rows = P · nchunks (problem p, chunk c), cols = N.
/// Reads f, u (rows of J_{i−1} and the coupling rows, written by earlier launches); writes X rows
/// of its chunk's systems and their shifts: disjoint per (p, c, q).
template <class T, class RowOp>
struct RhsStage {
  LevelArgs<T, RowOp> a;
  T* X;
  T* shifts;
  Progression singular;  ///< singular problems (their top-level zero lane gets shift 0)
  int top;               ///< this is the top level of back substitution
  index_t zero_lane;

  PSCR_HD void operator()(index_t row, index_t q) const {
    const index_t p = row / a.nchunks;
    const ChunkInfo c = a.chunks[row - p * a.nchunks];
    const BlockInfo& b = a.blocks[c.block];
    const index_t N = a.N;
    const T* src = a.level1 ? a.f + p * a.f_stride : a.u + p * a.u_stride;
    const T* up = a.u + p * a.u_stride;
    const T sig = a.sigma[p];
    const T* Wb = a.W + b.w;
    const index_t m = b.m;
    const int ninner = b.ninner;
    // Sources and their eigenvector rows, in registers (fixed trip counts, predicated).
    T g[kMaxInner];
    const T* w[kMaxInner];
#pragma unroll
    for (int e = 0; e < kMaxInner; ++e) {
      g[e] = e < ninner ? src[b.inner_row[e] * N + q] : T(0);
      w[e] = Wb + (e < ninner ? b.inner_comp[e] : 0) * m;
    }
    T cl(0), cr(0);
    const bool left = a.back && b.has_left;
    const bool right = a.back && b.has_right;
    if (left) cl = -a.coupling(b.first - 1, sig, up + (b.first - 1) * N, q);
    if (right) cr = -a.coupling(b.last, sig, up + (b.last + 1) * N, q);
    const T* wl = Wb + b.comp_first * m;
    const T* wr = Wb + b.comp_last * m;
    T* x = X + (p * a.S + b.sys) * N + q;
    // Unrolled: the W loads of four eigenvalues in flight at once (ncu, 4096² Poisson on an
    // H200: the rolled loop stalled ~20 of every 25 cycles on them, DRAM at 30–40%).
#pragma unroll 4
    for (index_t l = c.l_begin; l < c.l_end; ++l) {
      T acc(0);
#pragma unroll
      for (int e = 0; e < kMaxInner; ++e)
        if (e < ninner) acc += w[e][l] * g[e];
      if (left) acc += wl[l] * cl;
      if (right) acc += wr[l] * cr;
      x[l * N] = acc;
    }
    if (q == 0) {
      const bool zero = top && singular.contains(p);
      for (index_t l = c.l_begin; l < c.l_end; ++l)
        shifts[p * a.S + b.sys + l] =
            (zero && l == zero_lane) ? T(0) : a.lambda[b.lambda + l] + sig;
    }
  }
};

/// @brief lx_stage_12a / lx_stage_22a: the outputs v_r = Σ_l W_{r,l} y_l (eqs. 24, 27) over the
/// eigenvalues of one chunk: written to u (rows first/last in the reduction, the rows of
/// J_{i−1} ∩ B in back substitution) when the chunk is its block's only one, else to its slot.
/// Grid: rows = P · nchunks, cols = N. Reads Y (the solved systems, an earlier launch); writes
/// u rows / slot rows of its own block and chunk: disjoint per (p, c, q).
template <class T, class RowOp>
struct SumStage {
  LevelArgs<T, RowOp> a;
  const T* Y;  ///< solutions, laid out as X
  T* slots;
  index_t nslots;

  PSCR_HD void operator()(index_t row, index_t q) const {
    const index_t p = row / a.nchunks;
    const ChunkInfo c = a.chunks[row - p * a.nchunks];
    const BlockInfo& b = a.blocks[c.block];
    const index_t N = a.N;
    const int nout = a.back ? b.ninner : b.nred;
    const T* Wb = a.W + b.w;
    const index_t m = b.m;
    const T* w[kMaxOutputs];
#pragma unroll
    for (int r = 0; r < kMaxOutputs; ++r) {
      const int comp = r < nout ? (a.back ? b.inner_comp[r] : b.red_comp[r < 2 ? r : 0]) : 0;
      w[r] = Wb + comp * m;
    }
    const T* y = Y + (p * a.S + b.sys) * N + q;
    T acc[kMaxOutputs];
#pragma unroll
    for (int r = 0; r < kMaxOutputs; ++r) acc[r] = T(0);
      // Unrolled: four solutions and their W loads in flight at once (as in RhsStage).
#pragma unroll 4
    for (index_t l = c.l_begin; l < c.l_end; ++l) {
      const T yl = y[l * N];
#pragma unroll
      for (int r = 0; r < kMaxOutputs; ++r)
        if (r < nout) acc[r] += w[r][l] * yl;
    }
    T* out[kMaxOutputs];
    if (c.slot < 0) {
      T* up = a.u + p * a.u_stride + q;
#pragma unroll
      for (int r = 0; r < kMaxOutputs; ++r)
        out[r] = up + (r < nout ? (a.back ? b.inner_row[r] : b.red_row[r < 2 ? r : 0]) : 0) * N;
    } else {
      T* s = slots + (p * nslots + c.slot) * kMaxOutputs * N + q;
#pragma unroll
      for (int r = 0; r < kMaxOutputs; ++r) out[r] = s + r * N;
    }
#pragma unroll
    for (int r = 0; r < kMaxOutputs; ++r)
      if (r < nout) *out[r] = acc[r];
  }
};

/// @brief lx_stage_y2b: the outputs of split blocks, their slots added in chunk order.
/// Grid: rows = P · nsplits, cols = N. Reads slots (SumStage); writes u rows of its block.
template <class T, class RowOp>
struct CombineStage {
  LevelArgs<T, RowOp> a;
  const SplitInfo* splits;
  index_t nsplits;
  const T* slots;
  index_t nslots;

  PSCR_HD void operator()(index_t row, index_t q) const {
    const index_t p = row / nsplits;
    const SplitInfo sp = splits[row - p * nsplits];
    const BlockInfo& b = a.blocks[sp.block];
    const index_t N = a.N;
    const int nout = a.back ? b.ninner : b.nred;
    const index_t* out_row = a.back ? b.inner_row : b.red_row;
    T* up = a.u + p * a.u_stride;
    for (int r = 0; r < nout; ++r) {
      const T* s = slots + ((p * nslots + sp.slot_begin) * kMaxOutputs + r) * N + q;
      T acc = s[0];
      for (index_t k = 1; k < sp.slot_count; ++k) acc += s[k * kMaxOutputs * N];
      up[out_row[r] * N + q] = acc;
    }
  }
};

/// @brief lx_stage_12c: f^(i+1)_j = f^(i)_j − T_{j,j−1} v_{j−1} − T_{j,j+1} v_{j+1} for the kept
/// rows j ∈ J_i (eq. 24), stored in u_j (f^(1) = f is read from f at level 1; every kept row is
/// written, so u holds f^(i+1) on J_i afterwards). Grid: rows = P · nkept, cols = N.
/// Reads v in u rows j ± 1 (not kept rows, not written here) and element (j, q) of f or u;
/// writes element (j, q) of u only.
template <class T, class RowOp>
struct UpdateStage {
  LevelArgs<T, RowOp> a;
  const KeptInfo* kept;
  index_t nkept;

  PSCR_HD void operator()(index_t row, index_t q) const {
    const index_t p = row / nkept;
    const KeptInfo k = kept[row - p * nkept];
    const index_t N = a.N;
    const index_t j = k.row;
    T* up = a.u + p * a.u_stride;
    const T* src = a.level1 ? a.f + p * a.f_stride : up;
    T v = src[j * N + q];
    const T sig = a.sigma[p];
    if (k.left) v -= a.coupling(j - 1, sig, up + (j - 1) * N, q);
    if (k.right) v -= a.coupling(j, sig, up + (j + 1) * N, q);
    up[j * N + q] = v;
  }
};

/// @brief The scalar the kernels compute in: double, or tridiag/cuda's plain Complex (textbook
/// arithmetic, no C99 Annex-G special-value checks, which made cuda::std::complex kernels 4–5×
/// slower: docs/tridiag-performance.md). Layout-compatible with the host scalar.
template <class Scalar>
using kernel_t = tridiag::cuda::detail::kernel_scalar_t<Scalar>;
using tridiag::cuda::detail::Complex;

/// @brief |x| of a kernel scalar (the modulus for complex, as std::abs).
PSCR_HD double magnitude(double x) {
  return fabs(x);
}
PSCR_HD double magnitude(const Complex& z) {
  return hypot(z.re, z.im);
}

/// @brief Whether a real or complex device scalar is finite.
template <class T>
PSCR_HD bool is_finite(const T& x) {
  if constexpr (std::is_floating_point_v<T>) {
    return ::cuda::std::isfinite(x);
  } else {
    return ::cuda::std::isfinite(x.real()) && ::cuda::std::isfinite(x.imag());
  }
}

/// @brief The Thomas stability monitor of the CPU backend (pscr/reference/lane_thomas.hpp) for
/// the shift s = σ_g + λ_s: flags[g·S + s] = 1 when LU without pivoting of A + s M meets a
/// non-finite pivot or a fill |e_{k−1}² / β_{k−1}| above growth_limit·(|d_k| + |e_{k−1}| + |e_k|).
/// Grid: rows = G (σ), cols = S (λ); each thread walks the n rows of its matrix.
template <class T>
struct MonitorStage {
  const T* a_diag;
  const T* a_off;
  const T* m_diag;
  const T* m_off;
  index_t n;
  const T* sigma;
  const T* lambda;
  index_t S;
  double growth_limit;
  unsigned char* flags;

  PSCR_HD void operator()(index_t g, index_t s_index) const {
    const T s = sigma[g] + lambda[s_index];
    T diag = a_diag[0] + s * m_diag[0];
    T up = n > 1 ? a_off[0] + s * m_off[0] : T(0);
    T inv = T(1) / diag;
    T c = up * inv;
    T e = up;
    bool bad = !is_finite(inv);
    for (index_t k = 1; k < n && !bad; ++k) {
      const T lo = e;
      diag = a_diag[k] + s * m_diag[k];
      up = k + 1 < n ? a_off[k] + s * m_off[k] : T(0);
      const T fill = lo * c;
      inv = T(1) / (diag - fill);
      bad =
          !(magnitude(fill) <= growth_limit * (magnitude(diag) + magnitude(lo) + magnitude(up))) ||
          !is_finite(inv);
      c = up * inv;
      e = up;
    }
    flags[g * S + s_index] = bad ? 1 : 0;
  }
};

/// @brief Copies n-row systems between X and a compact buffer Z (system e of group r of Z at
/// Z + (r·count + e)·n; the same system of X at X + (r·group_systems + list[e])·n), and their
/// shifts. Grid: rows = groups · count, cols = n. `to_z`: X → Z, else Z → X.
template <class T>
struct GatherStage {
  T* X;
  const T* shifts;
  T* Z;
  T* z_shifts;
  const index_t* list;
  index_t count;
  index_t group_systems;
  index_t n;
  int to_z;

  PSCR_HD void operator()(index_t row, index_t q) const {
    const index_t r = row / count;
    const index_t e = row - r * count;
    const index_t sys = r * group_systems + list[e];
    if (to_z) {
      Z[row * n + q] = X[sys * n + q];
      if (q == 0) z_shifts[row] = shifts[sys];
    } else {
      X[sys * n + q] = Z[row * n + q];
    }
  }
};

/// @brief Copies the systems of a Progression of system indices between X and a compact buffer Z
/// (system r of Z at Z + r·n). Grid: rows = count, cols = n. `to_z`: X → Z, else Z → X.
template <class T>
struct ProgressionCopy {
  T* X;
  T* Z;
  Progression systems;
  index_t n;
  int to_z;

  PSCR_HD void operator()(index_t r, index_t q) const {
    T* x = X + systems.at(r) * n + q;
    if (to_z) {
      Z[r * n + q] = *x;
    } else {
      *x = Z[r * n + q];
    }
  }
};

/// @brief The particular solution of a singular lane (A + 0·M, A singular): solved on the leading
/// n − 1 rows into Z; this writes it back to X and sets its last row to 0 (as the CPU backend).
/// Grid: rows = count, cols = n.
template <class T>
struct SingularFinish {
  T* X;
  const T* Z;
  Progression systems;
  index_t n;

  PSCR_HD void operator()(index_t r, index_t q) const {
    X[systems.at(r) * n + q] = q + 1 < n ? Z[r * n + q] : T(0);
  }
};

/// @brief Partial Kronecker dot products for the mean-zero solution of singular problems:
/// partial[p·N + q] = Σ_i a1_i · (a_rest)_q · x_p[i, q] with (a_rest)_q = a2_q (2D) or
/// a2_{q / n3} a3_{q mod n3} (3D, a3 ≠ null). Grid: rows = P, cols = N = grid / n1.
template <class T>
struct KronDotColumns {
  const T* a1;
  const T* a2;
  const T* a3;
  index_t n1;
  index_t n3;
  index_t N;
  const T* x;
  index_t x_stride;
  T* partial;

  PSCR_HD T rest(index_t q) const {
    if (a3 == nullptr) return a2[q];
    const index_t p2 = q / n3;
    return a2[p2] * a3[q - p2 * n3];
  }
  PSCR_HD void operator()(index_t p, index_t q) const {
    const T* xp = x + p * x_stride + q;
    T acc(0);
    for (index_t i = 0; i < n1; ++i) acc += a1[i] * xp[i * N];
    partial[p * N + q] = acc * rest(q);
  }
};

/// @brief Sums `len` consecutive values per (row, chunk of `width`): out[row·chunks + c] =
/// Σ in[row·len + c·width …]. Grid: rows = R, cols = chunks = ceil(len / width).
template <class T>
struct SumChunks {
  const T* in;
  index_t len;
  index_t width;
  index_t chunks;
  T* out;

  PSCR_HD void operator()(index_t row, index_t c) const {
    const index_t begin = c * width;
    const index_t end = begin + width < len ? begin + width : len;
    T acc(0);
    for (index_t k = begin; k < end; ++k) acc += in[row * len + k];
    out[row * chunks + c] = acc;
  }
};

/// @brief x_p −= (s_p / e_m_e) · (a1 ⊗ a2 [⊗ a3]) with s_p = sums[p]: the projection of f onto
/// range(A) (a = M z) and the mean-zero correction of u (a = z). `out` may equal `x`.
/// Grid: rows = P · n1, cols = N.
template <class T>
struct KronAxpy {
  KronDotColumns<T> shape;  ///< a1, a2, a3, n1, n3, N; x and partial unused
  const T* sums;
  T e_m_e;
  const T* x;
  index_t x_stride;
  T* out;
  index_t out_stride;

  PSCR_HD void operator()(index_t row, index_t q) const {
    const index_t p = row / shape.n1;
    const index_t i = row - p * shape.n1;
    const T mu = sums[p] / e_m_e;
    const index_t at = i * shape.N + q;
    out[p * out_stride + at] = x[p * x_stride + at] - mu * shape.a1[i] * shape.rest(q);
  }
};

/// @brief r = f − A u for P grids, A = A1⊗Mrow + M1⊗Krow + c M1⊗Mrow applied in one pass:
/// (A u)_j = Σ_{j'=j−1..j+1} T_{j,j'} u_{j'} (DESIGN.md §1) with the row operator's stencil.
/// Grid: rows = P · n1, cols = N. Reads f, u; writes r (must overlap neither).
template <class T, class RowOp>
struct ResidualStage {
  const T* a1_diag;
  const T* a1_off;
  const T* m1_diag;
  const T* m1_off;
  index_t n1;
  T c;
  RowOp row;
  index_t N;
  index_t grid;  ///< n1 · N: the stride of the grids of f, u, r
  const T* f;
  const T* u;
  T* r;

  PSCR_HD void operator()(index_t rowid, index_t q) const {
    const index_t p = rowid / n1;
    const index_t j = rowid - p * n1;
    const T* up = u + p * grid;
    T acc = row.apply(a1_diag[j] + c * m1_diag[j], m1_diag[j], up + j * N, q);
    if (j > 0)
      acc += row.apply(a1_off[j - 1] + c * m1_off[j - 1], m1_off[j - 1], up + (j - 1) * N, q);
    if (j + 1 < n1) acc += row.apply(a1_off[j] + c * m1_off[j], m1_off[j], up + (j + 1) * N, q);
    const index_t at = p * grid + j * N + q;
    r[at] = f[at] - acc;
  }
};

/// @brief Column sums of |x|² for the 2-norms of P grids: partial[p·N + q] = Σ_i |x_p[i, q]|²
/// (stored as T, imaginary part 0). Grid: rows = P, cols = N.
template <class T>
struct NormColumns {
  const T* x;
  index_t n1;
  index_t N;
  index_t grid;
  T* partial;

  PSCR_HD void operator()(index_t p, index_t q) const {
    const T* xp = x + p * grid + q;
    double acc = 0;
    for (index_t i = 0; i < n1; ++i) {
      const T v = xp[i * N];
      if constexpr (std::is_floating_point_v<T>) {
        acc += v * v;
      } else {
        acc += v.real() * v.real() + v.imag() * v.imag();
      }
    }
    partial[p * N + q] = T(acc);
  }
};

/// @brief u_p += mask[p] · d_p (mask[p] ∈ {−1, 0, 1}; every grid with weight 1 when mask is
/// null): a step of iterative refinement, or its undoing. Grid: rows = P, cols = grid.
template <class T>
struct AddCorrection {
  T* u;
  const T* d;
  const int* mask;
  index_t grid;

  PSCR_HD void operator()(index_t p, index_t k) const {
    const int w = mask == nullptr ? 1 : mask[p];
    if (w > 0) {
      u[p * grid + k] += d[p * grid + k];
    } else if (w < 0) {
      u[p * grid + k] -= d[p * grid + k];
    }
  }
};

/// @brief flag[0] = 1 when some value of x is not finite. Grid: rows = 1, cols = count.
/// Every writer writes the same value 1, so the race is benign.
template <class T>
struct FiniteCheck {
  const T* x;
  int* flag;

  PSCR_HD void operator()(index_t, index_t k) const {
    if (!is_finite(x[k])) *flag = 1;
  }
};

}  // namespace pscr::cuda::detail
