#pragma once
/// @file The hot loop of the 2D CPU backend (internal): up to L shifted tridiagonal systems
/// (A + s_j M) y_j = x_j solved together by the Thomas algorithm, one system per SIMD lane, the
/// matrices formed on the fly from the shared A and M. Solving L systems in lock step hides the
/// latency of the recurrences (a division per row), which one system at a time cannot
/// (tridiag::reference::solve_shifted, the reference this kernel is tested against).
///
/// Stability monitor. LU without pivoting of T = A + s M has the backward error
/// |ΔT| ≤ c·eps·|L||U|, and row k of |L||U| is at most |d_k| + |e_{k−1}| + |e_k| + 2|ℓ_k e_{k−1}|
/// (d diagonal, e off-diagonal, ℓ_k e_{k−1} = e_{k−1}² / β_{k−1} the fill of the elimination).
/// With `monitor`, a lane whose ratio |ℓ_k e_{k−1}| / (|d_k| + |e_{k−1}| + |e_k|) exceeds
/// `growth_limit` on some row, or meets a zero or non-finite pivot, is reported in the returned
/// bit mask; the caller solves it again with pivoting. Without `monitor` (diagonally dominant
/// systems, where |ℓ_k e_{k−1}| ≤ |e_{k−1}|) nothing is checked.
///
/// Layouts: x, y and the scratch cp are interleaved, n·L values each, row k of lane j at k·L + j;
/// y must not overlap x. Lanes ≥ `lanes` are padding: their shifts must be valid (e.g. copies of
/// lane 0) and their results are ignored.

#include <cmath>
#include <complex>
#include <cstdint>

#include "common/scalar.hpp"

// Compiled once per instruction set (kernels.cpp): the namespace tells the copies apart.
#ifndef PSCR_LANE_KERNEL_NS
#define PSCR_LANE_KERNEL_NS detail
#endif

