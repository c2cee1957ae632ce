#pragma once
/// @file One thread per system, rows through shared-memory chunks read and written in the
/// layout's coalesced order: p-Thomas (sakharnykh2010) and the scaled-partial-pivoting LU of the
/// reference. Include only from .cu files.

#include "tridiag/cuda/rows.cuh"

namespace pscr::tridiag::cuda::detail {

/// Threads per block of thomas_direct_kernel: small blocks, so that the shared-memory rows of a
/// few blocks per SM can be sized to fit (tridiag/cuda/solve.cu: thomas_direct_plan).
constexpr int kThomasDirectThreads = 64;

/// The block's systems [k0, k0 + blockDim) (k0 = b·blockDim) as thomas_kernel and pivoting_kernel
/// walk them, thread t system k = k0 + t: rows pass through a shared tile of C rows per system
/// (stride C + 1: dt, row i of the block's system t at idx(t, i)), the form's coefficient tiles
/// after it (coef), loaded and stored in the layout's coalesced order, chunk by chunk down, then
/// back up. The last chunk (first row last0) stays in the tile between the two sweeps.
template <int C, class T>
struct ChunkedSystems {
  T* dt;
  StrideIndex idx;
  int tile;
  T* coef;
  index_t n, k0;
  int gv, t;  // the block's systems (fewer in the last block), the thread's
  bool active;
  index_t k, last0;

