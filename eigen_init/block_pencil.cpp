// Dense solution of one block pencil: LAPACK dsygv (real) and zggev (complex) on the assembled
// block, O(m³). Correct for every size; the tridiagonal methods replace it for speed.
#include <complex>
// LAPACKE speaks std::complex (the override documented in lapack.h).
#define lapack_complex_float std::complex<float>
#define lapack_complex_double std::complex<double>
#include <lapacke.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <sstream>

#include "common/error.hpp"
#include "eigen_init/eigen_init.hpp"

namespace pscr {

namespace {

/// Column-major dense copy of a symmetric tridiagonal matrix.
template <class Scalar>
std::vector<Scalar> dense(const SymTridiag<Scalar>& t) {
  const index_t m = t.size();
  std::vector<Scalar> a(m * m, Scalar{});
  for (index_t k = 0; k < m; ++k) {
    a[k * m + k] = t.diag[k];
    if (k + 1 < m) {
      a[k * m + k + 1] = t.off[k];
      a[(k + 1) * m + k] = t.off[k];
    }
  }
  return a;
}

/// Fixes the sign of a vector: its first component of largest modulus gets a positive real part.
template <class Scalar>
void fix_sign(Scalar* w, index_t m) {
  index_t kmax = 0;
  for (index_t k = 1; k < m; ++k)
    if (std::abs(w[k]) > std::abs(w[kmax])) kmax = k;
  if (std::real(w[kmax]) < 0)
    for (index_t k = 0; k < m; ++k) w[k] = -w[k];
}

/// y = T x for a symmetric tridiagonal T.
template <class Scalar>
void tridiag_apply(const SymTridiag<Scalar>& t, const Scalar* x, Scalar* y) {
  const index_t m = t.size();
  for (index_t k = 0; k < m; ++k) {
    Scalar s = t.diag[k] * x[k];
    if (k > 0) s += t.off[k - 1] * x[k - 1];
    if (k + 1 < m) s += t.off[k] * x[k + 1];
    y[k] = s;
  }
}

template <class Scalar>
real_t<Scalar> max_abs(const SymTridiag<Scalar>& t) {
  real_t<Scalar> r = 0;
  for (const Scalar& x : t.diag) r = std::max(r, std::abs(x));
  for (const Scalar& x : t.off) r = std::max(r, std::abs(x));
  return r;
}

/// Full eigenvectors (column-major m × m, column l = w_l) and eigenvalues of a real
/// symmetric-definite pencil: dsygv, ascending, Wᵀ M W = I.
void dense_pencil(const SymTridiag<double>& A, const SymTridiag<double>& M,
                  std::vector<double>& lambda, std::vector<double>& V) {
  const index_t m = A.size();
  V = dense(A);
  std::vector<double> b = dense(M);
  lambda.assign(m, 0.0);
  const lapack_int info = LAPACKE_dsygv(LAPACK_COL_MAJOR, 1, 'V', 'U', static_cast<lapack_int>(m),
                                        V.data(), static_cast<lapack_int>(m), b.data(),
                                        static_cast<lapack_int>(m), lambda.data());
  if (info > m) {
    std::ostringstream msg;
    msg << "eigen_init: expected a positive definite M block of size " << m
        << ", found a non-positive leading minor of order " << info - m;
    throw SolverError(msg.str());
  }
  if (info > 0) {
    std::ostringstream msg;
    msg << "eigen_init: dsygv did not converge on a block of size " << m << " (info " << info
        << ")";
    throw SolverError(msg.str());
  }
  PSCR_LAPACK_CHECK(info);
}

/// The same for a complex symmetric pencil: zggev, then bilinear Gram–Schmidt (plain transpose)
/// and the normalization wᵀ M w = 1.
void dense_pencil(const SymTridiag<std::complex<double>>& A,
                  const SymTridiag<std::complex<double>>& M,
                  std::vector<std::complex<double>>& lambda, std::vector<std::complex<double>>& V) {
  using C = std::complex<double>;
  const index_t m = A.size();
  std::vector<C> a = dense(A);
  std::vector<C> b = dense(M);
  std::vector<C> alpha(m), beta(m), vr(m * m);
  const lapack_int lm = static_cast<lapack_int>(m);
  const lapack_int info = LAPACKE_zggev(LAPACK_COL_MAJOR, 'N', 'V', lm, a.data(), lm, b.data(), lm,
                                        alpha.data(), beta.data(), nullptr, 1, vr.data(), lm);
  if (info > 0) {
    std::ostringstream msg;
    msg << "eigen_init: zggev did not converge on a block of size " << m << " (info " << info
        << ")";
    throw SolverError(msg.str());
  }
  PSCR_LAPACK_CHECK(info);

  const double norm_m = max_abs(M);
  std::vector<C> ev(m);
  for (index_t l = 0; l < m; ++l) {
    if (std::abs(beta[l]) <= 64 * eps<double>() * norm_m * std::max<double>(1, m)) {
      std::ostringstream msg;
      msg << "eigen_init: expected a non-singular M block of size " << m
          << ", found an infinite eigenvalue";
      throw SolverError(msg.str());
    }
    ev[l] = alpha[l] / beta[l];
  }
  std::vector<index_t> order(m);
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](index_t x, index_t y) {
    if (ev[x].real() != ev[y].real()) return ev[x].real() < ev[y].real();
    return ev[x].imag() < ev[y].imag();
  });
  lambda.resize(m);
  V.assign(m * m, C{});
  for (index_t l = 0; l < m; ++l) {
    lambda[l] = ev[order[l]];
    std::copy_n(vr.data() + order[l] * m, m, V.data() + l * m);
  }

