#pragma once
/// @file Test batches of tridiagonal systems for the tridiag tests (CPU and GPU): seeded
/// generators for the shifted and general forms, layouts with padding, NaN poisoning, an
/// independent dense oracle (Eigen PartialPivLU on the assembled matrix) and the measures the
/// tests compare (forward error, relative residual, normwise backward error).

#include <complex>

// LAPACKE speaks std::complex (the override documented in lapack.h).
#define lapack_complex_float std::complex<float>
#define lapack_complex_double std::complex<double>
#include <lapacke.h>

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>
#include <random>
#include <vector>

#include "common/scalar.hpp"
#include "problems/generate.hpp"
#include "pscr/operator.hpp"
#include "tests/support/random.hpp"
#include "tridiag/layout.hpp"

namespace pscr::tridiag::testing {

/// The sizes of issue 4 that the CPU tests sweep.
inline std::vector<index_t> cpu_sizes() {
  return {1, 2, 3, 31, 32, 33, 63, 255, 1000};
}

/// What kind of systems a batch holds.
enum class Kind {
  dominant,    ///< strictly diagonally dominant: Thomas is stable
  indefinite,  ///< indefinite (complex: Helmholtz-like shifts inside the spectrum)
};

/// @brief A batch of systems in canonical storage: entry (k, r) at k·n + r. The general form's
/// a, b, c are always filled (for the shifted form, from A + s_k M) so that one oracle serves both.
template <class Scalar>
struct Batch {
  index_t n = 0;
  index_t batch = 0;
  std::vector<Scalar> a, b, c, d;  ///< a(k,0) and c(k,n−1) are zero
  SymTridiag<Scalar> A, M;         ///< shifted form only
  std::vector<Scalar> shifts;      ///< shifted form only
};

template <class Scalar>
Scalar uniform(std::mt19937_64& gen, double lo, double hi, double imag_half_width = 0.0) {
  std::uniform_real_distribution<double> u(lo, hi);
  if constexpr (is_complex_v<Scalar>) {
    std::uniform_real_distribution<double> v(-imag_half_width, imag_half_width);
    const double re = u(gen);
    return Scalar(re, v(gen));
  } else {
    return u(gen);
  }
}

template <class Scalar>
void fill_explicit_from_shifted(Batch<Scalar>& t) {
  const index_t n = t.n;
  t.a.assign(n * t.batch, Scalar(0));
  t.b.assign(n * t.batch, Scalar(0));
  t.c.assign(n * t.batch, Scalar(0));
  for (index_t k = 0; k < t.batch; ++k) {
    const Scalar s = t.shifts[k];
    for (index_t r = 0; r < n; ++r) {
      t.b[k * n + r] = t.A.diag[r] + s * t.M.diag[r];
      if (r > 0) t.a[k * n + r] = t.A.off[r - 1] + s * t.M.off[r - 1];
      if (r + 1 < n) t.c[k * n + r] = t.A.off[r] + s * t.M.off[r];
    }
  }
}

/// @brief Two systems (shifts 0 and 1e-14) of A = tridiag(1, 1e-13, 1), M = I, n = 64: well
/// conditioned but indefinite with a tiny diagonal, so Thomas's pivots alternate δ and ~ −1/δ and
/// its error grows like eps/δ, while scaled partial pivoting meets a 1e-10 relative residual.
template <class Scalar>
Batch<Scalar> tiny_diagonal_batch() {
  const index_t n = 64, batch = 2;
  Batch<Scalar> t;
  t.n = n;
  t.batch = batch;
  t.A.diag.assign(n, Scalar(1e-13));
  t.A.off.assign(n - 1, Scalar(1));
  t.M.diag.assign(n, Scalar(1));
  t.M.off.assign(n - 1, Scalar(0));
  t.shifts = {Scalar(0), Scalar(1e-14)};
  fill_explicit_from_shifted(t);
  t.d = pscr::testing::random_vector<Scalar>(n * batch, 77);
  return t;
}

/// @brief Shifted batch. dominant: A, M diagonally dominant with positive diagonals and shifts
/// with Re s ∈ [0, 2] (Im s ∈ [−1, 1] when complex), so every A + s M is strictly dominant.
/// indefinite: the FE Laplacian A = tridiag(−1, 2, −1)/h and lumped mass M = h·I on a uniform
/// mesh (h = 1/(n+1)), shifts s = −λ with λ between eigenvalues of M⁻¹A (plus, when complex, an
/// imaginary part of 1% of the spectrum's width): A + s M is indefinite.
template <class Scalar>
Batch<Scalar> make_shifted(index_t n, index_t batch, Kind kind, std::uint64_t seed) {
  std::mt19937_64 gen(seed);
  Batch<Scalar> t;
  t.n = n;
  t.batch = batch;
  t.A.diag.resize(n);
  t.A.off.resize(n - 1);
  t.M.diag.resize(n);
  t.M.off.resize(n - 1);
  t.shifts.resize(batch);
  if (kind == Kind::dominant) {
    for (index_t r = 0; r < n; ++r) {
      t.A.diag[r] = uniform<Scalar>(gen, 3.5, 4.5, 0.5);
      t.M.diag[r] = uniform<Scalar>(gen, 1.75, 2.25, 0.25);
    }
    for (index_t r = 0; r + 1 < n; ++r) {
      t.A.off[r] = uniform<Scalar>(gen, -0.5, 0.5, 0.5);
      t.M.off[r] = uniform<Scalar>(gen, -0.25, 0.25, 0.25);
    }
    for (auto& s : t.shifts) s = uniform<Scalar>(gen, 0.0, 2.0, 1.0);
  } else {
    const double h = 1.0 / static_cast<double>(n + 1);
    for (index_t r = 0; r < n; ++r) {
      t.A.diag[r] = 2.0 / h;
      t.M.diag[r] = h;
    }
    for (index_t r = 0; r + 1 < n; ++r) {
      t.A.off[r] = -1.0 / h;
      t.M.off[r] = 0.0;
    }
    // Eigenvalues of M⁻¹A: μ_j = (4/h²) sin²(jπ / (2(n+1))), j = 1..n.
    const double pi = std::acos(-1.0);
    auto mu = [&](index_t j) {
      const double s = std::sin(static_cast<double>(j) * pi / (2.0 * static_cast<double>(n + 1)));
      return 4.0 / (h * h) * s * s;
    };
    std::uniform_int_distribution<index_t> pick(1, std::max<index_t>(1, n - 1));
    for (auto& s : t.shifts) {
      const index_t j = pick(gen);
      const double lambda = n > 1 ? 0.5 * (mu(j) + mu(j + 1)) : 2.0 * mu(1);
      if constexpr (is_complex_v<Scalar>) {
        s = Scalar(-lambda, 0.01 * mu(n));
      } else {
        s = -lambda;
      }
    }
  }
  fill_explicit_from_shifted(t);
  t.d = pscr::testing::random_vector<Scalar>(n * batch, seed + 1);
  return t;
}

/// @brief One shifted system (batch 1) of n rows whose largest ratio (|a| + |c|) / |b| over its
/// rows is `ratio`: the dominant batches' random A, M and shift, with A's and M's off-diagonals
/// scaled to that ratio, for checks of a dominance bound θ near `ratio`.
template <class Scalar>
Batch<Scalar> make_shifted_at_ratio(index_t n, double ratio, std::uint64_t seed) {
  Batch<Scalar> t = make_shifted<Scalar>(n, 1, Kind::dominant, seed);
  const Scalar s = t.shifts[0];
  double largest = 0;
  for (index_t r = 0; r < n; ++r) {
    const double a = r > 0 ? std::abs(t.A.off[r - 1] + s * t.M.off[r - 1]) : 0.0;
    const double c = r + 1 < n ? std::abs(t.A.off[r] + s * t.M.off[r]) : 0.0;
    largest = std::max(largest, (a + c) / std::abs(t.A.diag[r] + s * t.M.diag[r]));
  }
  for (auto* off : {&t.A.off, &t.M.off})
    for (Scalar& e : *off) e *= ratio / largest;
  fill_explicit_from_shifted(t);
  return t;
}

/// @brief t with every entry of its systems (A and M, a, b, c) and every right-hand side scaled by
/// `factor`: the same solutions, the same condition numbers.
template <class Scalar>
Batch<Scalar> scaled_by(Batch<Scalar> t, double factor) {
  for (auto* v : {&t.A.diag, &t.A.off, &t.M.diag, &t.M.off, &t.a, &t.b, &t.c, &t.d})
    for (Scalar& e : *v) e *= factor;
  return t;
}

/// @brief problems::HelmholtzPencil as a test batch: one system per shift.
class HelmholtzPencil : public problems::HelmholtzPencil {
 public:
  using S = std::complex<double>;
  using problems::HelmholtzPencil::HelmholtzPencil;
  /// One system per shift, the same right-hand side (random, seed 3) in each.
  Batch<S> batch(const std::vector<S>& shifts) const {
    const index_t n = factor.size(), systems = static_cast<index_t>(shifts.size());
    Batch<S> t{n, systems, {}, {}, {}, {}, factor.A, factor.M, shifts};
    fill_explicit_from_shifted(t);
    const std::vector<S> d = pscr::testing::random_vector<S>(n, 3);
    t.d.reserve(n * systems);
    for (index_t k = 0; k < systems; ++k) t.d.insert(t.d.end(), d.begin(), d.end());
    return t;
  }
};

/// @brief General batch with independent random a, b, c per system. dominant: b with
/// Re b ∈ [3.5, 4.5], |a|, |c| ≤ √2. indefinite: all entries uniform in (−1, 1) (both parts when
/// complex): random signs on the diagonal, no dominance.
template <class Scalar>
Batch<Scalar> make_general(index_t n, index_t batch, Kind kind, std::uint64_t seed) {
  Batch<Scalar> t;
  t.n = n;
  t.batch = batch;
  t.a = pscr::testing::random_vector<Scalar>(n * batch, seed);
  t.c = pscr::testing::random_vector<Scalar>(n * batch, seed + 1);
  t.b = pscr::testing::random_vector<Scalar>(n * batch, seed + 2);
  if (kind == Kind::dominant)
    for (auto& v : t.b) v = Scalar(4.0) + 0.5 * v;
  for (index_t k = 0; k < batch; ++k) {
    t.a[k * n] = Scalar(0);
    t.c[k * n + n - 1] = Scalar(0);
  }
  t.d = pscr::testing::random_vector<Scalar>(n * batch, seed + 3);
  return t;
}

/// @brief Layout with padding: contiguous (system_stride = n + pad) or interleaved
/// (row_stride = batch + pad).
inline BatchLayout padded_layout(bool interleaved, index_t n, index_t batch, index_t pad) {
  return interleaved ? BatchLayout{1, batch + pad} : BatchLayout{n + pad, 1};
}

/// Elements an array with this layout spans.
inline index_t extent(const BatchLayout& l, index_t n, index_t batch) {
  return l.offset(batch - 1, n - 1) + 1 + std::max<index_t>(l.system_stride, l.row_stride);
}

template <class Scalar>
Scalar nan_scalar() {
  const real_t<Scalar> q = std::numeric_limits<real_t<Scalar>>::quiet_NaN();
  if constexpr (is_complex_v<Scalar>) {
    return Scalar(q, q);
  } else {
    return q;
  }
}

/// @brief Canonical array (k·n + r) scattered into `layout`; every other element is NaN.
template <class Scalar>
std::vector<Scalar> scatter(const std::vector<Scalar>& canon, index_t n, index_t batch,
                            const BatchLayout& l) {
  std::vector<Scalar> out(extent(l, n, batch), nan_scalar<Scalar>());
  for (index_t k = 0; k < batch; ++k)
    for (index_t r = 0; r < n; ++r) out[l.offset(k, r)] = canon[k * n + r];
  return out;
}

/// @brief The array gathered back to canonical order. Sets `padding_ok` to false when an element
/// outside the layout lost its NaN poison (a write out of place).
template <class Scalar>
std::vector<Scalar> gather(const std::vector<Scalar>& arr, index_t n, index_t batch,
                           const BatchLayout& l, bool& padding_ok) {
  std::vector<Scalar> out(n * batch);
  std::vector<char> used(arr.size(), 0);
  for (index_t k = 0; k < batch; ++k)
    for (index_t r = 0; r < n; ++r) {
      out[k * n + r] = arr[l.offset(k, r)];
      used[l.offset(k, r)] = 1;
    }
  padding_ok = true;
  for (std::size_t i = 0; i < arr.size(); ++i)
    if (!used[i] && !std::isnan(std::abs(arr[i]))) padding_ok = false;
  return out;
}

/// @brief y = T_k x for system k of the batch (canonical x, y of n entries).
template <class Scalar>
void apply_system(const Batch<Scalar>& t, index_t k, const Scalar* x, Scalar* y) {
  const index_t n = t.n;
  for (index_t r = 0; r < n; ++r) {
    Scalar v = t.b[k * n + r] * x[r];
    if (r > 0) v += t.a[k * n + r] * x[r - 1];
    if (r + 1 < n) v += t.c[k * n + r] * x[r + 1];
    y[r] = v;
  }
}

/// @brief Dense oracle: x_k = T_k⁻¹ d_k by Eigen's PartialPivLU on the assembled n×n matrix.
template <class Scalar>
std::vector<Scalar> dense_solve(const Batch<Scalar>& t) {
  using Mat = Eigen::Matrix<Scalar, Eigen::Dynamic, Eigen::Dynamic>;
  using Vec = Eigen::Matrix<Scalar, Eigen::Dynamic, 1>;
  const index_t n = t.n;
  std::vector<Scalar> x(n * t.batch);
  for (index_t k = 0; k < t.batch; ++k) {
    Mat m = Mat::Zero(n, n);
    for (index_t r = 0; r < n; ++r) {
      m(r, r) = t.b[k * n + r];
      if (r > 0) m(r, r - 1) = t.a[k * n + r];
      if (r + 1 < n) m(r, r + 1) = t.c[k * n + r];
    }
    const Vec rhs = Eigen::Map<const Vec>(t.d.data() + k * n, n);
    const Vec sol = m.partialPivLu().solve(rhs);
    std::copy(sol.data(), sol.data() + n, x.begin() + k * n);
  }
  return x;
}

/// @brief 1-norm condition number estimate of every system (LAPACK ?gttrf + ?gtcon).
template <class Scalar>
std::vector<double> condition_numbers(const Batch<Scalar>& t) {
  const index_t n = t.n;
  std::vector<double> cond(t.batch);
  for (index_t k = 0; k < t.batch; ++k) {
    std::vector<Scalar> dl(t.a.begin() + k * n + 1, t.a.begin() + (k + 1) * n);
    std::vector<Scalar> dd(t.b.begin() + k * n, t.b.begin() + (k + 1) * n);
    std::vector<Scalar> du(t.c.begin() + k * n, t.c.begin() + (k + 1) * n - 1);
    std::vector<Scalar> du2(std::max<index_t>(n, 2));
    std::vector<lapack_int> ipiv(n);
    double anorm = 0;
    for (index_t r = 0; r < n; ++r) {
      double col = std::abs(t.b[k * n + r]);
      if (r + 1 < n) col += std::abs(t.a[k * n + r + 1]);
      if (r > 0) col += std::abs(t.c[k * n + r - 1]);
      anorm = std::max(anorm, col);
    }
    double rcond = 0;
    lapack_int info;
    if constexpr (is_complex_v<Scalar>) {
      info = LAPACKE_zgttrf(n, dl.data(), dd.data(), du.data(), du2.data(), ipiv.data());
      if (info == 0)
        info = LAPACKE_zgtcon('1', n, dl.data(), dd.data(), du.data(), du2.data(), ipiv.data(),
                              anorm, &rcond);
    } else {
      info = LAPACKE_dgttrf(n, dl.data(), dd.data(), du.data(), du2.data(), ipiv.data());
      if (info == 0)
        info = LAPACKE_dgtcon('1', n, dl.data(), dd.data(), du.data(), du2.data(), ipiv.data(),
                              anorm, &rcond);
    }
    cond[k] = (info == 0 && rcond > 0) ? 1.0 / rcond : std::numeric_limits<double>::infinity();
  }
  return cond;
}

/// @brief ‖x − x_ref‖₂ / ‖x_ref‖₂ of system k (canonical arrays).
template <class Scalar>
double forward_error(const std::vector<Scalar>& x, const std::vector<Scalar>& ref, index_t n,
                     index_t k) {
  double num = 0, den = 0;
  for (index_t r = 0; r < n; ++r) {
    num += std::norm(std::complex<double>(x[k * n + r] - ref[k * n + r]));
    den += std::norm(std::complex<double>(ref[k * n + r]));
  }
  return std::sqrt(num) / std::sqrt(den);
}

/// @brief Relative residual ‖T_k x_k − d_k‖₂ / ‖d_k‖₂ (canonical x).
template <class Scalar>
double relative_residual(const Batch<Scalar>& t, const std::vector<Scalar>& x, index_t k) {
  const index_t n = t.n;
  std::vector<Scalar> y(n);
  apply_system(t, k, x.data() + k * n, y.data());
  double num = 0, den = 0;
  for (index_t r = 0; r < n; ++r) {
    num += std::norm(std::complex<double>(y[r] - t.d[k * n + r]));
    den += std::norm(std::complex<double>(t.d[k * n + r]));
  }
  return std::sqrt(num) / std::sqrt(den);
}

}  // namespace pscr::tridiag::testing
