#pragma once
/// @file The two row policies of the level driver (levels.hpp), internal to the CPU backend:
///   TridiagRows: 2D, a row is a vector of n2 values, Krow = A2, Mrow = M2, the shifted systems
///                A2 + s M2 are tridiagonal (level 3);
///   GridRows:    3D, a row is an n2×n3 grid (C order), Krow = A2⊗M3 + M2⊗A3, Mrow = M2⊗M3,
///                the shifted systems are 2D problems solved by the 2D level driver with σ = s.

#include <algorithm>
#include <cstdint>
#include <memory>
#include <tuple>
#include <vector>

#include "common/error.hpp"
#include "pscr/operator.hpp"
#include "pscr/reference/kernels.hpp"
#include "pscr/reference/levels.hpp"
#include "pscr/reference/solver.hpp"
#include "tridiag/reference/solve.hpp"

namespace pscr::reference::detail {

/// y_k = α (M x)_k + β (A x)_k for symmetric tridiagonal A, M of size n (one row of length n).
/// The combined matrix α M + β A is formed row by row; the interior loop vectorizes.
template <class Scalar>
void tridiag_combination(index_t n, const SymTridiag<Scalar>& A, const SymTridiag<Scalar>& M,
                         Scalar alpha, Scalar beta, const Scalar* x, Scalar* y) {
  const Scalar* ad = A.diag.data();
  const Scalar* ao = A.off.data();
  const Scalar* md = M.diag.data();
  const Scalar* mo = M.off.data();
  if (n == 1) {
    y[0] = (alpha * md[0] + beta * ad[0]) * x[0];
    return;
  }
  y[0] = (alpha * md[0] + beta * ad[0]) * x[0] + (alpha * mo[0] + beta * ao[0]) * x[1];
  for (index_t k = 1; k + 1 < n; ++k)
    y[k] = (alpha * mo[k - 1] + beta * ao[k - 1]) * x[k - 1] +
           (alpha * md[k] + beta * ad[k]) * x[k] + (alpha * mo[k] + beta * ao[k]) * x[k + 1];
  y[n - 1] = (alpha * mo[n - 2] + beta * ao[n - 2]) * x[n - 2] +
             (alpha * md[n - 1] + beta * ad[n - 1]) * x[n - 1];
}

/// @brief 2D rows: tridiagonal shifted systems (A2 + s M2) y = x, solved kLanes at a time by
/// lane_thomas; lanes that fail its stability monitor are solved again with scaled partial
/// pivoting (tridiag::reference::solve_shifted_pivoting).
template <class Scalar>
class TridiagRows {
 public:
  static constexpr int kLanes = kKernelLanes;
  /// Largest fill ratio accepted from LU without pivoting (lane_thomas.hpp): the backward error
  /// of a monitored solve stays below about (1 + 2·kGrowthLimit) eps per row.
  static constexpr double kGrowthLimit = 100.0;

  struct Scratch {
    std::vector<Scalar> work;       ///< tridiag::reference pivoting workspace (one thread)
    std::vector<Scalar> tmp, tmp2;  ///< n each: a coupling row; one lane taken out
    std::vector<Scalar> cp;         ///< n·kLanes: lane_thomas factors
    /// Real shifts [lo, hi] for which A2 + s M2 is known to be diagonally dominant.
    real_t<Scalar> dominant_lo = 1, dominant_hi = 0;
    index_t pivoted = 0;  ///< systems solved with pivoting since the last take_pivoted()
  };

  TridiagRows(const Factor<Scalar>& factor2, Pivoting pivoting)
      : factor_(&factor2), n_(factor2.size()), pivoting_(pivoting) {
    if (n_ > 1) {
      lead_.A = factor2.A.submatrix(0, n_ - 2);
      lead_.M = factor2.M.submatrix(0, n_ - 2);
    }
  }

