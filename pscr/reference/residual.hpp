#pragma once
/// @file r = f − A u for the separable operator in one streaming pass (CPU backend, internal),
/// for the refinement of the solver. With Mrow = M2 (2D) or M2⊗M3 (3D) and Krow = A2 or
/// A2⊗M3 + M2⊗A3, block row i of A u is Σ_{i'} (A1 + c M1)_{ii'} Mrow u_{i'} + (M1)_{ii'} Krow
/// u_{i'} (DESIGN.md §1); Mrow u_{i'} and Krow u_{i'} are computed once per row i' in a window of
/// three rows. Each entry is computed the same way for any thread count.

#include <omp.h>

#include <algorithm>
#include <vector>

#include "common/scalar.hpp"
#include "pscr/operator.hpp"

namespace pscr::reference::detail {

/// y = T x along the last index of a grid of `rows` rows of length n (T of size n).
template <class Scalar>
void apply_last(const SymTridiag<Scalar>& T, index_t rows, index_t n, const Scalar* x, Scalar* y) {
  const Scalar* d = T.diag.data();
  const Scalar* o = T.off.data();
  for (index_t p = 0; p < rows; ++p) {
    const Scalar* xp = x + p * n;
    Scalar* yp = y + p * n;
    if (n == 1) {
      yp[0] = d[0] * xp[0];
      continue;
    }
    yp[0] = d[0] * xp[0] + o[0] * xp[1];
    for (index_t k = 1; k + 1 < n; ++k)
      yp[k] = o[k - 1] * xp[k - 1] + d[k] * xp[k] + o[k] * xp[k + 1];
    yp[n - 1] = o[n - 2] * xp[n - 2] + d[n - 1] * xp[n - 1];
  }
}

/// @brief r = f − A u for a SeparableOperator (2D or 3D), the operator kept by reference.
template <class Scalar>
class ResidualOperator {
 public:
  ResidualOperator(const SeparableOperator<Scalar>& op, int threads)
      : op_(&op), threads_(std::max(1, threads)) {
    const auto shape = op.shape();
    n1_ = shape[0];
    row_ = op.grid_size() / n1_;
    // Per thread: Mrow u and Krow u for three rows, and two temporaries (3D).
    scratch_.assign(threads_, std::vector<Scalar>(8 * row_, Scalar(0)));
    a1_ = op.factor(0).A;
    for (index_t k = 0; k < n1_; ++k) a1_.diag[k] += op.c() * op.factor(0).M.diag[k];
    for (index_t k = 0; k + 1 < n1_; ++k) a1_.off[k] += op.c() * op.factor(0).M.off[k];
  }

  /// Real flops per unknown (a complex multiply-add counts as 8).
  double flops_per_unknown() const {
    const double real = op_->dimension() == 2 ? 22.0 : 37.0;
    return (is_complex_v<Scalar> ? 4.0 : 1.0) * real;
  }

  /// r = f − A u (C order grids of op.grid_size() values; r must not overlap u).
  void operator()(const Scalar* f, const Scalar* u, Scalar* r) {
    const int parts = static_cast<int>(std::min<index_t>(threads_, n1_));
#pragma omp parallel num_threads(parts) if (parts > 1 && op_->grid_size() > 65536)
    {
      const int t = omp_get_thread_num();
      const int nt = omp_get_num_threads();
      const index_t first = n1_ * t / nt;
      const index_t last = n1_ * (t + 1) / nt;
      rows(first, last, f, u, r, scratch_[t].data());
    }
  }

 private:
  /// Mrow x and Krow x for one row.
  void mass_stiffness(const Scalar* x, Scalar* mx, Scalar* kx, Scalar* tmp) const {
    if (op_->dimension() == 2) {
      apply_last(op_->factor(1).M, 1, row_, x, mx);
      apply_last(op_->factor(1).A, 1, row_, x, kx);
      return;
    }
    const auto& f2 = op_->factor(1);
    const auto& f3 = op_->factor(2);
    const index_t n2 = f2.size(), n3 = f3.size();
    Scalar* v = tmp;         // (I⊗M3) x
    Scalar* w = tmp + row_;  // (I⊗A3) x
    apply_last(f3.M, n2, n3, x, v);
    apply_last(f3.A, n2, n3, x, w);
    // mx = (M2⊗I) v, kx = (A2⊗I) v + (M2⊗I) w.
    for (index_t p = 0; p < n2; ++p) {
      Scalar* mp = mx + p * n3;
      Scalar* kp = kx + p * n3;
      const Scalar md = f2.M.diag[p], ad = f2.A.diag[p];
      const Scalar* vp = v + p * n3;
      const Scalar* wp = w + p * n3;
      for (index_t q = 0; q < n3; ++q) {
        mp[q] = md * vp[q];
        kp[q] = ad * vp[q] + md * wp[q];
      }
      for (int side = -1; side <= 1; side += 2) {
        const index_t pp = p + side;
        if (pp < 0 || pp >= n2) continue;
        const Scalar mo = f2.M.off[std::min(p, pp)], ao = f2.A.off[std::min(p, pp)];
        const Scalar* vq = v + pp * n3;
        const Scalar* wq = w + pp * n3;
        for (index_t q = 0; q < n3; ++q) {
          mp[q] += mo * vq[q];
          kp[q] += ao * vq[q] + mo * wq[q];
        }
      }
    }
  }

  void rows(index_t first, index_t last, const Scalar* f, const Scalar* u, Scalar* r,
            Scalar* scratch) const {
    if (first >= last) return;
    // Window: slot (i mod 3) holds Mrow u_i at scratch + 2·slot·row, Krow u_i next to it.
    auto mrow = [&](index_t i) { return scratch + 2 * (i % 3) * row_; };
    auto krow = [&](index_t i) { return scratch + (2 * (i % 3) + 1) * row_; };
    Scalar* tmp = scratch + 6 * row_;
    const auto& m1 = op_->factor(0).M;
    for (index_t i = std::max<index_t>(0, first - 1); i < std::min(n1_, first + 1); ++i)
      mass_stiffness(u + i * row_, mrow(i), krow(i), tmp);
    for (index_t i = first; i < last; ++i) {
      if (i + 1 < n1_) mass_stiffness(u + (i + 1) * row_, mrow(i + 1), krow(i + 1), tmp);
      Scalar* ri = r + i * row_;
      const Scalar* fi = f + i * row_;
      const Scalar ad = a1_.diag[i], md = m1.diag[i];
      const Scalar* mi = mrow(i);
      const Scalar* ki = krow(i);
      for (index_t q = 0; q < row_; ++q) ri[q] = fi[q] - (ad * mi[q] + md * ki[q]);
      for (int side = -1; side <= 1; side += 2) {
        const index_t ii = i + side;
        if (ii < 0 || ii >= n1_) continue;
        const Scalar ao = a1_.off[std::min(i, ii)], mo = m1.off[std::min(i, ii)];
        const Scalar* mj = mrow(ii);
        const Scalar* kj = krow(ii);
        for (index_t q = 0; q < row_; ++q) ri[q] -= ao * mj[q] + mo * kj[q];
      }
    }
  }

  const SeparableOperator<Scalar>* op_;
  int threads_;
  index_t n1_ = 0, row_ = 0;
  SymTridiag<Scalar> a1_;  ///< A1 + c M1
  std::vector<std::vector<Scalar>> scratch_;
};

}  // namespace pscr::reference::detail
