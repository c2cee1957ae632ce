#pragma once
/// @file One thread per system: p-Thomas (sakharnykh2010) through shared-memory chunks, and the
/// scaled-partial-pivoting LU of the reference. Include only from .cu files.

#include "tridiag/cuda/rows.cuh"

namespace pscr::tridiag::cuda::detail {

/// p-Thomas: block b solves systems [k0, k0 + blockDim) (k0 = b·blockDim), thread t system
/// k0 + t. Rows pass through a shared tile of C rows per system (stride C + 1), loaded and
/// stored in the layout's coalesced order. Forward elimination (kim2011 eqs. 2–3) leaves d' in x
/// and c' in cp_ws (row r of system k at r·batch + k: coalesced); back substitution (eq. 4)
/// walks the chunks in reverse. The last chunk stays in shared memory between the two passes.
template <int C, class T, class Form>
__global__ void __launch_bounds__(256)
    thomas_kernel(Form form, index_t n, index_t batch, const T* d, Strides ds, bool d_row_fastest,
                  T* x, Strides xs, bool x_row_fastest, T* cp_ws) {
  extern __shared__ __align__(16) unsigned char smem_raw[];
  T* dt = reinterpret_cast<T*>(smem_raw);
  const StrideIndex idx{C + 1};
  const int tile = blockDim.x * (C + 1);
  T* coef = dt + tile;

  const index_t k0 = static_cast<index_t>(blockIdx.x) * blockDim.x;
  const int gv = static_cast<int>(min(static_cast<index_t>(blockDim.x), batch - k0));
  const int t = threadIdx.x;
  const bool active = t < gv;
  const index_t k = k0 + t;
  const index_t last0 = ((n - 1) / C) * C;  // first row of the last chunk

  T cprev = T(0);
  T dprev = T(0);
  for (index_t r0 = 0; r0 < n; r0 += C) {
    const int lv = static_cast<int>(min(static_cast<index_t>(C), n - r0));
    load_tile(d, ds, k0, gv, r0, lv, d_row_fastest, dt, idx);
    form.load(ds, k0, gv, r0, lv, d_row_fastest, coef, idx, tile);
    __syncthreads();
    if (active) {
      const auto rows = form.rows(k, t, r0, coef, idx, tile);
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
    __syncthreads();
    if (r0 != last0) {
      store_tile(x, xs, k0, gv, r0, lv, x_row_fastest, dt, idx);
      __syncthreads();
    }
  }
  T xn = T(0);
  for (index_t r0 = last0; r0 >= 0; r0 -= C) {
    const int lv = static_cast<int>(min(static_cast<index_t>(C), n - r0));
    if (r0 != last0) {
      load_tile(x, xs, k0, gv, r0, lv, x_row_fastest, dt, idx);
      __syncthreads();
    }
    if (active) {
      for (int i = lv - 1; i >= 0; --i) {
        const index_t r = r0 + i;
        const T cpr = r + 1 < n ? cp_ws[r * batch + k] : T(0);
        xn = dt[idx(t, i)] - cpr * xn;
        dt[idx(t, i)] = xn;
      }
    }
    __syncthreads();
    store_tile(x, xs, k0, gv, r0, lv, x_row_fastest, dt, idx);
    __syncthreads();
  }
}

/// Rows of the shifted form for the pivoting kernel.
template <class T>
struct ShiftedRowsMaker {
  ShiftedMatrix<T> m;
  const T* shifts;
  __device__ ShiftedRows<T> operator()(index_t k) const { return {m, shifts[k]}; }
};

/// Rows of the general form (layout of d) for the pivoting kernel.
template <class T>
struct GeneralRowsMaker {
  const T* a;
  const T* b;
  const T* c;
  Strides s;
  index_t n;
  __device__ GlobalRows<T> operator()(index_t k) const { return {a, b, c, s, k, n}; }
};

/// LU with scaled partial pivoting, one thread per system, the streaming ?gtsv form of the
/// reference (tridiag/reference/solve.cpp, `pivoting`): at step i the remaining row i and row
/// i+1 compete for the pivot, relative to their largest entries (RPTS, klein2021). U's three
/// diagonals go to ws (u0, u1, u2, each n·batch, row r of system k at r·batch + k), the
/// transformed right-hand side to x. A singular system gives Inf/NaN.
template <class T, class Maker>
__global__ void __launch_bounds__(128)
    pivoting_kernel(Maker make, index_t n, index_t batch, const T* d, Strides ds, T* x, Strides xs,
                    T* ws) {
  const index_t k = static_cast<index_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (k >= batch) return;
  const auto A = make(k);
  T* u0 = ws;
  T* u1 = ws + n * batch;
  T* u2 = ws + 2 * n * batch;
  const T zero(0);
  T cd = A.diag(0);
  T cu = A.sup(0);
  T xi = d[ds.at(k, 0)];
  for (index_t i = 0; i + 1 < n; ++i) {
    const T l = A.sub(i + 1);
    T nd = A.diag(i + 1);
    const T nu = A.sup(i + 1);
    const T nb = d[ds.at(k, i + 1)];
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
    const index_t w = i * batch + k;
    if (keep) {
      const T f = l / cd;
      u0[w] = cd;
      u1[w] = cu;
      u2[w] = zero;
      x[xs.at(k, i)] = xi;
      nd -= f * cu;
      xi = nb - f * xi;
      cd = nd;
      cu = nu;
    } else {
      const T f = cd / l;
      u0[w] = l;
      u1[w] = nd;
      u2[w] = nu;
      x[xs.at(k, i)] = nb;
      xi = xi - f * nb;
      cd = cu - f * nd;
      cu = -f * nu;
    }
  }
  T x2 = zero;
  T x1 = xi / cd;
  x[xs.at(k, n - 1)] = x1;
  for (index_t i = n - 2; i >= 0; --i) {
    const index_t w = i * batch + k;
    const T xv = (x[xs.at(k, i)] - u1[w] * x1 - u2[w] * x2) / u0[w];
    x[xs.at(k, i)] = xv;
    x2 = x1;
    x1 = xv;
  }
}

}  // namespace pscr::tridiag::cuda::detail