  index_t length() const { return n_; }
  index_t lanes() const { return kLanes; }
  static_assert(kLanes <= 32, "lane masks are 32 bits");
  Scratch make_scratch() const {
    Scratch s;
    s.work.assign(3 * std::max<index_t>(n_, 1), Scalar(0));
    s.tmp.assign(n_, Scalar(0));
    s.tmp2.assign(n_, Scalar(0));
    s.cp.assign(n_ * kLanes, Scalar(0));
    return s;
  }
  static index_t take_pivoted(Scratch& s) {
    const index_t p = s.pivoted;
    s.pivoted = 0;
    return p;
  }
  /// Flops of one couple(): two tridiagonal products and their combination.
  double couple_flops() const { return flop_scale<Scalar>() * 13.0 * n_; }

  void couple(Scalar alpha, Scalar beta, const Scalar* x, Scalar* y, Scratch&) const {
    tridiag_combination(n_, factor_->A, factor_->M, alpha, beta, x, y);
  }

  void subtract_couplings(Scalar a1, Scalar b1, const Scalar* x1, Scalar a2, Scalar b2,
                          const Scalar* x2, Scalar* y, Scratch& s) const {
    for (const auto& [alpha, beta, x] : {std::tuple{a1, b1, x1}, std::tuple{a2, b2, x2}}) {
      if (x == nullptr) continue;
      tridiag_combination(n_, factor_->A, factor_->M, alpha, beta, x, s.tmp.data());
      for (index_t k = 0; k < n_; ++k) y[k] -= s.tmp[k];
    }
  }

  /// (A2 + s_j M2) y_j = x_j for lanes j < `lanes` (kLanes interleaved: x[q·kLanes + j]; the
  /// padding lanes up to kLanes hold valid shifts). A lane flagged singular has s_j = 0 and A2
  /// singular: its particular solution solves the first n − 1 equations with y_{n−1} = 0 (the
  /// leading block of a singular irreducible tridiagonal matrix is non-singular).
  double solve(index_t lanes, const Scalar* shifts, const char* singular, Scalar* x, Scalar* y,
               Scratch& s) const {
    // Real flops per row: Thomas with the matrix formed on the fly, and with pivoting.
    constexpr double thomas = is_complex_v<Scalar> ? 58.0 : 12.0;
    constexpr double pivoting = is_complex_v<Scalar> ? 100.0 : 25.0;
    double flops = 0;
    std::uint32_t redo = 0;
    if (pivoting_ == Pivoting::always) {
      redo = (1u << lanes) - 1;
    } else {
      const bool monitor = pivoting_ == Pivoting::automatic && !dominant(lanes, shifts, s);
      const auto& A = factor_->A;
      const auto& M = factor_->M;
      redo = lane_kernels<Scalar>().thomas(n_, A.diag.data(), A.off.data(), M.diag.data(),
                                           M.off.data(), static_cast<int>(lanes), shifts, x, y,
                                           s.cp.data(), monitor, kGrowthLimit);
      flops += thomas * n_ * lanes;
      // Padding lanes solved a copy of lane 0's system: zero them for the lane sums.
      for (index_t q = 0; q < n_; ++q)
        for (index_t j = lanes; j < kLanes; ++j) y[q * kLanes + j] = Scalar(0);
    }
    const index_t work = static_cast<index_t>(s.work.size());
    const auto one = tridiag::BatchLayout::contiguous(n_);
    for (index_t j = 0; j < lanes; ++j) {
      if (!singular[j] && !(redo & (1u << j))) continue;
      // This lane alone, through the reference solvers: copy it out, solve, copy back.
      Scalar* xj = s.tmp.data();
      Scalar* yj = s.tmp2.data();
      for (index_t q = 0; q < n_; ++q) xj[q] = x[q * kLanes + j];
      if (singular[j]) {
        yj[n_ - 1] = Scalar(0);
        if (n_ > 1) {
          const auto lead = tridiag::BatchLayout::contiguous(n_ - 1);
          tridiag::reference::solve_shifted(lead_.A, lead_.M, shifts + j, 1, xj, lead, yj, lead,
                                            s.work.data(), work);
        }
        flops += thomas * n_;
      } else {
        tridiag::reference::solve_shifted_pivoting(factor_->A, factor_->M, shifts + j, 1, xj, one,
                                                   yj, one, s.work.data(), work);
        flops += pivoting * n_;
        ++s.pivoted;
      }
      for (index_t q = 0; q < n_; ++q) y[q * kLanes + j] = yj[q];
    }
    return flops;
  }

