// Complex pencils of the boundary form through their real part (declaration and contract in
// boundary_secular.hpp).
//
// With w = V a and u = Pᵀ w = Z a, (A − λM) w = 0 reads (Λ0 − λ) a = −Zᵀ D(λ) u, so
// u = −G(λ) D(λ) u: λ is an eigenvalue iff det(I + G D) = 0 (= det(A − λM) / det(A0 − λM0) up
// to a constant, so the m roots are all the eigenvalues). Splitting pole k off G,
// G = G_k + z_k z_kᵀ / (λ0_k − λ), the matrix determinant lemma gives
// (λ0_k − λ) det(I + G D) = (λ0_k − λ) det B + z_kᵀ D adj(B) z_k, B = I + G_k D, analytic near
// λ0_k: the function Newton's method works on. Its null vector u = adj(B) z_k gives
// a_k = z_kᵀ D u / τ = det B without dividing by the small τ = λ − λ0_k.
#include "eigen_init/boundary_secular.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <numeric>

#include "common/error.hpp"
#include "eigen_init/eigen_init.hpp"
#include "eigen_init/simd_clones.hpp"

namespace pscr::eigen_detail {

namespace {

using C = std::complex<double>;

/// Each vector is made bilinear-orthogonal to the vectors of this many roots before it in
/// the order of the output where their product exceeds kOrthoTol. With 4, a uniform 129-row
/// Helmholtz pencil (both ends absorbing, ω h = 2π/10) kept a product of 1.1e-12 between roots
/// five apart in that order (5716 − 2074i and 7491 − 827i) on an AVX2 host (the x86-64-v3
/// clones: FMA and 4-wide sums), above the 1e-12; with 8, 3.5e-13 at most over the
/// tests. Cost (callgrind, eigen_init_bench to n1 = 2047, one thread): 7.6% more instructions
/// in all, with the one-round classical Gram–Schmidt below (modified Gram–Schmidt over 8: 10.5%).
constexpr index_t kWindow = 8;
constexpr double kOrthoTol = 1e-14;
/// Largest bound on the backward error of an eigenpair accepted (the issue asks 1e-12).
constexpr double kAcceptedBackward = 1e-13;
/// Bound on the backward error above which a secular vector gets a step of inverse iteration.
constexpr double kRefineBackward = 1e-15;
/// Two roots closer than this times max|λ| are taken for one root found twice.
constexpr double kSameRoot = 1e-13;
/// Newton iterations (Aberth sweeps) per root before giving up.
constexpr int kMaxIterations = 60;
/// Newton iterations from a pole before the root is left to Aberth's method: where the
/// corrections move the roots by about a pole spacing (uniform meshes), Newton from a pole
/// wanders or finds a neighbour's root, and Aberth's method does better.
constexpr int kFirstNewton = 10;
/// Newton iterations from the pole itself first: enough where the root stays near its pole.
constexpr int kPoleNewton = 3;

/// A value and its derivative with respect to λ.
struct Dual {
  C v, d;
};
Dual operator+(const Dual& x, const Dual& y) {
  return {x.v + y.v, x.d + y.d};
}
Dual operator-(const Dual& x, const Dual& y) {
  return {x.v - y.v, x.d - y.d};
}
Dual operator*(const Dual& x, const Dual& y) {
  return {x.v * y.v, x.v * y.d + x.d * y.v};
}

/// The secular problem: poles (ascending, the non-deflated ones) and the rows of Z at the
/// corrected ends (z0 always an active end; z1 the other end when both are active).
struct Secular {
  index_t K = 0;
  bool two = false;
  std::vector<double> pole, z0, z1, p00, p01, p11;
  C da0, dm0, da1, dm1;  ///< ΔA and ΔM at the ends of z0 and z1
};

/// G_o(λ) and its derivative at λ = pole[o] + τ: Σ_{j≠o} p_j t_j and Σ p_j t_j², with
/// t_j = 1 / ((pole_j − pole_o) − τ). s[0..5]: g00, g01, g11 (re, im); s[6..11]: derivatives;
/// s[12..13]: Σ_{j≠o} t_j (the poles' share of the log-derivative, for Aberth's method).
template <bool Two>
PSCR_SIMD_CLONES void accumulate(const Secular& sec, index_t lo, index_t hi, double po, double tr,
                                 double ti, double* s) {
  const double *pole = sec.pole.data(), *p00 = sec.p00.data(), *p01 = sec.p01.data(),
               *p11 = sec.p11.data();
  double g00r = 0, g00i = 0, g01r = 0, g01i = 0, g11r = 0, g11i = 0;
  double h00r = 0, h00i = 0, h01r = 0, h01i = 0, h11r = 0, h11i = 0, sr = 0, si = 0;
#pragma omp simd reduction(+ : g00r, g00i, g01r, g01i, g11r, g11i, h00r, h00i, h01r, h01i, h11r, \
                               h11i, sr, si)
  for (index_t j = lo; j < hi; ++j) {
    // 1 / (dr − i·ti) = (dr + i·ti) / (dr² + ti²)
    const double dr = (pole[j] - po) - tr;
    const double inv = 1 / (dr * dr + ti * ti);
    const double tre = dr * inv, tim = ti * inv;
    const double sre = tre * tre - tim * tim, sim = 2 * tre * tim;
    sr += tre;
    si += tim;
    g00r += p00[j] * tre;
    g00i += p00[j] * tim;
    h00r += p00[j] * sre;
    h00i += p00[j] * sim;
    if constexpr (Two) {
      g01r += p01[j] * tre;
      g01i += p01[j] * tim;
      h01r += p01[j] * sre;
      h01i += p01[j] * sim;
      g11r += p11[j] * tre;
      g11i += p11[j] * tim;
      h11r += p11[j] * sre;
      h11i += p11[j] * sim;
    }
  }
  const double add[14] = {g00r, g00i, g01r, g01i, g11r, g11i, h00r,
                          h00i, h01r, h01i, h11r, h11i, sr,   si};
  for (int k = 0; k < 14; ++k) s[k] += add[k];
}

/// φ_o(λ) = −τ det B + z_oᵀ D adj(B) z_o (with its derivative), B, and u = adj(B) z_o at
/// λ = pole[o] + τ.
struct Evaluation {
  Dual phi;
  C det, u0, u1, b00, b01, b10, b11;
  C pole_sum;  ///< Σ_{j≠o} 1 / (λ0_j − λ)
};

Evaluation evaluate(const Secular& sec, index_t o, C tau) {
  double s[14] = {};
  const double po = sec.pole[o];
  if (sec.two) {
    accumulate<true>(sec, 0, o, po, tau.real(), tau.imag(), s);
    accumulate<true>(sec, o + 1, sec.K, po, tau.real(), tau.imag(), s);
  } else {
    accumulate<false>(sec, 0, o, po, tau.real(), tau.imag(), s);
    accumulate<false>(sec, o + 1, sec.K, po, tau.real(), tau.imag(), s);
  }
  const Dual g00{C(s[0], s[1]), C(s[6], s[7])}, g01{C(s[2], s[3]), C(s[8], s[9])},
      g11{C(s[4], s[5]), C(s[10], s[11])};
  const C lambda = po + tau;
  const Dual d0{sec.da0 - lambda * sec.dm0, -sec.dm0}, d1{sec.da1 - lambda * sec.dm1, -sec.dm1};
  const Dual one{C(1), C(0)};
  const Dual b00 = one + g00 * d0, b01 = g01 * d1, b10 = g01 * d0, b11 = one + g11 * d1;
  const Dual det = b00 * b11 - b01 * b10;
  const double z0 = sec.z0[o], z1 = sec.two ? sec.z1[o] : 0.0;
  const Dual u0 = b11 * Dual{C(z0), C(0)} - b01 * Dual{C(z1), C(0)};
  const Dual u1 = b00 * Dual{C(z1), C(0)} - b10 * Dual{C(z0), C(0)};
  const Dual q = d0 * u0 * Dual{C(z0), C(0)} + d1 * u1 * Dual{C(z1), C(0)};
  Evaluation e;
  e.phi = Dual{-tau, C(-1)} * det + q;
  e.det = det.v;
  e.u0 = u0.v;
  e.u1 = u1.v;
  e.b00 = b00.v;
  e.b01 = b01.v;
  e.b10 = b10.v;
  e.b11 = b11.v;
  e.pole_sum = C(s[12], s[13]);
  return e;
}

/// The distance from pole o to its neighbours (the scale of τ's absolute accuracy).
double pole_gap(const Secular& sec, index_t o) {
  double gap = std::abs(sec.pole[o]) + 1;
  if (o > 0) gap = std::min(gap, sec.pole[o] - sec.pole[o - 1]);
  if (o + 1 < sec.K) gap = std::min(gap, sec.pole[o + 1] - sec.pole[o]);
  return gap;
}

/// Whether an iteration for τ (pole o) has converged: a step at rounding level, or a small step
/// no smaller than half the previous one (the iteration stagnating at rounding level).
bool converged_step(const Secular& sec, index_t o, const C& tau, double step, double previous) {
  const double scale = std::max(std::abs(tau), 1e-3 * pole_gap(sec, o));
  return step <= 4 * eps<double>() * scale || (step <= 1e-8 * scale && step >= previous / 2);
}

/// Newton's method on φ_o from τ, at most `iterations` steps; false without convergence.
bool newton(const Secular& sec, index_t o, C& tau, int iterations) {
  double previous = std::numeric_limits<double>::infinity();
  for (int it = 0; it < iterations; ++it) {
    const Evaluation ev = evaluate(sec, o, tau);
    if (ev.phi.v == C(0)) return true;
    const C step = ev.phi.v / ev.phi.d;
    if (!is_finite(step)) return false;
    tau -= step;
    if (converged_step(sec, o, tau, std::abs(step), previous)) return true;
    previous = std::abs(step);
  }
  return false;
}

/// With one corrected end, det(I + G D) = 0 reads 1/d(λ) + Σ_j p_j / (λ0_j − λ) = 0. The root
/// that belongs to the interval (λ0_k, λ0_{k+1}) moves from a pole (small |d|) to the zero of
/// the sum inside the interval (large |d|), up to a pole spacing: its model keeps the two poles,
/// the rest of the sum as the constant c at the midpoint x, and 1/d(x), a quadratic whose root
/// nearer x is the guess.
C interval_guess(const Secular& sec, index_t k) {
  const double a = sec.pole[k], b = sec.pole[k + 1], x = (a + b) / 2;
  double c = 0;
  for (index_t j = 0; j < k; ++j) c += sec.p00[j] / (sec.pole[j] - x);
  for (index_t j = k + 2; j < sec.K; ++j) c += sec.p00[j] / (sec.pole[j] - x);
  const C w = c + C(1) / (sec.da0 - x * sec.dm0);
  const double pa = sec.p00[k], pb = sec.p00[k + 1];
  // w λ² − (w (a + b) + pa + pb) λ + (w a b + pa b + pb a) = 0, in μ = λ − x.
  // With a − x = −h, b − x = h: w μ² − (pa + pb) μ + (pa − pb) h − w h² = 0.
  const double h = (b - a) / 2;
  const C qa = w, qb = -(pa + pb), qc = (pa - pb) * h - w * h * h;
  if (std::abs(qa) * h <= eps<double>() * (pa + pb)) return x - qc / qb;
  const C disc = std::sqrt(qb * qb - C(4) * qa * qc);
  // The root of smaller modulus, without cancellation.
  const C big = -qb + (std::real(std::conj(-qb) * disc) >= 0 ? disc : -disc);
  return x + C(2) * qc / big;
}

/// The pole nearest to λ = pole[o] + τ.
index_t nearest_pole(const Secular& sec, index_t o, C tau) {
  const double x = sec.pole[o] + tau.real();
  const index_t hi = static_cast<index_t>(std::lower_bound(sec.pole.begin(), sec.pole.end(), x) -
                                          sec.pole.begin());
  index_t best = o;
  double best_d = std::abs(tau);
  for (index_t j : {hi - 1, hi}) {
    if (j < 0 || j >= sec.K || j == o) continue;
    const double d = std::abs((sec.pole[o] - sec.pole[j]) + tau);
    if (d < best_d) {
      best = j;
      best_d = d;
    }
  }
  return best;
}

/// Σ_{j≠k} 1 / (x_k − x_j) over the approximations x_j = vr[j] + i·vi[j], j < K: the
/// repulsion term of Aberth's method.
PSCR_SIMD_CLONES C repulsion(const double* vr, const double* vi, index_t K, index_t k) {
  const double xr = vr[k], xi = vi[k];
  double rr = 0, ri = 0;
#pragma omp simd reduction(+ : rr, ri)
  for (index_t j = 0; j < K; ++j) {
    const double dr = xr - vr[j], di = xi - vi[j];
    const double n2 = dr * dr + di * di;
    const double inv = j == k ? 0.0 : 1 / n2;
    rr += dr * inv;
    ri -= di * inv;
  }
  return C(rr, ri);
}

/// Aberth's method (Ehrlich–Aberth, Jacobi sweeps) for the roots `redo`, restarted at their
/// poles, the other roots held where they are: with p(λ) = φ_k(λ) Π_{j≠k} (λ0_j − λ), whose
/// roots are the K eigenvalues, the step is 1 / (p'/p − Σ_{j≠k} 1 / (λ_k − λ_j)).
/// False without convergence.
bool aberth(const Secular& sec, const std::vector<index_t>& redo, std::vector<C>& tau) {
  const index_t K = sec.K;
  for (index_t k : redo) tau[k] = C(0);
  std::vector<double> vr(K), vi(K);
  for (index_t k = 0; k < K; ++k) {
    vr[k] = sec.pole[k] + tau[k].real();
    vi[k] = tau[k].imag();
  }
  std::vector<index_t> active(redo);
  std::vector<C> next(K);
  std::vector<double> previous(K, std::numeric_limits<double>::infinity());
  for (int sweep = 0; sweep < kMaxIterations && !active.empty(); ++sweep) {
    const index_t na = static_cast<index_t>(active.size());
    std::vector<char> done(na, 0);
    for (index_t i = 0; i < na; ++i) {
      const index_t k = active[i];
      const Evaluation ev = evaluate(sec, k, tau[k]);
      next[k] = tau[k];
      if (ev.phi.v == C(0)) {
        done[i] = 1;
        continue;
      }
      const C step =
          C(1) / ((ev.phi.d / ev.phi.v - ev.pole_sum) - repulsion(vr.data(), vi.data(), K, k));
      next[k] = tau[k] - step;
      done[i] = converged_step(sec, k, next[k], std::abs(step), previous[k]);
      previous[k] = std::abs(step);
    }
    std::vector<index_t> still;
    for (index_t i = 0; i < na; ++i) {
      const index_t k = active[i];
      if (!is_finite(next[k])) return false;
      tau[k] = next[k];
      vr[k] = sec.pole[k] + tau[k].real();
      vi[k] = tau[k].imag();
      if (!done[i]) still.push_back(k);
    }
    active.swap(still);
  }
  return active.empty();
}

/// An eigenvector in the basis V: coefficients a (secular poles) and u = Z a.
struct RootVector {
  std::vector<C> a;
  C u0, u1;
};

/// Scales v to wᵀ M w = 1; false when v is not finite or nearly
/// isotropic (|wᵀMw| < 1e-8 Σ|a_j|²).
PSCR_SIMD_CLONES bool normalize(const Secular& sec, RootVector& v) {
  // Σ a_j² and Σ |a_j|² in real arithmetic, so that the sums vectorize.
  const double* a = reinterpret_cast<const double*>(v.a.data());
  const index_t K = static_cast<index_t>(v.a.size());
  double sr = 0, si = 0, sn = 0;
#pragma omp simd reduction(+ : sr, si, sn)
  for (index_t j = 0; j < K; ++j) {
    const double xr = a[2 * j], xi = a[2 * j + 1];
    sr += xr * xr - xi * xi;
    si += 2 * xr * xi;
    sn += xr * xr + xi * xi;
  }
  const C norm = sec.dm0 * v.u0 * v.u0 + sec.dm1 * v.u1 * v.u1 + C(sr, si);
  const double size =
      std::abs(sec.dm0) * std::norm(v.u0) + std::abs(sec.dm1) * std::norm(v.u1) + sn;
  if (!is_finite(norm) || !(std::abs(norm) >= 1e-8 * size)) return false;
  const C scale = C(1) / std::sqrt(norm);
  for (C& x : v.a) x *= scale;
  v.u0 *= scale;
  v.u1 *= scale;
  return true;
}

/// a_j = −(z0_j du0 + z1_j du1) / ((λ0_j − λ0_o) − τ) for j ≠ o (a_o is left unset), divided in
/// real arithmetic (1 / (x − i·y) = (x + i·y) / (x² + y²), as in accumulate) so that it
/// vectorizes.
PSCR_SIMD_CLONES void coefficients(const Secular& sec, index_t o, C tau, C du0, C du1, C* a) {
  const double *pole = sec.pole.data(), *z0 = sec.z0.data(), *z1 = sec.z1.data();
  const double po = sec.pole[o], tr = tau.real(), ti = tau.imag();
  const double u0r = du0.real(), u0i = du0.imag(), u1r = du1.real(), u1i = du1.imag();
  // std::complex<double> is an array of its real and imaginary parts ([complex.numbers]).
  double* out = reinterpret_cast<double*>(a);
  for (int part = 0; part < 2; ++part) {
    const index_t lo = part == 0 ? 0 : o + 1, hi = part == 0 ? o : sec.K;
#pragma omp simd
    for (index_t j = lo; j < hi; ++j) {
      const double nr = z0[j] * u0r + z1[j] * u1r, ni = z0[j] * u0i + z1[j] * u1i;
      const double dr = (pole[j] - po) - tr;
      const double inv = 1 / (dr * dr + ti * ti);
      out[2 * j] = -(nr * dr - ni * ti) * inv;
      out[2 * j + 1] = -(ni * dr + nr * ti) * inv;
    }
  }
}

/// The normalized eigenvector of the root pole[o] + τ: u = adj(B) z_o, a_o = det B,
/// a_j = −z_jᵀ D u / (λ0_j − λ).
bool root_vector(const Secular& sec, index_t o, C tau, RootVector& v) {
  const index_t K = sec.K;
  const Evaluation ev = evaluate(sec, o, tau);
  const C lam = sec.pole[o] + tau;
  const C d0 = sec.da0 - lam * sec.dm0, d1 = sec.da1 - lam * sec.dm1;
  const double z0 = sec.z0[o], z1 = sec.z1[o];
  C u0 = ev.u0, u1 = ev.u1, ao = ev.det;
  const double adj =
      std::max({std::abs(ev.b00), std::abs(ev.b01), std::abs(ev.b10), std::abs(ev.b11)}) *
      std::max(std::abs(z0), std::abs(z1));
  if (std::hypot(std::abs(u0), std::abs(u1)) < 1e-2 * adj) {
    // adj(B) z_o nearly vanishes (the root belongs to a factor of det B, e.g. the other
    // symmetry class of a nearly persymmetric pencil): u from a row of the singular
    // τB − z_o (D z_o)ᵀ, and a_o = z_oᵀ D u / τ.
    const C n00 = tau * ev.b00 - z0 * d0 * z0, n01 = tau * ev.b01 - z0 * d1 * z1;
    const C n10 = tau * ev.b10 - z1 * d0 * z0, n11 = tau * ev.b11 - z1 * d1 * z1;
    const bool top = std::norm(n00) + std::norm(n01) >= std::norm(n10) + std::norm(n11);
    u0 = top ? n01 : n11;
    u1 = top ? -n00 : -n10;
    ao = (z0 * d0 * u0 + z1 * d1 * u1) / tau;
  }
  const C du0 = d0 * u0, du1 = d1 * u1;
  v.a.resize(K);
  coefficients(sec, o, tau, du0, du1, v.a.data());
  v.a[o] = ao;
  v.u0 = u0;
  v.u1 = u1;
  return normalize(sec, v);
}

/// dot[h] = w_xᵀ M w_y = a_xᵀ a_y + u_xᵀ ΔM u_y, the bilinear product of vectors w = V a
/// (Vᵀ M0 V = I, u = Z a = Pᵀ w), for x = *x[h], h < nw, four in each pass over y with
/// independent accumulators whose latencies overlap. x holds kWindow pointers (entries past nw
/// may point anywhere valid, their products are not used).
void bilinear_window(const Secular& sec, const RootVector* const* x, index_t nw,
                     const RootVector& y, C* dot) {
  static_assert(kWindow % 4 == 0, "the window is taken four vectors a pass");
  const index_t K = sec.K;
  const C* ya = y.a.data();
  for (index_t g = 0; g < nw; g += 4) {
    const RootVector* const* xg = x + g;
    const C *x0 = xg[0]->a.data(), *x1 = xg[1]->a.data(), *x2 = xg[2]->a.data(),
            *x3 = xg[3]->a.data();
    C acc[4];
    for (index_t h = 0; h < 4; ++h)
      acc[h] = sec.dm0 * xg[h]->u0 * y.u0 + sec.dm1 * xg[h]->u1 * y.u1;
    C s0 = acc[0], s1 = acc[1], s2 = acc[2], s3 = acc[3];
    for (index_t j = 0; j < K; ++j) {
      s0 += x0[j] * ya[j];
      s1 += x1[j] * ya[j];
      s2 += x2[j] * ya[j];
      s3 += x3[j] * ya[j];
    }
    dot[g] = s0;
    dot[g + 1] = s1;
    dot[g + 2] = s2;
    dot[g + 3] = s3;
  }
}

/// ‖r‖ / ‖a‖ with r = (Λ0 − λ) a + Zᵀ D(λ) Z a, λ = pole[o] + τ: since A0 V = M0 V Λ0 and
/// M0 V Zᵀ = P, (A − λM) V a = M0 V r, so the backward error of (λ, w = V a) is at most
/// ‖M0‖ ‖r‖ / ((‖A‖ + |λ| ‖M‖) ‖a‖). The sums in real arithmetic, so that they vectorize.
PSCR_SIMD_CLONES double backward_error_bound(const Secular& sec, index_t o, C tau,
                                             const RootVector& v) {
  const index_t K = sec.K;
  const double *pole = sec.pole.data(), *z0 = sec.z0.data(), *z1 = sec.z1.data();
  const double* a = reinterpret_cast<const double*>(v.a.data());
  const C lam = sec.pole[o] + tau;
  double u0r = 0, u0i = 0, u1r = 0, u1i = 0, a2 = 0;
#pragma omp simd reduction(+ : u0r, u0i, u1r, u1i, a2)
  for (index_t j = 0; j < K; ++j) {
    const double xr = a[2 * j], xi = a[2 * j + 1];
    u0r += z0[j] * xr;
    u0i += z0[j] * xi;
    u1r += z1[j] * xr;
    u1i += z1[j] * xi;
    a2 += xr * xr + xi * xi;
  }
  const C du0 = (sec.da0 - lam * sec.dm0) * C(u0r, u0i),
          du1 = (sec.da1 - lam * sec.dm1) * C(u1r, u1i);
  const double po = sec.pole[o], tr = tau.real(), ti = tau.imag();
  const double d0r = du0.real(), d0i = du0.imag(), d1r = du1.real(), d1i = du1.imag();
  double r2 = 0;
#pragma omp simd reduction(+ : r2)
  for (index_t j = 0; j < K; ++j) {
    // ((λ0_j − λ0_o) − τ) a_j + z0_j du0 + z1_j du1, with (λ0_j − λ0_o) − τ = dr − i·ti
    const double xr = a[2 * j], xi = a[2 * j + 1];
    const double dr = (pole[j] - po) - tr;
    const double rr = dr * xr + ti * xi + z0[j] * d0r + z1[j] * d1r;
    const double ri = dr * xi - ti * xr + z0[j] * d0i + z1[j] * d1i;
    r2 += rr * rr + ri * ri;
  }
  return std::sqrt(r2 / a2);
}

/// One step of inverse iteration in the basis V: a ← (Λ0 − λ + Zᵀ D(λ) Z)⁻¹ a by the
/// Sherman–Morrison–Woodbury formula, then normalized.
bool inverse_step(const Secular& sec, index_t o, C tau, RootVector& v) {
  const index_t K = sec.K;
  const C lam = sec.pole[o] + tau;
  const C d0 = sec.da0 - lam * sec.dm0, d1 = sec.da1 - lam * sec.dm1;
  C g00(0), g01(0), g11(0), c0(0), c1(0);
  for (index_t j = 0; j < K; ++j) {
    const C inv = C(1) / ((sec.pole[j] - sec.pole[o]) - tau);
    g00 += sec.p00[j] * inv;
    g01 += sec.p01[j] * inv;
    g11 += sec.p11[j] * inv;
    c0 += sec.z0[j] * inv * v.a[j];
    c1 += sec.z1[j] * inv * v.a[j];
  }
  // (I + G D) y = c
  const C b00 = C(1) + g00 * d0, b01 = g01 * d1, b10 = g01 * d0, b11 = C(1) + g11 * d1;
  const C det = b00 * b11 - b01 * b10;
  const C y0 = (b11 * c0 - b01 * c1) / det, y1 = (b00 * c1 - b10 * c0) / det;
  const C dy0 = d0 * y0, dy1 = d1 * y1;
  C u0(0), u1(0);
  for (index_t j = 0; j < K; ++j) {
    v.a[j] = (v.a[j] - sec.z0[j] * dy0 - sec.z1[j] * dy1) / ((sec.pole[j] - sec.pole[o]) - tau);
    u0 += sec.z0[j] * v.a[j];
    u1 += sec.z1[j] * v.a[j];
  }
  v.u0 = u0;
  v.u1 = u1;
  return normalize(sec, v);
}

}  // namespace