  __device__ ChunkedSystems(unsigned char* smem, index_t n_, index_t batch)
      : dt(reinterpret_cast<T*>(smem)),
        idx{C + 1},
        tile(static_cast<int>(blockDim.x) * (C + 1)),
        coef(dt + tile),
        n(n_),
        k0(static_cast<index_t>(blockIdx.x) * blockDim.x),
        gv(static_cast<int>(min(static_cast<index_t>(blockDim.x), batch - k0))),
        t(static_cast<int>(threadIdx.x)),
        active(t < gv),
        k(k0 + t),
        last0(((n_ - 1) / C) * C) {}
  /// Rows of the chunk that starts at row r0.
  __device__ int rows(index_t r0) const {
    return static_cast<int>(min(static_cast<index_t>(C), n - r0));
  }
  /// Down: chunk r0's d and coefficients into the tiles; returns its rows.
  template <class Form>
  __device__ int load_down(const Form& form, const T* d, Strides ds, bool d_row_fastest,
                           index_t r0) const {
    const int lv = rows(r0);
    load_tile(d, ds, k0, gv, r0, lv, d_row_fastest, dt, idx);
    form.load(ds, k0, gv, r0, lv, d_row_fastest, coef, idx, tile);
    __syncthreads();
    return lv;
  }
  /// Down, after the chunk: its tile to x, but for the last chunk, which the way up starts from.
  __device__ void store_down(T* x, Strides xs, bool x_row_fastest, index_t r0, int lv) const {
    __syncthreads();
    if (r0 != last0) {
      store_tile(x, xs, k0, gv, r0, lv, x_row_fastest, dt, idx);
      __syncthreads();
    }
  }
  /// Up: chunk r0 back from x into the tile (the last one is there); returns its rows.
  __device__ int load_up(const T* x, Strides xs, bool x_row_fastest, index_t r0) const {
    const int lv = rows(r0);
    if (r0 != last0) {
      load_tile(x, xs, k0, gv, r0, lv, x_row_fastest, dt, idx);
      __syncthreads();
    }
    return lv;
  }
  /// Up, after the chunk: its tile to x.
  __device__ void store_up(T* x, Strides xs, bool x_row_fastest, index_t r0, int lv) const {
    __syncthreads();
    store_tile(x, xs, k0, gv, r0, lv, x_row_fastest, dt, idx);
    __syncthreads();
  }
};

/// p-Thomas: thread t of block b solves system k0 + t (k0 = b·blockDim), its rows through the
/// chunks of ChunkedSystems. Forward elimination (kim2011 eqs. 2–3) leaves d' in x and c' in
/// cp_ws (row r of system k at r·batch + k: coalesced); back substitution (eq. 4) walks the
/// chunks in reverse.
template <int C, class T, class Form>
__global__ void __launch_bounds__(256)
    thomas_kernel(Form form, index_t n, index_t batch, const T* d, Strides ds, bool d_row_fastest,
                  T* x, Strides xs, bool x_row_fastest, T* cp_ws) {
  extern __shared__ __align__(16) unsigned char smem_raw[];
  const ChunkedSystems<C, T> b(smem_raw, n, batch);
  T* dt = b.dt;
  const StrideIndex idx = b.idx;
  const int t = b.t;
  const index_t k = b.k;

  T cprev = T(0);
  T dprev = T(0);
  for (index_t r0 = 0; r0 < n; r0 += C) {
    const int lv = b.load_down(form, d, ds, d_row_fastest, r0);
    if (b.active) {
      const auto rows = form.rows(k, t, r0, b.coef, idx, b.tile);
      for (int i = 0; i < lv; ++i) {
        const index_t r = r0 + i;
        const T e = rows.sub(r);
        const T inv = T(1) / (rows.diag(r) - e * cprev);
        dprev = (dt[idx(t, i)] - e * dprev) * inv;
        dt[idx(t, i)] = dprev;
        cprev = rows.sup(r) * inv;
        if (r + 1 < n) cp_ws[r * batch + k] = cprev;
      }
    }
    b.store_down(x, xs, x_row_fastest, r0, lv);
  }
  T xn = T(0);
  for (index_t r0 = b.last0; r0 >= 0; r0 -= C) {
    const int lv = b.load_up(x, xs, x_row_fastest, r0);
    if (b.active) {
      for (int i = lv - 1; i >= 0; --i) {
        const index_t r = r0 + i;
        const T cpr = r + 1 < n ? cp_ws[r * batch + k] : T(0);
        xn = dt[idx(t, i)] - cpr * xn;
        dt[idx(t, i)] = xn;
      }
    }
    b.store_up(x, xs, x_row_fastest, r0, lv);
  }
}

/// p-Thomas for the general form on layouts whose systems are adjacent in memory (system stride 1
/// for a, b, c, d and x): the threads of a warp read and write consecutive elements of a row, so
/// rows go straight between global memory and registers, with no tile and no barrier. Block b
/// solves systems [b·blockDim, (b + 1)·blockDim), thread t one of them. The forward elimination
/// (kim2011 eqs. 2–3) reads U rows at a time, all loads issued before the first is used. Its c'
/// and d' of the last `resident` rows stay in shared memory ([row][thread]: conflict-free), those
/// of earlier rows go to cp_ws (row r of system k at r·batch + k) and x, as in thomas_kernel. So
/// with resident = n, a, b, c and d are read once and x written once: the byte floor.
template <int U, class T>
__global__ void __launch_bounds__(kThomasDirectThreads)
    thomas_direct_kernel(GeneralForm<T> form, index_t n, index_t batch, const T* d, Strides ds,
                         T* x, Strides xs, T* cp_ws, int resident) {
  extern __shared__ __align__(16) unsigned char smem_raw[];
  const int t = threadIdx.x;
  const int threads = blockDim.x;
  T* c_prime = reinterpret_cast<T*>(smem_raw);  // c' of row first + i at [i·threads + t]
  T* d_prime = c_prime + static_cast<index_t>(resident) * threads;  // d', likewise
  const index_t k = static_cast<index_t>(blockIdx.x) * threads + t;
  if (k >= batch) return;  // no barrier below
  const GeneralGlobalRows<T> rows = form.global_rows(k, ds);
  const index_t first = n - resident;  // first row kept in shared memory

  T cprev = T(0);
  T dprev = T(0);
  for (index_t r0 = 0; r0 < n; r0 += U) {
    T e[U], b[U], c[U], v[U];
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const index_t r = r0 + u;
      if (r < n) {
        e[u] = rows.sub(r);
        b[u] = rows.diag(r);
        c[u] = rows.sup(r);
        v[u] = d[ds.at(k, r)];
      }
    }
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const index_t r = r0 + u;
      if (r < n) {
        const T inv = T(1) / (b[u] - e[u] * cprev);
        dprev = (v[u] - e[u] * dprev) * inv;
        cprev = c[u] * inv;
        if (r >= first) {
          const index_t i = (r - first) * threads + t;
          c_prime[i] = cprev;
          d_prime[i] = dprev;
        } else {
          cp_ws[r * batch + k] = cprev;
          x[xs.at(k, r)] = dprev;
        }
      }
    }
  }
  // Back substitution (eq. 4): x_r = d'_r − c'_r x_{r+1}, the resident rows first (c'_{n−1} = 0).
  T xn = T(0);
  for (index_t r = n - 1; r >= first; --r) {
    const index_t i = (r - first) * threads + t;
    xn = d_prime[i] - c_prime[i] * xn;
    x[xs.at(k, r)] = xn;
  }
  for (index_t r0 = first - 1; r0 >= 0; r0 -= U) {
    T cp[U], dp[U];
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const index_t r = r0 - u;
      if (r >= 0) {
        cp[u] = cp_ws[r * batch + k];
        dp[u] = x[xs.at(k, r)];
      }
    }
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const index_t r = r0 - u;
      if (r >= 0) {
        xn = dp[u] - cp[u] * xn;
        x[xs.at(k, r)] = xn;
      }
    }
  }
}