  std::vector<C> mw(m);
  for (index_t l = 0; l < m; ++l) {
    C* w = V.data() + l * m;
    // Bilinear Gram–Schmidt against every earlier vector: the coefficients are of the size of
    // the non-orthogonality (≈ eps·‖M⁻¹A‖/gap), so the residuals stay at working accuracy.
    for (index_t j = 0; j < l; ++j) {
      const C* u = V.data() + j * m;
      tridiag_apply(M, u, mw.data());
      const C c = dot_t(mw.data(), w, m);
      for (index_t k = 0; k < m; ++k) w[k] -= c * u[k];
    }
    tridiag_apply(M, w, mw.data());
    const C s = dot_t(w, mw.data(), m);
    const double wnorm2 = std::real(dot_h(w, w, m));
    if (std::abs(s) <= 1e-10 * norm_m * wnorm2) {
      std::ostringstream msg;
      msg << "eigen_init: near-defective complex symmetric block of size " << m << ": eigenvector "
          << l << " has |wᵀMw| / (‖M‖ ‖w‖²) = " << std::abs(s) / (norm_m * wnorm2);
      throw SolverError(msg.str());
    }
    const C scale = 1.0 / std::sqrt(s);
    for (index_t k = 0; k < m; ++k) w[k] *= scale;
  }
}

}  // namespace

template <class Scalar>
BlockEigen<Scalar> solve_block_pencil(const SymTridiag<Scalar>& A, const SymTridiag<Scalar>& M,
                                      const std::vector<index_t>& rows) {
  const index_t m = A.size();
  if (m < 1 || M.size() != m)
    PSCR_INPUT_ERROR("solve_block_pencil: expected A and M of one size m >= 1, found sizes "
                     << m << " and " << M.size());
  for (std::size_t k = 0; k < rows.size(); ++k)
    if (rows[k] < 0 || rows[k] >= m || (k > 0 && rows[k] <= rows[k - 1]))
      PSCR_INPUT_ERROR("solve_block_pencil: expected ascending rows in [0, " << m << "), found row "
                                                                             << rows[k]);
  BlockEigen<Scalar> out;
  std::vector<Scalar> V;
  dense_pencil(A, M, out.lambda, V);
  out.rows = rows;
  out.W.resize(rows.size() * m);
  for (index_t l = 0; l < m; ++l) {
    Scalar* w = V.data() + l * m;
    fix_sign(w, m);
    for (std::size_t k = 0; k < rows.size(); ++k) out.W[k * m + l] = w[rows[k]];
  }
  return out;
}

#define PSCR_INSTANTIATE(Scalar)                  \
  template BlockEigen<Scalar> solve_block_pencil( \
      const SymTridiag<Scalar>& A, const SymTridiag<Scalar>& M, const std::vector<index_t>& rows);
PSCR_FOR_EACH_SCALAR(PSCR_INSTANTIATE)
#undef PSCR_INSTANTIATE

}  // namespace pscr