 private:
  /// Is A2 + s_j M2 diagonally dominant with a positive diagonal for every lane? Only decided
  /// for real shifts: each row's margin (a + s m) − |b + s mo| − |b' + s mo'| is concave in s,
  /// so dominance at the two ends of a range holds on the whole range; verified ranges are
  /// remembered in the scratch.
  bool dominant(index_t lanes, const Scalar* shifts, Scratch& s) const {
    real_t<Scalar> lo = 0, hi = 0;
    for (index_t j = 0; j < lanes; ++j) {
      if constexpr (is_complex_v<Scalar>) {
        if (shifts[j].imag() != 0 || !real_factor_) return false;
      }
      const real_t<Scalar> v = std::real(shifts[j]);
      lo = j == 0 ? v : std::min(lo, v);
      hi = j == 0 ? v : std::max(hi, v);
    }
    if (s.dominant_lo <= lo && hi <= s.dominant_hi) return true;
    const real_t<Scalar> new_lo = s.dominant_lo <= s.dominant_hi ? std::min(lo, s.dominant_lo) : lo;
    const real_t<Scalar> new_hi = s.dominant_lo <= s.dominant_hi ? std::max(hi, s.dominant_hi) : hi;
    if (dominant_at(new_lo) && dominant_at(new_hi)) {
      s.dominant_lo = new_lo;
      s.dominant_hi = new_hi;
      return true;
    }
    return dominant_at(lo) && dominant_at(hi);
  }

  bool dominant_at(real_t<Scalar> sh) const {
    const auto& A = factor_->A;
    const auto& M = factor_->M;
    for (index_t k = 0; k < n_; ++k) {
      real_t<Scalar> margin = std::real(A.diag[k]) + sh * std::real(M.diag[k]);
      if (k > 0) margin -= std::abs(std::real(A.off[k - 1]) + sh * std::real(M.off[k - 1]));
      if (k + 1 < n_) margin -= std::abs(std::real(A.off[k]) + sh * std::real(M.off[k]));
      if (!(margin >= 0)) return false;
    }
    return true;
  }

  static bool is_real(const SymTridiag<Scalar>& t) {
    for (const auto& v : t.diag)
      if (std::imag(v) != 0) return false;
    for (const auto& v : t.off)
      if (std::imag(v) != 0) return false;
    return true;
  }

  const Factor<Scalar>* factor_;
  index_t n_;
  Pivoting pivoting_;
  bool real_factor_ = is_real(factor_->A) && is_real(factor_->M);
  Factor<Scalar> lead_;  ///< leading (n−1)×(n−1) blocks of A2, M2, for singular lanes
};

/// @brief 3D rows: each shifted system A2⊗M3 + M2⊗A3 + s M2⊗M3 is a 2D PSCR solve with σ = s.
template <class Scalar>
class GridRows {
 public:
  using Inner = LevelSolver<Scalar, TridiagRows<Scalar>>;
  struct Scratch {
    typename Inner::Workspace inner;
    std::vector<Scalar> a, b, z, w;  ///< n2·n3 each: temporaries of the Kronecker products
  };

  /// `inner` solves in dimensions (2, 3); factors kept by reference.
  GridRows(const Factor<Scalar>& factor2, const Factor<Scalar>& factor3,
           std::shared_ptr<const Inner> inner)
      : f2_(&factor2), f3_(&factor3), inner_(std::move(inner)) {}

  index_t length() const { return f2_->size() * f3_->size(); }
  static constexpr int kLanes = 1;
  index_t lanes() const { return kLanes; }
  Scratch make_scratch() const {
    Scratch s;
    s.inner = inner_->make_workspace(1);
    const index_t n = length();
    s.a.assign(n, Scalar(0));
    s.b.assign(n, Scalar(0));
    s.z.assign(n, Scalar(0));
    s.w.assign(n, Scalar(0));
    return s;
  }
  static index_t take_pivoted(Scratch& s) { return Inner::take_pivoted(s.inner); }
  /// Flops of one couple(): five tridiagonal products along dimension 3 or 2 and combinations.
  double couple_flops() const { return flop_scale<Scalar>() * 32.0 * length(); }

