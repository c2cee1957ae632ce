#include "pscr/operator.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "common/error.hpp"

namespace pscr {

namespace {

/// y = T x along dimension `dim` of a C-order grid: for every (outer, inner) pair,
/// y[o, r, i] = off[r−1] x[o, r−1, i] + diag[r] x[o, r, i] + off[r] x[o, r+1, i],
/// where `inner` is the product of the sizes after `dim` (stride of that dimension).
template <class Scalar>
void apply_along(const SymTridiag<Scalar>& t, index_t outer, index_t inner, const Scalar* x,
                 Scalar* y) {
  const index_t n = t.size();
  const Scalar* diag = t.diag.data();
  const Scalar* off = t.off.data();
#pragma omp parallel for collapse(2) schedule(static) if (outer * n * inner > 32768)
  for (index_t o = 0; o < outer; ++o) {
    for (index_t r = 0; r < n; ++r) {
      const Scalar* xr = x + (o * n + r) * inner;
      Scalar* yr = y + (o * n + r) * inner;
      const Scalar d = diag[r];
      for (index_t i = 0; i < inner; ++i) yr[i] = d * xr[i];
      if (r > 0) {
        const Scalar lo = off[r - 1];
        const Scalar* xm = xr - inner;
        for (index_t i = 0; i < inner; ++i) yr[i] += lo * xm[i];
      }
      if (r + 1 < n) {
        const Scalar up = off[r];
        const Scalar* xp = xr + inner;
        for (index_t i = 0; i < inner; ++i) yr[i] += up * xp[i];
      }
    }
  }
}

}  // namespace

template <class Scalar>
Scalar SymTridiag<Scalar>::operator()(index_t r, index_t s) const {
  if (r == s) return diag[r];
  if (r == s + 1) return off[s];
  if (s == r + 1) return off[r];
  return Scalar{};
}

template <class Scalar>
SymTridiag<Scalar> SymTridiag<Scalar>::submatrix(index_t first, index_t last) const {
  SymTridiag<Scalar> sub;
  sub.diag.assign(diag.begin() + first, diag.begin() + last + 1);
  sub.off.assign(off.begin() + first, off.begin() + last);
  return sub;
}

template <class Scalar>
double SymTridiag<Scalar>::infinity_norm() const {
  double m = 0;
  for (index_t k = 0; k < size(); ++k) {
    double row = std::abs(diag[k]);
    if (k > 0) row += std::abs(off[k - 1]);
    if (k + 1 < size()) row += std::abs(off[k]);
    m = std::max(m, row);
  }
  return m;
}

template <class Scalar>
void SymTridiag<Scalar>::validate(const char* what) const {
  if (diag.empty()) PSCR_INPUT_ERROR(what << ": expected at least 1 diagonal entry, found 0");
  if (off.size() + 1 != diag.size())
    PSCR_INPUT_ERROR(what << ": expected " << diag.size() - 1
                          << " off-diagonal entries (one fewer than the " << diag.size()
                          << " diagonal entries), found " << off.size());
  for (std::size_t k = 0; k < diag.size(); ++k)
    if (!is_finite(diag[k])) PSCR_INPUT_ERROR(what << ": diagonal entry " << k << " is not finite");
  for (std::size_t k = 0; k < off.size(); ++k)
    if (!is_finite(off[k]))
      PSCR_INPUT_ERROR(what << ": off-diagonal entry " << k << " is not finite");
}

template <class Scalar>
SeparableOperator<Scalar>::SeparableOperator(std::vector<Factor<Scalar>> factors, Scalar c)
    : factors_(std::move(factors)), c_(c) {
  if (factors_.size() != 2 && factors_.size() != 3)
    PSCR_INPUT_ERROR("separable operator: expected 2 or 3 dimensions, found " << factors_.size());
  for (std::size_t d = 0; d < factors_.size(); ++d) {
    const std::string a = "A" + std::to_string(d + 1);
    const std::string m = "M" + std::to_string(d + 1);
    factors_[d].A.validate(a.c_str());
    factors_[d].M.validate(m.c_str());
    if (factors_[d].A.size() != factors_[d].M.size())
      PSCR_INPUT_ERROR(a << " has size " << factors_[d].A.size() << " but " << m << " has size "
                         << factors_[d].M.size() << ": the factors of a dimension must match");
  }
  if (!is_finite(c_)) PSCR_INPUT_ERROR("the shift c is not finite");
}

template <class Scalar>
double SeparableOperator<Scalar>::infinity_norm_bound() const {
  double mass = std::abs(c_);
  for (const auto& f : factors_) mass *= f.M.infinity_norm();
  double total = mass;
  for (int s = 0; s < dimension(); ++s) {
    double term = 1;
    for (int d = 0; d < dimension(); ++d)
      term *= d == s ? factors_[d].A.infinity_norm() : factors_[d].M.infinity_norm();
    total += term;
  }
  return total;
}

template <class Scalar>
double SeparableOperator<Scalar>::residual_rounding_floor(double norm_u, double norm_f) const {
  return kResidualFloor * static_cast<double>(eps<Scalar>()) * infinity_norm_bound() * norm_u /
         (norm_f > 0 ? norm_f : 1.0);
}

template <class Scalar>
bool null_vector(const SymTridiag<Scalar>& A, std::vector<Scalar>& z) {
  const index_t n = A.size();
  z.assign(n, Scalar(0));
  z[0] = Scalar(1);
  if (n == 1) return A.diag[0] == Scalar(0);
  for (index_t k = 0; k + 1 < n; ++k) {
    if (A.off[k] == Scalar(0)) return false;
    Scalar v = A.diag[k] * z[k];
    if (k > 0) v += A.off[k - 1] * z[k - 1];
    z[k + 1] = -v / A.off[k];
  }
  const Scalar last = A.off[n - 2] * z[n - 2] + A.diag[n - 1] * z[n - 1];
  const real_t<Scalar> scale =
      std::abs(A.off[n - 2] * z[n - 2]) + std::abs(A.diag[n - 1] * z[n - 1]);
  // The recurrence loses about n·eps; a non-singular A leaves a residual of order its smallest
  // eigenvalue, far above this.
  const real_t<Scalar> tol = 1e3 * static_cast<real_t<Scalar>>(n) * eps<Scalar>();
  if (!(std::abs(last) <= tol * scale)) return false;
  real_t<Scalar> norm = 0;
  for (const auto& v : z) norm = std::max(norm, std::abs(v));
  for (auto& v : z) v /= norm;
  return true;
}

template <class Scalar>
std::vector<index_t> SeparableOperator<Scalar>::shape() const {
  std::vector<index_t> s;
  for (const auto& f : factors_) s.push_back(f.size());
  return s;
}

template <class Scalar>
index_t SeparableOperator<Scalar>::grid_size() const {
  index_t n = 1;
  for (const auto& f : factors_) n *= f.size();
  return n;
}

template <class Scalar>
void apply_kronecker(const std::vector<const SymTridiag<Scalar>*>& factors, const Scalar* x,
                     Scalar* y) {
  std::vector<index_t> shape;
  index_t total = 1;
  for (const auto* t : factors) {
    shape.push_back(t->size());
    total *= t->size();
  }
  // Apply one dimension after another; the ping-pong buffer ends in y.
  std::vector<Scalar> tmp(total);
  const Scalar* src = x;
  index_t outer = 1;
  int pending = 0;
  for (const auto* t : factors) pending += (t != nullptr);
  if (pending == 0) {
    std::copy(x, x + total, y);
    return;
  }
  for (std::size_t d = 0; d < factors.size(); ++d) {
    const index_t n = shape[d];
    const index_t inner = total / (outer * n);
    if (factors[d] != nullptr) {
      // Write to y on the last application, to tmp otherwise, never in place.
      --pending;
      Scalar* dst = (pending % 2 == 0) ? y : tmp.data();
      apply_along(*factors[d], outer, inner, src, dst);
      src = dst;
    }
    outer *= n;
  }
}

template <class Scalar>
void SeparableOperator<Scalar>::apply(const Scalar* u, Scalar* y) const {
  // A = (A1 + c M1) ⊗ M2[⊗M3] + M1 ⊗ (A2 ⊗ M3 + M2 ⊗ A3) in 3D, (A1 + c M1)⊗M2 + M1⊗A2 in 2D
  // (DESIGN.md §1): one Kronecker product per term, summed.
  const index_t n = grid_size();
  SymTridiag<Scalar> shifted = factors_[0].A;
  for (std::size_t k = 0; k < shifted.diag.size(); ++k)
    shifted.diag[k] += c_ * factors_[0].M.diag[k];
  for (std::size_t k = 0; k < shifted.off.size(); ++k) shifted.off[k] += c_ * factors_[0].M.off[k];

  std::vector<std::vector<const SymTridiag<Scalar>*>> terms;
  const auto& f = factors_;
  if (dimension() == 2) {
    terms = {{&shifted, &f[1].M}, {&f[0].M, &f[1].A}};
  } else {
    terms = {
        {&shifted, &f[1].M, &f[2].M}, {&f[0].M, &f[1].A, &f[2].M}, {&f[0].M, &f[1].M, &f[2].A}};
  }
  apply_kronecker(terms[0], u, y);
  std::vector<Scalar> term(n);
  for (std::size_t t = 1; t < terms.size(); ++t) {
    apply_kronecker(terms[t], u, term.data());
#pragma omp parallel for schedule(static) if (n > 32768)
    for (index_t k = 0; k < n; ++k) y[k] += term[k];
  }
}

template <class Scalar>
real_t<Scalar> norm2(const Scalar* x, index_t n) {
  // Scaled sum of squares would be safer against overflow; entries here are O(1)..O(1e12), far
  // from overflow, and the plain sum keeps the OpenMP reduction simple.
  real_t<Scalar> s = 0;
#pragma omp parallel for reduction(+ : s) schedule(static) if (n > 32768)
  for (index_t k = 0; k < n; ++k) s += abs2(x[k]);
  return std::sqrt(s);
}

template <class Scalar>
real_t<Scalar> SeparableOperator<Scalar>::relative_residual(const Scalar* u,
                                                            const Scalar* f) const {
  const index_t n = grid_size();
  std::vector<Scalar> r(n);
  apply(u, r.data());
  for (index_t k = 0; k < n; ++k) r[k] -= f[k];
  const real_t<Scalar> nf = norm2(f, n);
  const real_t<Scalar> nr = norm2(r.data(), n);
  return nf > 0 ? nr / nf : nr;
}

template <class Scalar>
std::optional<KroneckerNullSpace<Scalar>> kronecker_null_space(
    const SeparableOperator<Scalar>& op) {
  if (op.c() != Scalar(0)) return std::nullopt;
  const int d = op.dimension();
  KroneckerNullSpace<Scalar> space;
  space.z.resize(d);
  space.mz.resize(d);
  for (int k = 0; k < d; ++k)
    if (!null_vector(op.factor(k).A, space.z[k])) return std::nullopt;
  for (int k = 0; k < d; ++k) {
    const index_t n = op.factor(k).size();
    space.mz[k].resize(n);
    op.factor(k).M.apply(space.z[k].data(), space.mz[k].data());
    space.z_m_z *= dot_t(space.z[k].data(), space.mz[k].data(), n);
  }
  return space;
}

template <class Scalar>
Scalar kron_dot(const std::vector<index_t>& shape, const std::vector<std::vector<Scalar>>& a,
                const Scalar* x) {
  index_t inner = 1;
  for (std::size_t k = 1; k < shape.size(); ++k) inner *= shape[k];
  Scalar total(0);
  for (index_t i = 0; i < shape[0]; ++i) {
    const Scalar* xi = x + i * inner;
    Scalar s(0);
    if (shape.size() == 2) {
      s = dot_t(a[1].data(), xi, shape[1]);
    } else {
      for (index_t j = 0; j < shape[1]; ++j)
        s += a[1][j] * dot_t(a[2].data(), xi + j * shape[2], shape[2]);
    }
    total += a[0][i] * s;
  }
  return total;
}

template <class Scalar>
void kron_axpy(const std::vector<index_t>& shape, Scalar mu,
               const std::vector<std::vector<Scalar>>& a, Scalar* x) {
  index_t inner = 1;
  for (std::size_t k = 1; k < shape.size(); ++k) inner *= shape[k];
  for (index_t i = 0; i < shape[0]; ++i) {
    Scalar* xi = x + i * inner;
    const Scalar ci = mu * a[0][i];
    if (shape.size() == 2) {
      for (index_t j = 0; j < shape[1]; ++j) xi[j] -= ci * a[1][j];
    } else {
      for (index_t j = 0; j < shape[1]; ++j) {
        const Scalar cj = ci * a[1][j];
        for (index_t l = 0; l < shape[2]; ++l) xi[j * shape[2] + l] -= cj * a[2][l];
      }
    }
  }
}

#define PSCR_INSTANTIATE_OPERATOR(S)                                                             \
  template struct SymTridiag<S>;                                                                 \
  template class SeparableOperator<S>;                                                           \
  template bool null_vector<S>(const SymTridiag<S>&, std::vector<S>&);                           \
  template std::optional<KroneckerNullSpace<S>> kronecker_null_space<S>(                         \
      const SeparableOperator<S>&);                                                              \
  template S kron_dot<S>(const std::vector<index_t>&, const std::vector<std::vector<S>>&,        \
                         const S*);                                                              \
  template void kron_axpy<S>(const std::vector<index_t>&, S, const std::vector<std::vector<S>>&, \
                             S*);                                                                \
  template real_t<S> norm2<S>(const S*, index_t);                                                \
  template void apply_kronecker<S>(const std::vector<const SymTridiag<S>*>&, const S*, S*);
PSCR_FOR_EACH_SCALAR(PSCR_INSTANTIATE_OPERATOR)

}  // namespace pscr