bool has_boundary_form(const SymTridiag<C>& A, const SymTridiag<C>& M) {
  const index_t m = A.size();
  auto real = [](const C& x) { return x.imag() == 0; };
  for (const SymTridiag<C>* t : {&A, &M}) {
    if (!std::all_of(t->off.begin(), t->off.end(), real)) return false;
    for (index_t k = 1; k + 1 < m; ++k)
      if (!real(t->diag[k])) return false;
  }
  return !(real(A.diag[0]) && real(M.diag[0]) && real(A.diag[m - 1]) && real(M.diag[m - 1]));
}

bool solve_boundary_pencil(const SymTridiag<C>& A, const SymTridiag<C>& M,
                           const std::vector<index_t>& rows, BlockEigen<C>& out) {
  const index_t m = A.size();
  // The real pencil and its eigen-decomposition, tracking the ends and the asked-for rows.
  SymTridiag<double> A0, M0;
  for (const C& x : A.diag) A0.diag.push_back(x.real());
  for (const C& x : A.off) A0.off.push_back(x.real());
  for (const C& x : M.diag) M0.diag.push_back(x.real());
  for (const C& x : M.off) M0.off.push_back(x.real());
  std::vector<index_t> tracked(rows);
  tracked.push_back(0);
  tracked.push_back(m - 1);
  std::sort(tracked.begin(), tracked.end());
  tracked.erase(std::unique(tracked.begin(), tracked.end()), tracked.end());
  BlockEigen<double> real;
  try {
    real = solve_block_pencil(A0, M0, tracked);
  } catch (const SolverError&) {
    return false;
  }
  auto row_of = [&](index_t r) {
    return static_cast<index_t>(std::lower_bound(tracked.begin(), tracked.end(), r) -
                                tracked.begin());
  };

  // The active ends: end 0 of the secular problem is always an active one.
  const C i1(0, 1);
  auto correction = [&](index_t r, C& da, C& dm) {
    da = i1 * A.diag[r].imag();
    dm = i1 * M.diag[r].imag();
    return da != C(0) || dm != C(0);
  };
  C da_first, dm_first, da_last, dm_last;
  const bool first = correction(0, da_first, dm_first);
  const bool last = m > 1 && correction(m - 1, da_last, dm_last);
  Secular sec;
  sec.two = first && last;
  const double* zrow0 = real.row(row_of(first ? 0 : m - 1));
  const double* zrow1 = real.row(row_of(m - 1));
  sec.da0 = first ? da_first : da_last;
  sec.dm0 = first ? dm_first : dm_last;
  sec.da1 = sec.two ? da_last : C(0);
  sec.dm1 = sec.two ? dm_last : C(0);

  // Deflation: (λ0_j, v_j) is an eigenpair of (A, M) with residual P D(λ0_j) z_j and
  // ‖v_j‖ ≥ ‖M0‖^{-1/2}; poles where that residual is at rounding level stay as they are.
  const double na = A.infinity_norm(), nm = M.infinity_norm(), nm0 = M0.infinity_norm();
  const double e = eps<double>();
  std::vector<index_t> kept;  // secular index → pole index
  std::vector<char> deflated(m, 0);
  for (index_t j = 0; j < m; ++j) {
    const double lj = real.lambda[j];
    const double z0 = zrow0[j], z1 = sec.two ? zrow1[j] : 0.0;
    const double r = std::hypot(std::abs((sec.da0 - lj * sec.dm0) * z0),
                                std::abs((sec.da1 - lj * sec.dm1) * z1));
    if (r <= 8 * e * (na + std::abs(lj) * nm) / std::sqrt(nm0)) {
      deflated[j] = 1;
    } else {
      kept.push_back(j);
      sec.pole.push_back(lj);
      sec.z0.push_back(z0);
      sec.z1.push_back(z1);
      sec.p00.push_back(z0 * z0);
      sec.p01.push_back(z0 * z1);
      sec.p11.push_back(z1 * z1);
    }
  }
  sec.K = static_cast<index_t>(kept.size());

  // Roots and vectors, one per pole; columns of the stored rows in `wcol` (unsorted).
  const index_t nr = static_cast<index_t>(rows.size());
  std::vector<index_t> rows_at(nr);
  for (index_t k = 0; k < nr; ++k) rows_at[k] = row_of(rows[k]);
  std::vector<C> lambda(m), wcol(nr * m);
  for (index_t j = 0; j < m; ++j) {
    if (!deflated[j]) continue;
    lambda[j] = real.lambda[j];
    for (index_t k = 0; k < nr; ++k) wcol[j * nr + k] = real.row(rows_at[k])[j];
  }
  const index_t K = sec.K;
  std::vector<index_t> origin(K);
  std::vector<C> tau(K, C(0));
  std::vector<char> converged(K, 0);
  std::iota(origin.begin(), origin.end(), 0);
  // Phase 1: Newton from every pole; with one corrected end, roots that do not converge in a
  // few steps start again from the root of the model of the interval (pole k, pole k+1).
  std::vector<char> relative_to_k(K, 1);  // tau[k] computed relative to pole k
  for (index_t k = 0; k < K; ++k) {
    converged[k] = newton(sec, k, tau[k], kPoleNewton);
    if (converged[k] || sec.two || k + 1 == K) continue;
    const C guess = interval_guess(sec, k);
    const index_t o = nearest_pole(sec, k, guess - sec.pole[k]);
    C t = guess - sec.pole[o];
    converged[k] = newton(sec, o, t, kFirstNewton);
    // A root next to a pole is that pole's own (weakly coupled): left to Aberth's method from
    // pole k unless the Newton iteration from pole k itself found it.
    const index_t near = nearest_pole(sec, o, t);
    if (converged[k] && std::abs((sec.pole[o] - sec.pole[near]) + t) <= 1e-6 * pole_gap(sec, near))
      converged[k] = 0;
    tau[k] = (sec.pole[o] - sec.pole[k]) + t;
    relative_to_k[k] = o == k;
  }
  // Phase 2: roots that did not converge or were found twice (a strong correction moves roots
  // past their neighbours' poles) start again from their poles with Aberth's method, whose
  // repulsion from the other approximations keeps them off the roots already found.
  std::vector<index_t> redo;
  for (index_t k = 0; k < K; ++k)
    if (!converged[k]) redo.push_back(k);
  {
    std::vector<index_t> order;
    for (index_t k = 0; k < K; ++k)
      if (converged[k]) order.push_back(k);
    auto value = [&](index_t k) { return sec.pole[k] + tau[k]; };
    std::sort(order.begin(), order.end(),
              [&](index_t x, index_t y) { return value(x).real() < value(y).real(); });
    double lmax = 0;
    for (index_t k : order) lmax = std::max(lmax, std::abs(value(k)));
    const double tol = 1e-10 * lmax;
    std::vector<char> dup(K, 0);
    for (std::size_t l = 0; l < order.size(); ++l)
      for (std::size_t n = l + 1;
           n < order.size() && value(order[n]).real() - value(order[l]).real() <= tol; ++n)
        if (!dup[order[l]] && std::abs(value(order[n]) - value(order[l])) <= tol)
          dup[std::max(order[l], order[n])] = 1;
    for (index_t k = 0; k < K; ++k)
      if (dup[k]) redo.push_back(k);
  }
  for (index_t k : redo) relative_to_k[k] = 1;
  if (!redo.empty() && !aberth(sec, redo, tau)) return false;
  // Phase 3: τ exact relative to the nearest pole: Newton once more from there where it is
  // another pole.
  std::atomic<bool> failed{false};
  for (index_t k = 0; k < K; ++k) {
    const index_t near = nearest_pole(sec, k, tau[k]);
    if (near == k && relative_to_k[k]) continue;
    C t = (sec.pole[k] - sec.pole[near]) + tau[k];
    if (!newton(sec, near, t, kMaxIterations)) failed = true;
    origin[k] = near;
    tau[k] = t;
  }
  if (failed) return false;

  // Columns of the stored rows of w = V a (secular poles only): the stored rows of V at the
  // secular poles, contiguous (nr × K, row-major), then up to 4 rows at a time in one pass over
  // a, each row's sum in the order of j.
  std::vector<double> vkept(nr * K);
  for (index_t r = 0; r < nr; ++r)
    for (index_t j = 0; j < K; ++j) vkept[r * K + j] = real.row(rows_at[r])[kept[j]];
  auto rows_of = [&](const std::vector<C>& a, index_t k) {
    for (index_t r0 = 0; r0 < nr; r0 += 4) {
      const index_t n = std::min<index_t>(4, nr - r0);
      const double* v0 = vkept.data() + r0 * K;
      const double* v1 = vkept.data() + (r0 + std::min<index_t>(1, n - 1)) * K;
      const double* v2 = vkept.data() + (r0 + std::min<index_t>(2, n - 1)) * K;
      const double* v3 = vkept.data() + (r0 + std::min<index_t>(3, n - 1)) * K;
      C acc0(0), acc1(0), acc2(0), acc3(0);
      for (index_t j = 0; j < K; ++j) {
        acc0 += v0[j] * a[j];
        acc1 += v1[j] * a[j];
        acc2 += v2[j] * a[j];
        acc3 += v3[j] * a[j];
      }
      const C acc[4] = {acc0, acc1, acc2, acc3};
      for (index_t h = 0; h < n; ++h) wcol[kept[k] * nr + r0 + h] = acc[h];
    }
  };
  for (index_t k = 0; k < K; ++k) lambda[kept[k]] = sec.pole[origin[k]] + tau[k];

  // Order by real part, then imaginary part.
  std::vector<index_t> order(m);
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](index_t x, index_t y) {
    if (lambda[x].real() != lambda[y].real()) return lambda[x].real() < lambda[y].real();
    if (lambda[x].imag() != lambda[y].imag()) return lambda[x].imag() < lambda[y].imag();
    return x < y;
  });
  double lmax = 0;
  for (const C& x : lambda) {
    if (!is_finite(x)) return false;
    lmax = std::max(lmax, std::abs(x));
  }
  // A root found twice (Aberth's method can still land on a found root) leaves another one out.
  for (index_t l = 0; l + 1 < m; ++l)
    if (std::abs(lambda[order[l + 1]] - lambda[order[l]]) <= kSameRoot * lmax) return false;
  std::vector<index_t> secular_of(m, -1);
  for (index_t k = 0; k < K; ++k) secular_of[kept[k]] = k;

  // The vectors in that order: w = V a, normalized to wᵀMw = 1 and made bilinear-orthogonal to
  // the vectors of the kWindow roots before it where their product is not negligible (the
  // vectors of close roots mix by about eps·κ_a·κ_b·max|λ| / |λ_a − λ_b|: measured here, not
  // predicted), then checked: the backward error of every pair is bounded from a (see
  // backward_error_bound) and must be at most kAcceptedBackward.
  std::vector<RootVector> window(kWindow);
  index_t filled = 0;
  RootVector v;
  for (index_t l = 0; l < m; ++l) {
    const index_t k = secular_of[order[l]];
    if (k < 0) continue;
    if (!root_vector(sec, origin[k], tau[k], v)) return false;
    const C lam = sec.pole[origin[k]] + tau[k];
    const double pair_scale = nm0 / (na + std::abs(lam) * nm);
    // The secular formula leaves a residual of the rounding errors of the sums in G (large where
    // |D(λ)| is): one step of inverse iteration removes it.
    double bound = backward_error_bound(sec, origin[k], tau[k], v) * pair_scale;
    bool modified = false;  // v changed since `bound` was computed
    if (bound > kRefineBackward) {
      if (!inverse_step(sec, origin[k], tau[k], v)) return false;
      modified = true;
    }
    // Classical Gram–Schmidt: the products of the window vectors with v in one batched pass,
    // those above kOrthoTol subtracted together in one more. The window vectors are
    // bilinear-orthogonal to each other to about kOrthoTol, so one subtraction leaves the other
    // products changed by about kOrthoTol times the product subtracted: one round suffices.
    const index_t nw = std::min(filled, kWindow);
    const RootVector* previous[kWindow];
    for (index_t h = 0; h < kWindow; ++h)
      previous[h] = h < nw ? &window[(filled - 1 - h) % kWindow] : &v;
    if (nw > 0) {
      C dots[kWindow];
      bilinear_window(sec, previous, nw, v, dots);
      const C* xs[kWindow];
      C coef[kWindow];
      index_t ns = 0;
      for (index_t h = 0; h < nw; ++h)
        if (std::abs(dots[h]) > kOrthoTol) {
          xs[ns] = previous[h]->a.data();
          coef[ns] = dots[h];
          v.u0 -= dots[h] * previous[h]->u0;
          v.u1 -= dots[h] * previous[h]->u1;
          ++ns;
        }
      if (ns > 0) {
        for (index_t j = 0; j < K; ++j) {
          C s = 0;
          for (index_t q = 0; q < ns; ++q) s += coef[q] * xs[q][j];
          v.a[j] -= s;
        }
        if (!normalize(sec, v)) return false;
        modified = true;
      }
    }
    if (modified) bound = backward_error_bound(sec, origin[k], tau[k], v) * pair_scale;
    if (bound > kAcceptedBackward) return false;
    rows_of(v.a, k);
    std::swap(window[filled % kWindow], v);
    ++filled;
  }

  out.lambda.resize(m);
  out.rows = rows;
  out.W.assign(nr * m, C{});
  for (index_t l = 0; l < m; ++l) {
    out.lambda[l] = lambda[order[l]];
    for (index_t r = 0; r < nr; ++r) out.W[r * m + l] = wcol[order[l] * nr + r];
  }
  return true;
}

}  // namespace pscr::eigen_detail
