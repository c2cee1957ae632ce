#include "pscr/fd/setup.hpp"

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
#include "pscr/fd/thomas.hpp"

namespace pscr::fd {

namespace {

/// out[i·n + l] = scale_i · v[i + l·n]: a column-major n × n matrix (column l = eigenvector l)
/// to the row-major W of FullEigen, in tiles (n² reaches 2^28 elements).
template <class Scalar>
std::vector<Scalar> to_row_major(const std::vector<Scalar>& v, index_t n,
                                 const std::vector<double>* scale = nullptr) {
  std::vector<Scalar> out(n * n);
  const index_t tile = 64;
  for (index_t i0 = 0; i0 < n; i0 += tile)
    for (index_t l0 = 0; l0 < n; l0 += tile)
      for (index_t i = i0; i < std::min(i0 + tile, n); ++i)
        for (index_t l = l0; l < std::min(l0 + tile, n); ++l)
          out[i * n + l] = (scale != nullptr ? (*scale)[i] : 1.0) * v[i + l * n];
  return out;
}

/// Column-major dense copy of a symmetric tridiagonal matrix.
template <class Scalar>
std::vector<Scalar> dense(const SymTridiag<Scalar>& t) {
  const index_t n = t.size();
  std::vector<Scalar> a(n * n, Scalar(0));
  for (index_t k = 0; k < n; ++k) {
    a[k * n + k] = t.diag[k];
    if (k + 1 < n) a[k * n + k + 1] = a[(k + 1) * n + k] = t.off[k];
  }
  return a;
}

bool is_diagonal(const SymTridiag<double>& t) {
  return std::all_of(t.off.begin(), t.off.end(), [](double x) { return x == 0.0; });
}

/// Real pencil with a diagonal, positive M: T = M^{-1/2} A M^{-1/2} is symmetric tridiagonal with
/// the same eigenvalues; T Z = Z Λ, Zᵀ Z = I gives W = M^{-1/2} Z with Wᵀ M W = I.
FullEigen<double> mrrr_eigen(const Factor<double>& factor) {
  const index_t n = factor.size();
  std::vector<double> s(n);  // M^{-1/2}
  for (index_t i = 0; i < n; ++i) {
    if (!(factor.M.diag[i] > 0)) {
      std::ostringstream msg;
      msg << "fast diagonalization: expected a positive definite diagonal M, found M(" << i << ", "
          << i << ") = " << factor.M.diag[i];
      throw SolverError(msg.str());
    }
    s[i] = 1.0 / std::sqrt(factor.M.diag[i]);
  }
  std::vector<double> d(n), e(n, 0.0);  // dstemr uses e[n−1] as workspace
  for (index_t i = 0; i < n; ++i) d[i] = factor.A.diag[i] * s[i] * s[i];
  for (index_t i = 0; i + 1 < n; ++i) e[i] = factor.A.off[i] * s[i] * s[i + 1];

  FullEigen<double> out;
  out.method = "dstemr";
  out.lambda.assign(n, 0.0);
  std::vector<double> z(n * n);  // column-major: z[i + l·n] = Z(i, l)
  std::vector<lapack_int> isuppz(2 * n);
  lapack_int found = 0;
  lapack_logical tryrac = 1;
  const lapack_int ln = static_cast<lapack_int>(n);
  PSCR_LAPACK_CHECK(LAPACKE_dstemr(LAPACK_COL_MAJOR, 'V', 'A', ln, d.data(), e.data(), 0.0, 0.0, 0,
                                   0, &found, out.lambda.data(), z.data(), ln, ln, isuppz.data(),
                                   &tryrac));
  if (found != ln) {
    std::ostringstream msg;
    msg << "fast diagonalization: dstemr found " << found << " eigenpairs of " << n;
    throw SolverError(msg.str());
  }
  out.W = to_row_major(z, n, &s);
  return out;
}

/// Real pencil with a tridiagonal M: LAPACK dsygvd on the assembled pencil (O(n³)); its vectors
/// satisfy Zᵀ M Z = I.
FullEigen<double> dense_eigen(const Factor<double>& factor) {
  const index_t n = factor.size();
  std::vector<double> a = dense(factor.A), b = dense(factor.M);
  FullEigen<double> out;
  out.method = "dsygvd";
  out.lambda.assign(n, 0.0);
  const lapack_int ln = static_cast<lapack_int>(n);
  const lapack_int info = LAPACKE_dsygvd(LAPACK_COL_MAJOR, 1, 'V', 'U', ln, a.data(), ln, b.data(),
                                         ln, out.lambda.data());
  if (info > ln) {
    std::ostringstream msg;
    msg << "fast diagonalization: expected a positive definite M, found a non-positive leading "
           "minor of order "
        << info - ln;
    throw SolverError(msg.str());
  }
  PSCR_LAPACK_CHECK(info);
  out.W = to_row_major(a, n);
  return out;
}

/// Complex symmetric pencil: LAPACK zggev (O(n³)), eigenvalues sorted by real then imaginary
/// part, then bilinear modified Gram–Schmidt against the earlier vectors (the vectors of distinct
/// eigenvalues of a complex symmetric pencil are M-orthogonal in the plain bilinear form; zggev
/// leaves them so only to about eps·‖M⁻¹A‖/gap) and the normalization wᵀ M w = 1, no conjugation.
FullEigen<std::complex<double>> dense_eigen(const Factor<std::complex<double>>& factor) {
  using C = std::complex<double>;
  const index_t n = factor.size();
  std::vector<C> a = dense(factor.A), b = dense(factor.M);
  std::vector<C> alpha(n), beta(n), vr(n * n);
  const lapack_int ln = static_cast<lapack_int>(n);
  PSCR_LAPACK_CHECK(LAPACKE_zggev(LAPACK_COL_MAJOR, 'N', 'V', ln, a.data(), ln, b.data(), ln,
                                  alpha.data(), beta.data(), nullptr, 1, vr.data(), ln));
  double norm_m = 0;
  for (const C& x : factor.M.diag) norm_m = std::max(norm_m, std::abs(x));
  for (const C& x : factor.M.off) norm_m = std::max(norm_m, std::abs(x));
  std::vector<C> ev(n);
  for (index_t l = 0; l < n; ++l) {
    if (std::abs(beta[l]) <= 64 * eps<double>() * norm_m * static_cast<double>(n))
      throw SolverError(
          "fast diagonalization: expected a non-singular M, found an infinite eigenvalue");
    ev[l] = alpha[l] / beta[l];
  }
  std::vector<index_t> order(n);
  std::iota(order.begin(), order.end(), index_t{0});
  std::sort(order.begin(), order.end(), [&](index_t x, index_t y) {
    return ev[x].real() != ev[y].real() ? ev[x].real() < ev[y].real() : ev[x].imag() < ev[y].imag();
  });
  FullEigen<C> out;
  out.method = "zggev";
  std::vector<C> v(n * n), mv(n * n);  // column-major: the vectors and M times them
  for (index_t l = 0; l < n; ++l) {
    out.lambda.push_back(ev[order[l]]);
    C* w = v.data() + l * n;
    std::copy_n(vr.data() + order[l] * n, n, w);
    for (index_t j = 0; j < l; ++j) {
      const C c = dot_t(mv.data() + j * n, w, n);  // w_jᵀ M w, with w_jᵀ M w_j = 1
      const C* u = v.data() + j * n;
      for (index_t k = 0; k < n; ++k) w[k] -= c * u[k];
    }
    C* mw = mv.data() + l * n;
    factor.M.apply(w, mw);
    const C s = dot_t(w, mw, n);
    const double wnorm2 = std::real(dot_h(w, w, n));
    if (std::abs(s) <= 1e-10 * norm_m * wnorm2) {
      std::ostringstream msg;
      msg << "fast diagonalization: near-defective complex symmetric pencil: eigenvector " << l
          << " has |wᵀMw| / (‖M‖ ‖w‖²) = " << std::abs(s) / (norm_m * wnorm2);
      throw SolverError(msg.str());
    }
    const C scale = 1.0 / std::sqrt(s);
    for (index_t k = 0; k < n; ++k) {
      w[k] *= scale;
      mw[k] *= scale;
    }
  }
  out.W = to_row_major(v, n);
  return out;
}

/// Forward (transpose = true): out[o][l][q] = Σ_i W(i, l) in[o][i][q] (Wᵀ along the middle
/// index). Inverse: out[o][i][q] = Σ_l W(i, l) in[o][l][q]. Arrays C order (outer, n, inner).
template <class Scalar>
void transform_along(const FullEigen<Scalar>& eig, bool transpose, index_t outer, index_t inner,
                     const Scalar* in, Scalar* out) {
  const index_t n = eig.size();
  std::fill(out, out + outer * n * inner, Scalar(0));
  for (index_t o = 0; o < outer; ++o) {
    const Scalar* x = in + o * n * inner;
    Scalar* y = out + o * n * inner;
    for (index_t i = 0; i < n; ++i)
      for (index_t l = 0; l < n; ++l) {
        const Scalar w = eig.W[i * n + l];
        const Scalar* src = x + (transpose ? i : l) * inner;
        Scalar* dst = y + (transpose ? l : i) * inner;
        for (index_t q = 0; q < inner; ++q) dst[q] += w * src[q];
      }
  }
}

}  // namespace

template <class Scalar>
FullEigen<Scalar> full_eigen(const Factor<Scalar>& factor) {
  if constexpr (is_complex_v<Scalar>) {
    return dense_eigen(factor);
  } else {
    return is_diagonal(factor.M) ? mrrr_eigen(factor) : dense_eigen(factor);
  }
}

template <class Scalar>
bool uses_dense_eigensolver(const Factor<Scalar>& factor) {
  if constexpr (is_complex_v<Scalar>) {
    return true;
  } else {
    return !is_diagonal(factor.M);
  }
}

namespace {

/// Whether every A + σ M (σ ≥ 0) is diagonally dominant: real, both diagonally dominant with
/// non-negative diagonals, every shift ≥ 0.
template <class Scalar>
bool dominant_for_all_shifts(const FdSetup<Scalar>& setup) {
  if constexpr (is_complex_v<Scalar>) {
    return false;
  } else {
    auto dominant = [](const SymTridiag<double>& t) {
      const index_t n = t.size();
      for (index_t k = 0; k < n; ++k) {
        double side = 0;
        if (k > 0) side += std::abs(t.off[k - 1]);
        if (k + 1 < n) side += std::abs(t.off[k]);
        if (!(t.diag[k] >= side)) return false;
      }
      return true;
    };
    if (!dominant(setup.last.A) || !dominant(setup.last.M)) return false;
    return std::all_of(setup.shifts.begin(), setup.shifts.end(), [](double s) { return s >= 0; });
  }
}

/// Certificate::unstable_systems: the elimination of thomas.hpp without right-hand side.
template <class Scalar>
index_t unstable_systems(const FdSetup<Scalar>& setup) {
  if (dominant_for_all_shifts(setup)) return 0;
  const SymTridiag<Scalar>& A = setup.last.A;
  const SymTridiag<Scalar>& M = setup.last.M;
  const index_t n = A.size();
  const index_t systems = setup.systems();
  index_t bad = 0;
#pragma omp parallel for reduction(+ : bad) schedule(static)
  for (index_t q = 0; q < systems; ++q) {
    const Scalar s = setup.shifts[q];
    Scalar beta = A.diag[0] + s * M.diag[0];
    bool ok = std::isfinite(std::abs(beta)) && std::abs(beta) > 0;
    for (index_t k = 1; k < n && ok; ++k) {
      const Scalar lo = A.off[k - 1] + s * M.off[k - 1];
      const Scalar up = k + 1 < n ? A.off[k] + s * M.off[k] : Scalar(0);
      const Scalar diag = A.diag[k] + s * M.diag[k];
      const Scalar fill = lo * lo / beta;
      ok = std::abs(fill) <= kGrowthLimit * (std::abs(diag) + std::abs(lo) + std::abs(up));
      beta = diag - fill;
      ok = ok && std::isfinite(std::abs(beta)) && std::abs(beta) > 0;
    }
    if (!ok) ++bad;
  }
  return bad;
}

}  // namespace

template <class Scalar>
Certificate certify(const FdSetup<Scalar>& setup, const SeparableOperator<Scalar>& op) {
  Certificate out;
  for (std::size_t d = 0; d < setup.eig.size(); ++d) {
    const FullEigen<Scalar>& e = setup.eig[d];
    const Factor<Scalar>& f = op.factor(static_cast<int>(d));
    const index_t n = e.size();
    if (f.size() != n) throw InputError("fast diagonalization: certify() got another operator");
    // Row-major like W: AW[i·n + l] = (A W)(i, l), MW likewise (tridiagonal products, O(n²)).
    std::vector<Scalar> col(n), aw(n), mw(n), MW(n * n);
    double norm_a = 0, norm_m = 0;
    for (index_t i = 0; i < n; ++i) {
      double ra = std::abs(f.A.diag[i]), rm = std::abs(f.M.diag[i]);
      if (i > 0) ra += std::abs(f.A.off[i - 1]), rm += std::abs(f.M.off[i - 1]);
      if (i + 1 < n) ra += std::abs(f.A.off[i]), rm += std::abs(f.M.off[i]);
      norm_a = std::max(norm_a, ra);
      norm_m = std::max(norm_m, rm);
    }
    for (index_t l = 0; l < n; ++l) {
      double wmax = 0, rmax = 0;
      for (index_t i = 0; i < n; ++i) {
        col[i] = e.W[i * n + l];
        wmax = std::max(wmax, static_cast<double>(std::abs(col[i])));
      }
      f.A.apply(col.data(), aw.data());
      f.M.apply(col.data(), mw.data());
      for (index_t i = 0; i < n; ++i) {
        MW[i * n + l] = mw[i];
        rmax = std::max(rmax, static_cast<double>(std::abs(aw[i] - e.lambda[l] * mw[i])));
      }
      const double scale = (norm_a + std::abs(e.lambda[l]) * norm_m) * wmax;
      const double be = scale > 0 ? rmax / scale : rmax;
      out.backward_error = std::isnan(be) ? be : std::max(out.backward_error, be);
    }
    // G = Wᵀ (M W), rows l, columns m ≥ l (symmetric), accumulated over i.
    std::vector<Scalar> g(n * n, Scalar(0));
    for (index_t i = 0; i < n; ++i) {
      const Scalar* wi = e.W.data() + i * n;
      const Scalar* mi = MW.data() + i * n;
      for (index_t l = 0; l < n; ++l) {
        const Scalar w = wi[l];
        Scalar* gl = g.data() + l * n;
        for (index_t m = l; m < n; ++m) gl[m] += w * mi[m];
      }
    }
    for (index_t l = 0; l < n; ++l)
      for (index_t m = l; m < n; ++m) {
        const double dev = std::abs(g[l * n + m] - Scalar(l == m ? 1 : 0));
        out.orthogonality = std::isnan(dev) ? dev : std::max(out.orthogonality, dev);
      }
  }
  out.unstable_systems = unstable_systems(setup);
  out.passed = out.orthogonality <= kCertifyTolerance && out.backward_error <= kCertifyTolerance &&
               out.unstable_systems == 0;
  return out;
}

template <class Scalar>
index_t FdSetup<Scalar>::grid_size() const {
  index_t n = 1;
  for (index_t s : shape) n *= s;
  return n;
}

template <class Scalar>
FdSetup<Scalar> fd_setup(const SeparableOperator<Scalar>& op) {
  FdSetup<Scalar> setup;
  setup.shape = op.shape();
  const int dim = op.dimension();
  for (int d = 0; d + 1 < dim; ++d) setup.eig.push_back(full_eigen(op.factor(d)));
  setup.last = op.factor(dim - 1);
  const auto& lam = setup.eig[0].lambda;
  if (dim == 2) {
    for (const Scalar& l : lam) setup.shifts.push_back(l + op.c());
  } else {
    for (const Scalar& l : lam)
      for (const Scalar& m : setup.eig[1].lambda) setup.shifts.push_back(l + m + op.c());
  }
  return setup;
}

template <class Scalar>
void fd_solve(const FdSetup<Scalar>& setup, const Scalar* f, Scalar* u) {
  const index_t size = setup.grid_size();
  const index_t n_last = setup.shape.back();
  std::vector<Scalar> g(size), h(size);
  // G = (Wᵀ [⊗ Vᵀ] ⊗ I) F: along dimension 1, then (3D) along dimension 2.
  if (setup.dimension() == 2) {
    transform_along(setup.eig[0], true, 1, n_last, f, g.data());
  } else {
    const index_t n1 = setup.shape[0], n2 = setup.shape[1];
    transform_along(setup.eig[0], true, 1, n2 * n_last, f, h.data());
    transform_along(setup.eig[1], true, n1, n_last, h.data(), g.data());
  }
  // One shifted system along the last dimension per row of G (system index l or l·n2 + m).
  std::vector<Scalar> cp(n_last);
  const Factor<Scalar>& t = setup.last;
  for (index_t s = 0; s < setup.systems(); ++s)
    thomas_shifted<Scalar, index_t>(n_last, t.A.diag.data(), t.A.off.data(), t.M.diag.data(),
                                    t.M.off.data(), setup.shifts[s], g.data() + s * n_last,
                                    cp.data(), 1);
  // U = (W [⊗ V] ⊗ I) Y.
  if (setup.dimension() == 2) {
    transform_along(setup.eig[0], false, 1, n_last, g.data(), u);
  } else {
    const index_t n1 = setup.shape[0], n2 = setup.shape[1];
    transform_along(setup.eig[1], false, n1, n_last, g.data(), h.data());
    transform_along(setup.eig[0], false, 1, n2 * n_last, h.data(), u);
  }
}

#define PSCR_FD_INSTANTIATE(Scalar)                                                       \
  template FullEigen<Scalar> full_eigen(const Factor<Scalar>&);                           \
  template struct FdSetup<Scalar>;                                                        \
  template FdSetup<Scalar> fd_setup(const SeparableOperator<Scalar>&);                    \
  template bool uses_dense_eigensolver(const Factor<Scalar>&);                            \
  template Certificate certify(const FdSetup<Scalar>&, const SeparableOperator<Scalar>&); \
  template void fd_solve(const FdSetup<Scalar>&, const Scalar*, Scalar*);
PSCR_FOR_EACH_SCALAR(PSCR_FD_INSTANTIATE)
#undef PSCR_FD_INSTANTIATE

}  // namespace pscr::fd