/// LU with scaled partial pivoting, one thread per system: the streaming ?gtsv form of the
/// reference (tridiag/reference/solve.cpp, `pivoting`), with rows through the chunks of
/// ChunkedSystems as thomas_kernel. Incoming row r competes with the remaining row r − 1 for the
/// pivot, relative to their largest entries (RPTS, klein2021); U's three diagonals of row r − 1 go
/// to ws (u0, u1, u2, each n·batch, row r of system k at r·batch + k), its transformed right-hand
/// side y_{r−1} to the tile (or, for the last row of the previous chunk, straight to x, overwriting
/// what the previous chunk's store put there). Back substitution walks the chunks in reverse. A
/// singular system gives Inf/NaN.
template <int C, class T, class Form>
__global__ void __launch_bounds__(256)
    pivoting_kernel(Form form, index_t n, index_t batch, const T* d, Strides ds, bool d_row_fastest,
                    T* x, Strides xs, bool x_row_fastest, T* ws) {
  extern __shared__ __align__(16) unsigned char smem_raw[];
  const ChunkedSystems<C, T> b(smem_raw, n, batch);
  T* dt = b.dt;
  const StrideIndex idx = b.idx;
  const int t = b.t;
  const index_t k = b.k;
  T* u0 = ws;
  T* u1 = ws + n * batch;
  T* u2 = ws + 2 * n * batch;
  const T zero(0);

  T cd = zero, cu = zero, xi = zero;  // the remaining row: columns r−1, r and its right-hand side
  for (index_t r0 = 0; r0 < n; r0 += C) {
    const int lv = b.load_down(form, d, ds, d_row_fastest, r0);
    if (b.active) {
      const auto A = form.rows(k, t, r0, b.coef, idx, b.tile);
      for (int i = 0; i < lv; ++i) {
        const index_t r = r0 + i;
        if (r == 0) {
          cd = A.diag(0);
          cu = A.sup(0);
          xi = dt[idx(t, 0)];
          continue;
        }
        const T l = A.sub(r);
        T nd = A.diag(r);
        const T nu = A.sup(r);
        const T nb = dt[idx(t, i)];
        bool keep;
        if (cd == zero) {
          keep = false;
        } else if (l == zero) {
          keep = true;
        } else {
          const double s_i = fmax(abs1(cd), abs1(cu));
          const double s_n = fmax(abs1(l), fmax(abs1(nd), abs1(nu)));
          keep = abs1(cd) * s_n >= abs1(l) * s_i;
        }
        const index_t w = (r - 1) * batch + k;
        T y;  // transformed right-hand side of row r − 1
        if (keep) {
          const T f = l / cd;
          u0[w] = cd;
          u1[w] = cu;
          u2[w] = zero;
          y = xi;
          nd -= f * cu;
          xi = nb - f * xi;
          cd = nd;
          cu = nu;
        } else {
          // Interchange rows r − 1 and r, then eliminate column r − 1 from the old row r − 1.
          const T f = cd / l;
          u0[w] = l;
          u1[w] = nd;
          u2[w] = nu;
          y = nb;
          xi = xi - f * nb;
          cd = cu - f * nd;
          cu = -f * nu;
        }
        if (i > 0)
          dt[idx(t, i - 1)] = y;
        else
          x[xs.at(k, r - 1)] = y;
      }
      if (r0 == b.last0) dt[idx(t, lv - 1)] = xi / cd;  // x_{n−1}
    }
    b.store_down(x, xs, x_row_fastest, r0, lv);
  }
  // Back substitution with U: x_r = (y_r − u1_r x_{r+1} − u2_r x_{r+2}) / u0_r.
  T x1 = zero, x2 = zero;
  for (index_t r0 = b.last0; r0 >= 0; r0 -= C) {
    const int lv = b.load_up(x, xs, x_row_fastest, r0);
    if (b.active) {
      for (int i = lv - 1; i >= 0; --i) {
        const index_t r = r0 + i;
        T v = dt[idx(t, i)];
        if (r + 1 < n) {
          const index_t w = r * batch + k;
          v = (v - u1[w] * x1 - u2[w] * x2) / u0[w];
        }
        dt[idx(t, i)] = v;
        x2 = x1;
        x1 = v;
      }
    }
    b.store_up(x, xs, x_row_fastest, r0, lv);
  }
}

}  // namespace pscr::tridiag::cuda::detail