namespace pscr::reference::PSCR_LANE_KERNEL_NS {

/// @brief L lanes of real shifted Thomas; returns the mask of lanes that failed the monitor.
template <int L>
std::uint32_t lane_thomas(index_t n, const double* a, const double* b, const double* m,
                          const double* mo, int lanes, const double* shifts, const double* x,
                          double* y, double* cp, bool monitor, double growth_limit) {
  static_assert(L >= 1 && L <= 32, "lane count");
  double s[L], c[L], d[L], e[L], bad[L];
#pragma omp simd
  for (int j = 0; j < L; ++j) {
    s[j] = shifts[j];
    // Row 0: c'_0 = e_0 / d_0, d'_0 = x_0 / d_0.
    const double diag = a[0] + s[j] * m[0];
    const double up = n > 1 ? b[0] + s[j] * mo[0] : 0.0;
    const double inv = 1.0 / diag;
    c[j] = up * inv;
    d[j] = x[j] * inv;
    e[j] = up;
    bad[j] = std::abs(inv) < HUGE_VAL ? 0.0 : 1.0;
    cp[j] = c[j];
    y[j] = d[j];
  }
  // Rows 1..n−1: β_k = d_k − e_{k−1} c'_{k−1}, c'_k = e_k / β_k,
  // d'_k = (x_k − e_{k−1} d'_{k−1}) / β_k (e_{n−1} = 0). d' is kept in y.
  for (index_t k = 1; k < n; ++k) {
    const double ak = a[k], mk = m[k];
    const double bk = k + 1 < n ? b[k] : 0.0;
    const double mok = k + 1 < n ? mo[k] : 0.0;
    const double* xk = x + k * L;
    double* cpk = cp + k * L;
    double* yk = y + k * L;
    if (monitor) {
#pragma omp simd
      for (int j = 0; j < L; ++j) {
        const double lo = e[j];
        const double diag = ak + s[j] * mk;
        const double up = bk + s[j] * mok;
        const double fill = lo * c[j];
        const double inv = 1.0 / (diag - fill);
        const bool ok =
            std::abs(fill) <= growth_limit * (std::abs(diag) + std::abs(lo) + std::abs(up));
        bad[j] = ok ? bad[j] : 1.0;
        c[j] = up * inv;
        d[j] = (xk[j] - lo * d[j]) * inv;
        e[j] = up;
        cpk[j] = c[j];
        yk[j] = d[j];
      }
    } else {
#pragma omp simd
      for (int j = 0; j < L; ++j) {
        const double lo = e[j];
        const double diag = ak + s[j] * mk;
        const double up = bk + s[j] * mok;
        const double inv = 1.0 / (diag - lo * c[j]);
        c[j] = up * inv;
        d[j] = (xk[j] - lo * d[j]) * inv;
        e[j] = up;
        cpk[j] = c[j];
        yk[j] = d[j];
      }
    }
  }
  // Back substitution: y_k = d'_k − c'_k y_{k+1}.
  for (index_t k = n - 2; k >= 0; --k) {
    const double* cpk = cp + k * L;
    double* yk = y + k * L;
#pragma omp simd
    for (int j = 0; j < L; ++j) {
      d[j] = yk[j] - cpk[j] * d[j];
      yk[j] = d[j];
    }
  }
  std::uint32_t mask = 0;
  if (monitor)
    for (int j = 0; j < lanes; ++j)
      if (bad[j] != 0.0 || !(std::abs(y[(n - 1) * L + j]) < HUGE_VAL)) mask |= 1u << j;
  return mask;
}

/// @brief L lanes of complex shifted Thomas, real and imaginary parts in separate registers;
/// |z| is measured as |Re z| + |Im z| in the monitor. x, y and cp are interleaved by row as in
/// the real version (n·L complex values each).
template <int L>
std::uint32_t lane_thomas(index_t n, const std::complex<double>* a_c,
                          const std::complex<double>* b_c, const std::complex<double>* m_c,
                          const std::complex<double>* mo_c, int lanes,
                          const std::complex<double>* shifts, const std::complex<double>* x_c,
                          std::complex<double>* y_c, std::complex<double>* cp_c, bool monitor,
                          double growth_limit) {
  static_assert(L >= 1 && L <= 32, "lane count");
  // std::complex<double> is layout-compatible with double[2] ([complex.numbers]).
  const double* a = reinterpret_cast<const double*>(a_c);
  const double* b = reinterpret_cast<const double*>(b_c);
  const double* m = reinterpret_cast<const double*>(m_c);
  const double* mo = reinterpret_cast<const double*>(mo_c);
  const double* x = reinterpret_cast<const double*>(x_c);
  double* y = reinterpret_cast<double*>(y_c);
  // Scratch row k: re of c' at 2kL + j, im at 2kL + L + j (split, so the lanes vectorize).
  double* cp = reinterpret_cast<double*>(cp_c);
  double sr[L], si[L], cr[L], ci[L], dr[L], di[L], er[L], ei[L], bad[L];
#pragma omp simd
  for (int j = 0; j < L; ++j) {
    sr[j] = shifts[j].real();
    si[j] = shifts[j].imag();
    // diag = a_0 + s m_0, up = b_0 + s mo_0.
    const double gr = a[0] + sr[j] * m[0] - si[j] * m[1];
    const double gi = a[1] + sr[j] * m[1] + si[j] * m[0];
    const double ur = n > 1 ? b[0] + sr[j] * mo[0] - si[j] * mo[1] : 0.0;
    const double ui = n > 1 ? b[1] + sr[j] * mo[1] + si[j] * mo[0] : 0.0;
    const double q = 1.0 / (gr * gr + gi * gi);
    const double ir = gr * q, ii = -gi * q;
    const double xr = x[2 * j], xi = x[2 * j + 1];
    cr[j] = ur * ir - ui * ii;
    ci[j] = ur * ii + ui * ir;
    dr[j] = xr * ir - xi * ii;
    di[j] = xr * ii + xi * ir;
    er[j] = ur;
    ei[j] = ui;
    bad[j] = q < HUGE_VAL ? 0.0 : 1.0;
    cp[j] = cr[j];
    cp[L + j] = ci[j];
    y[2 * j] = dr[j];
    y[2 * j + 1] = di[j];
  }
  for (index_t k = 1; k < n; ++k) {
    const double akr = a[2 * k], aki = a[2 * k + 1];
    const double mkr = m[2 * k], mki = m[2 * k + 1];
    const bool more = k + 1 < n;
    const double bkr = more ? b[2 * k] : 0.0, bki = more ? b[2 * k + 1] : 0.0;
    const double mokr = more ? mo[2 * k] : 0.0, moki = more ? mo[2 * k + 1] : 0.0;
    const double* xk = x + 2 * k * L;
    double* cpk = cp + 2 * k * L;
    double* yk = y + 2 * k * L;
#pragma omp simd
    for (int j = 0; j < L; ++j) {
      const double lr = er[j], li = ei[j];
      const double gr = akr + sr[j] * mkr - si[j] * mki;
      const double gi = aki + sr[j] * mki + si[j] * mkr;
      const double ur = bkr + sr[j] * mokr - si[j] * moki;
      const double ui = bki + sr[j] * moki + si[j] * mokr;
      // fill = lo · c'_{k−1}, β = diag − fill, inv = 1 / β.
      const double fr = lr * cr[j] - li * ci[j];
      const double fi = lr * ci[j] + li * cr[j];
      const double br = gr - fr, bi = gi - fi;
      const double q = 1.0 / (br * br + bi * bi);
      const double ir = br * q, ii = -bi * q;
      if (monitor) {
        const bool ok = std::abs(fr) + std::abs(fi) <=
                        growth_limit * (std::abs(gr) + std::abs(gi) + std::abs(lr) + std::abs(li) +
                                        std::abs(ur) + std::abs(ui));
        bad[j] = ok ? bad[j] : 1.0;
      }
      // d' = (x_k − lo · d'_{k−1}) · inv, c' = up · inv.
      const double tr = xk[2 * j] - (lr * dr[j] - li * di[j]);
      const double ti = xk[2 * j + 1] - (lr * di[j] + li * dr[j]);
      dr[j] = tr * ir - ti * ii;
      di[j] = tr * ii + ti * ir;
      cr[j] = ur * ir - ui * ii;
      ci[j] = ur * ii + ui * ir;
      er[j] = ur;
      ei[j] = ui;
      cpk[j] = cr[j];
      cpk[L + j] = ci[j];
      yk[2 * j] = dr[j];
      yk[2 * j + 1] = di[j];
    }
  }
  for (index_t k = n - 2; k >= 0; --k) {
    const double* cpk = cp + 2 * k * L;
    double* yk = y + 2 * k * L;
#pragma omp simd
    for (int j = 0; j < L; ++j) {
      const double yr = yk[2 * j] - (cpk[j] * dr[j] - cpk[L + j] * di[j]);
      const double yi = yk[2 * j + 1] - (cpk[j] * di[j] + cpk[L + j] * dr[j]);
      dr[j] = yr;
      di[j] = yi;
      yk[2 * j] = yr;
      yk[2 * j + 1] = yi;
    }
  }
  std::uint32_t mask = 0;
  if (monitor)
    for (int j = 0; j < lanes; ++j) {
      const double* last = y + 2 * ((n - 1) * L + j);
      if (bad[j] != 0.0 || !(std::abs(last[0]) + std::abs(last[1]) < HUGE_VAL)) mask |= 1u << j;
    }
  return mask;
}

}  // namespace pscr::reference::PSCR_LANE_KERNEL_NS