  void couple(Scalar alpha, Scalar beta, const Scalar* x, Scalar* y, Scratch& s) const {
    mass_stiffness(alpha, beta, x, Scalar(0), Scalar(0), nullptr, y, false, s);
  }

  void subtract_couplings(Scalar a1, Scalar b1, const Scalar* x1, Scalar a2, Scalar b2,
                          const Scalar* x2, Scalar* y, Scratch& s) const {
    if (x1 == nullptr) {
      mass_stiffness(a2, b2, x2, Scalar(0), Scalar(0), nullptr, y, true, s);
    } else {
      mass_stiffness(a1, b1, x1, a2, b2, x2, y, true, s);
    }
  }

  double solve(index_t lanes, const Scalar* shifts, const char* singular, Scalar* x, Scalar* y,
               Scratch& s) const {
    double flops = 0;
    const index_t n = length();
    for (index_t j = 0; j < lanes; ++j)
      flops += inner_->solve(shifts[j], singular[j] != 0, x + j * n, y + j * n, s.inner, 1);
    return flops;
  }

 private:
  /// With a = α1 x1 + α2 x2 and b = β1 x1 + β2 x2 (x2 may be null):
  ///   Mrow a + Krow b = (M2⊗I)[(I⊗M3) a + (I⊗A3) b] + (A2⊗I)(I⊗M3) b,
  /// stored in y, or subtracted from y when `subtract`.
  void mass_stiffness(Scalar a1, Scalar b1, const Scalar* x1, Scalar a2, Scalar b2,
                      const Scalar* x2, Scalar* y, bool subtract, Scratch& s) const {
    const index_t n2 = f2_->size();
    const index_t n3 = f3_->size();
    const index_t n = n2 * n3;
    Scalar* a = s.a.data();
    Scalar* b = s.b.data();
    if (x2 == nullptr) {
      for (index_t q = 0; q < n; ++q) {
        a[q] = a1 * x1[q];
        b[q] = b1 * x1[q];
      }
    } else {
      for (index_t q = 0; q < n; ++q) {
        a[q] = a1 * x1[q] + a2 * x2[q];
        b[q] = b1 * x1[q] + b2 * x2[q];
      }
    }
    // Along dimension 3, row by row: z = M3 a + A3 b, w = M3 b.
    Scalar* z = s.z.data();
    Scalar* w = s.w.data();
    for (index_t p = 0; p < n2; ++p) {
      f3_->M.apply(a + p * n3, z + p * n3);
      f3_->A.apply(b + p * n3, z + p * n3, true);
      f3_->M.apply(b + p * n3, w + p * n3);
    }
    // Along dimension 2: y_p (−)= Σ_{p'} (M2)_{pp'} z_{p'} + (A2)_{pp'} w_{p'}.
    const Scalar sign = subtract ? Scalar(-1) : Scalar(1);
    for (index_t p = 0; p < n2; ++p) {
      Scalar* yp = y + p * n3;
      if (!subtract) std::fill_n(yp, n3, Scalar(0));
      for (index_t pp = std::max<index_t>(0, p - 1); pp <= std::min(n2 - 1, p + 1); ++pp) {
        const Scalar cm = sign * f2_->M(p, pp);
        const Scalar ca = sign * f2_->A(p, pp);
        const Scalar* zp = z + pp * n3;
        const Scalar* wp = w + pp * n3;
        for (index_t q = 0; q < n3; ++q) yp[q] += cm * zp[q] + ca * wp[q];
      }
    }
  }

  const Factor<Scalar>* f2_;
  const Factor<Scalar>* f3_;
  std::shared_ptr<const Inner> inner_;
};

}  // namespace pscr::reference::detail
