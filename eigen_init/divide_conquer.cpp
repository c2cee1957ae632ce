// Divide and conquer with tracked functionals (declaration and contract in divide_conquer.hpp).
//
// A node of size n splits at n1 = n/2 (Cuppen): C = diag(C₁ − |β| e e ᵀ, C₂ − |β| e₁e₁ᵀ)
// + |β| v vᵀ, v = (e_{n1}; sign(β) e₁), β = C(n1−1, n1). With C_i = Q_i Λ_i Q_iᵀ the merge is the
// eigenproblem of D + ρ ζζᵀ, ζ = (Q₁ᵀ e_last; sign(β) Q₂ᵀ e_first)/√2, ρ = 2|β|, so each child
// tracks, besides the restrictions of the node's functionals, its first and last rows.
#include "eigen_init/divide_conquer.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <sstream>

#include "common/error.hpp"
#include "eigen_init/reduction.hpp"
#include "eigen_init/simd_clones.hpp"
#include "eigen_init/tasks.hpp"

namespace pscr::eigen_detail {

namespace {

/// Nodes up to this size are solved by implicit QL.
constexpr index_t kLeafSize = 32;
/// Nodes at least this large solve their two children as parallel tasks (tasks.hpp).
constexpr index_t kTaskNode = 1024;

/// Sorts (d, columns of F) by ascending d, stably.
void sort_columns(std::vector<double>& d, std::vector<double>& F, index_t nf) {
  const index_t n = static_cast<index_t>(d.size());
  std::vector<index_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](index_t x, index_t y) { return d[x] < d[y]; });
  std::vector<double> d2(n), F2(nf * n);
  for (index_t l = 0; l < n; ++l) {
    d2[l] = d[order[l]];
    for (index_t k = 0; k < nf; ++k) F2[k * n + l] = F[k * n + order[l]];
  }
  d.swap(d2);
  F.swap(F2);
}

/// The functionals of one child: slices [lo, lo + n) of the node's functionals that are not
/// zero there, then its first and last rows unless a slice is already that unit row.
struct ChildFunctionals {
  std::vector<double> F;  ///< nf × n, row-major
  index_t nf = 0;
  std::vector<index_t> parent;  ///< child functional k ← node functional parent[k], or −1
  index_t first = -1, last = -1;
};

bool is_unit(const double* x, index_t n, index_t at) {
  for (index_t k = 0; k < n; ++k)
    if (x[k] != (k == at ? 1.0 : 0.0)) return false;
  return true;
}

ChildFunctionals child_functionals(const std::vector<double>& F, index_t nf, index_t n_node,
                                   index_t lo, index_t n) {
  ChildFunctionals c;
  for (index_t k = 0; k < nf; ++k) {
    const double* x = F.data() + k * n_node + lo;
    if (std::all_of(x, x + n, [](double v) { return v == 0.0; })) continue;
    c.F.insert(c.F.end(), x, x + n);
    c.parent.push_back(k);
    if (c.first < 0 && is_unit(x, n, 0)) c.first = c.nf;
    if (c.last < 0 && is_unit(x, n, n - 1)) c.last = c.nf;
    ++c.nf;
  }
  auto add_unit = [&c, n](index_t at) {
    c.F.resize((c.nf + 1) * n, 0.0);
    c.F[c.nf * n + at] = 1.0;
    c.parent.push_back(-1);
    return c.nf++;
  };
  if (c.first < 0) c.first = add_unit(0);
  if (n == 1) c.last = c.first;
  if (c.last < 0) c.last = add_unit(n - 1);
  return c;
}

void node(double* d, const double* e, index_t n, std::vector<double>& F, index_t nf);

/// Root j of the secular equation f(λ) = 1 + Σ_i r_i / (d_i − λ) = 0 (r_i = ρ z_i² > 0, d
/// strictly ascending, K ≥ 3) as λ = d[origin] + tau, tau kept exact relative to the nearer pole
/// (LAPACK dlaed4's "middle way": each step solves the model c + s/(d_p − λ) + S/(d_q − λ) that
/// matches f and f' at the current point, with the poles p, q around the root; bisection
/// whenever a step leaves the bracket). Returns the number of evaluations, or −1 without
/// convergence.
PSCR_SIMD_CLONES int secular_root(index_t K, index_t j, const double* d, const double* r,
                                  double r_sum, index_t& origin, double& tau) {
  const double eps_d = eps<double>();
  // The pair of poles of the model: (j, j+1), or (K−2, K−1) for the last root.
  const index_t p = j + 1 < K ? j : K - 2, q = p + 1;
  double lo, hi;  // bracket of tau
  auto evaluate = [&](double t, double& f, double& psi, double& dpsi, double& phi, double& dphi) {
    const double dorig = d[origin];
    psi = dpsi = phi = dphi = 0;
#pragma omp simd reduction(+ : psi, dpsi)
    for (index_t i = 0; i <= p; ++i) {
      const double inv = 1 / ((d[i] - dorig) - t);
      const double x = r[i] * inv;
      psi += x;
      dpsi += x * inv;
    }
#pragma omp simd reduction(+ : phi, dphi)
    for (index_t i = q; i < K; ++i) {
      const double inv = 1 / ((d[i] - dorig) - t);
      const double x = r[i] * inv;
      phi += x;
      dphi += x * inv;
    }
    f = 1 + psi + phi;
  };
  double f, psi, dpsi, phi, dphi;
  if (j + 1 < K) {
    // The sign of f at the midpoint picks the nearer pole as the origin.
    const double mid = (d[j + 1] - d[j]) / 2;
    origin = j;
    evaluate(mid, f, psi, dpsi, phi, dphi);
    if (f >= 0) {
      lo = 0;
      hi = mid;
      tau = mid;
    } else {
      origin = j + 1;
      lo = -mid;
      hi = 0;
      tau = -mid;
      evaluate(tau, f, psi, dpsi, phi, dphi);
    }
  } else {
    origin = K - 1;
    lo = 0;
    hi = r_sum;
    tau = r_sum / 2;
    evaluate(tau, f, psi, dpsi, phi, dphi);
  }
  for (int it = 1; it <= 60; ++it) {
    const double err = eps_d * (8 * (std::abs(psi) + std::abs(phi)) + 2 + 3 * std::abs(f) +
                                std::abs(tau) * (dpsi + dphi));
    if (std::abs(f) <= err) return it;
    if (f < 0) {
      lo = tau;
    } else {
      hi = tau;
    }
    const double dp = (d[p] - d[origin]) - tau, dq = (d[q] - d[origin]) - tau;
    const double a = (dp + dq) * f - dp * dq * (dpsi + dphi);
    const double b = dp * dq * f;
    double c = f - dp * dpsi - dq * dphi;
    double eta;
    if (j + 1 < K) {
      // A root between the poles p and q: the root of c η² − a η + b nearer zero.
      if (c == 0) {
        eta = b / a;
      } else {
        const double disc = std::sqrt(std::abs(a * a - 4 * b * c));
        eta = a <= 0 ? (a - disc) / (2 * c) : 2 * b / (a + disc);
      }
    } else {
      // The last root, right of both poles (dlaed4's case I = N).
      c = std::abs(c);
      if (c == 0) {
        eta = hi - tau;
      } else {
        const double disc = std::sqrt(std::abs(a * a - 4 * b * c));
        eta = a >= 0 ? (a + disc) / (2 * c) : 2 * b / (a - disc);
      }
    }
    double next = tau + eta;
    if (!(next > lo && next < hi)) next = (lo + hi) / 2;
    if (next == tau || hi - lo <= 4 * eps_d * std::max(std::abs(lo), std::abs(hi))) return it;
    tau = next;
    evaluate(tau, f, psi, dpsi, phi, dphi);
  }
  return -1;
}

/// Gu and Eisenstat's ẑ_i for i in [0, K): the ζ for which the computed roots are exact,
/// ẑ_i² = −δ_i(i) Π_{j≠i} δ_j(i) / (dl_i − dl_j) with δ_j(i) = dl_i − λ_j = (dl_i − dorg_j) − tau_j
/// (dlaed3), sign of w_i. By interlacing every factor of the product over j > i lies in
/// (1, (dl_{j+1} − dl_i)/(dl_j − dl_i)) and over j < i in (0, 1), with telescoping bounds on
/// the whole product, so the partial products of vector lanes neither overflow nor underflow.
PSCR_SIMD_CLONES void recompute_z(index_t K, const double* dl, const double* dorg,
                                  const double* tau, const double* w, double* zhat) {
  for (index_t i = 0; i < K; ++i) {
    const double di = dl[i];
    double below = 1, above = 1;
#pragma omp simd reduction(* : below)
    for (index_t j = 0; j < i; ++j) below *= ((di - dorg[j]) - tau[j]) / (di - dl[j]);
#pragma omp simd reduction(* : above)
    for (index_t j = i + 1; j < K; ++j) above *= ((di - dorg[j]) - tau[j]) / (di - dl[j]);
    const double prod = ((di - dorg[i]) - tau[i]) * below * above;
    zhat[i] = std::copysign(std::sqrt(-prod), w[i]);
  }
}

/// Roots per block of secular_vectors, and poles per chunk: the functionals' chunk stays in
/// the L1 cache while it meets kVectorRoots vectors.
constexpr index_t kVectorRoots = 4;
constexpr index_t kVectorChunk = 256;

/// Columns j in [lo, hi) (at most kVectorRoots) of G·U, U(:, j) = s/‖s‖ with
/// s_i = ẑ_i / (dl_i − λ_j) (G: nf × K row-major, U: nf × K row-major).
PSCR_SIMD_CLONES void secular_vectors(index_t K, index_t lo, index_t hi, const double* dl,
                                      const double* dorg, const double* tau, const double* zhat,
                                      const double* G, index_t nf, double* U) {
  const index_t nj = hi - lo;
  double s[kVectorRoots][kVectorChunk];
  double norm2[kVectorRoots] = {};
  std::vector<double> acc(nf * kVectorRoots, 0.0);
  for (index_t i0 = 0; i0 < K; i0 += kVectorChunk) {
    const index_t ni = std::min(kVectorChunk, K - i0);
    const double *dli = dl + i0, *zi = zhat + i0;
    for (index_t r = 0; r < nj; ++r) {
      const double dj = dorg[lo + r], tj = tau[lo + r];
      double* sr = s[r];
      double n2 = 0;
#pragma omp simd reduction(+ : n2)
      for (index_t i = 0; i < ni; ++i) {
        const double x = zi[i] / ((dli[i] - dj) - tj);
        sr[i] = x;
        n2 += x * x;
      }
      norm2[r] += n2;
    }
    for (index_t k = 0; k < nf; ++k) {
      const double* g = G + k * K + i0;
      for (index_t r = 0; r < nj; ++r) {
        const double* sr = s[r];
        double a = 0;
#pragma omp simd reduction(+ : a)
        for (index_t i = 0; i < ni; ++i) a += g[i] * sr[i];
        acc[k * kVectorRoots + r] += a;
      }
    }
  }
  for (index_t r = 0; r < nj; ++r) {
    const double inv = 1 / std::sqrt(norm2[r]);
    for (index_t k = 0; k < nf; ++k) U[k * K + lo + r] = acc[k * kVectorRoots + r] * inv;
  }
}

/// The merge: eigenvalues of D + ρ ζζᵀ (poles D ascending per child, not jointly) and the
/// functionals G·U (G: nf × n, the node's functionals times diag(Q₁, Q₂)).
void merge(double* d_out, std::vector<double> D, std::vector<double> z, double rho,
           std::vector<double>& G, index_t nf) {
  const index_t n = static_cast<index_t>(D.size());
  // Sort the poles jointly.
  {
    std::vector<index_t> order(n);
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](index_t x, index_t y) { return D[x] < D[y]; });
    std::vector<double> D2(n), z2(n), G2(nf * n);
    for (index_t l = 0; l < n; ++l) {
      D2[l] = D[order[l]];
      z2[l] = z[order[l]];
      for (index_t k = 0; k < nf; ++k) G2[k * n + l] = G[k * n + order[l]];
    }
    D.swap(D2);
    z.swap(z2);
    G.swap(G2);
  }

  // Deflation (LAPACK dlaed2): a negligible ρ|z_j| leaves D_j an eigenvalue; two poles closer
  // than the tolerance after the rotation that zeroes one z are merged into one.
  double dmax = 0, zmax = 0;
  for (index_t l = 0; l < n; ++l) {
    dmax = std::max(dmax, std::abs(D[l]));
    zmax = std::max(zmax, std::abs(z[l]));
  }
  const double tol = 8 * eps<double>() * std::max(dmax, zmax);
  std::vector<char> deflated(n, 0);
  index_t prev = -1;
  for (index_t j = 0; j < n; ++j) {
    if (rho * std::abs(z[j]) <= tol) {
      deflated[j] = 1;
      continue;
    }
    if (prev >= 0) {
      double s = z[prev], c = z[j];
      const double tau = std::hypot(c, s);
      const double t = D[j] - D[prev];
      c /= tau;
      s = -s / tau;
      if (std::abs(t * c * s) <= tol) {
        z[j] = tau;
        z[prev] = 0;
        for (index_t k = 0; k < nf; ++k) {
          double* g = G.data() + k * n;
          const double x = g[prev], y = g[j];
          g[prev] = c * x + s * y;
          g[j] = c * y - s * x;
        }
        const double dp = D[prev] * c * c + D[j] * s * s;
        D[j] = D[prev] * s * s + D[j] * c * c;
        D[prev] = dp;
        deflated[prev] = 1;
      }
    }
    prev = j;
  }

  std::vector<index_t> kept;
  for (index_t j = 0; j < n; ++j)
    if (!deflated[j]) kept.push_back(j);
  const index_t K = static_cast<index_t>(kept.size());
  std::vector<double> dl(K), w(K), Gk(nf * K);
  for (index_t i = 0; i < K; ++i) {
    dl[i] = D[kept[i]];
    w[i] = z[kept[i]];
    for (index_t k = 0; k < nf; ++k) Gk[k * K + i] = G[k * n + kept[i]];
  }

  std::vector<double> lambda(K), tau(K), U(nf * K);
  std::vector<index_t> origin(K);
  if (K == 1) {
    lambda[0] = dl[0] + rho * w[0] * w[0];
    for (index_t k = 0; k < nf; ++k) U[k] = Gk[k];
  } else if (K == 2) {
    // The 2×2 symmetric diag(dl) + ρ w wᵀ by one Jacobi rotation.
    const double a = dl[0] + rho * w[0] * w[0], b = rho * w[0] * w[1],
                 c = dl[1] + rho * w[1] * w[1];
    const double theta = (c - a) / (2 * b);
    const double t = (theta >= 0 ? 1.0 : -1.0) / (std::abs(theta) + std::sqrt(theta * theta + 1));
    const double cs = 1 / std::sqrt(t * t + 1), sn = t * cs;
    lambda[0] = a - t * b;
    lambda[1] = c + t * b;
    // Eigenvectors (cs, −sn) for lambda[0] and (sn, cs) for lambda[1].
    for (index_t k = 0; k < nf; ++k) {
      const double g0 = Gk[k * K], g1 = Gk[k * K + 1];
      U[k * K] = cs * g0 - sn * g1;
      U[k * K + 1] = sn * g0 + cs * g1;
    }
    if (lambda[0] > lambda[1]) {
      std::swap(lambda[0], lambda[1]);
      for (index_t k = 0; k < nf; ++k) std::swap(U[k * K], U[k * K + 1]);
    }
  } else {
    std::vector<double> r(K);
    double r_sum = 0;
    for (index_t i = 0; i < K; ++i) {
      r[i] = rho * w[i] * w[i];
      r_sum += r[i];
    }
    // Secular roots λ_j = dl[origin_j] + tau_j (dlaed4 keeps the distance to the nearer pole
    // exact), then Gu–Eisenstat's ẑ from the computed roots and the vectors ẑ_i / (dl_i − λ_j).
    std::vector<double> dorg(K), zhat(K);
    index_t failure = -1;
    for (index_t j = 0; j < K; ++j) {
      if (secular_root(K, j, dl.data(), r.data(), r_sum, origin[j], tau[j]) < 0) failure = j;
      dorg[j] = dl[origin[j]];
      lambda[j] = dorg[j] + tau[j];
    }
    recompute_z(K, dl.data(), dorg.data(), tau.data(), w.data(), zhat.data());
    for (index_t j0 = 0; j0 < K; j0 += kVectorRoots)
      secular_vectors(K, j0, std::min(K, j0 + kVectorRoots), dl.data(), dorg.data(), tau.data(),
                      zhat.data(), Gk.data(), nf, U.data());
    if (failure >= 0) {
      std::ostringstream msg;
      msg << "eigen_init: the secular equation of a divide-and-conquer merge of size " << K
          << " was not solved (root " << failure << ")";
      throw SolverError(msg.str());
    }
  }

  // Output: roots and deflated poles, ascending.
  std::vector<double> out_F(nf * n);
  std::vector<std::pair<double, index_t>> all;  // (value, source): source < K root, else pole
  all.reserve(n);
  for (index_t j = 0; j < K; ++j) all.emplace_back(lambda[j], j);
  for (index_t j = 0; j < n; ++j)
    if (deflated[j]) all.emplace_back(D[j], K + j);
  std::stable_sort(all.begin(), all.end(),
                   [](const auto& x, const auto& y) { return x.first < y.first; });
  for (index_t l = 0; l < n; ++l) {
    d_out[l] = all[l].first;
    const index_t src = all[l].second;
    for (index_t k = 0; k < nf; ++k)
      out_F[k * n + l] = src < K ? U[k * K + src] : G[k * n + (src - K)];
  }
  G.swap(out_F);
}

void node(double* d, const double* e, index_t n, std::vector<double>& F, index_t nf) {
  if (n <= kLeafSize) {
    std::vector<double> dv(d, d + n), ev(n, 0.0);
    std::copy(e, e + n - 1, ev.begin());
    implicit_ql(dv, ev, F, nf);
    sort_columns(dv, F, nf);
    std::copy(dv.begin(), dv.end(), d);
    return;
  }
  const index_t n1 = n / 2, n2 = n - n1;
  const double beta = e[n1 - 1];
  const double ab = std::abs(beta);
  d[n1 - 1] -= ab;
  d[n1] -= ab;
  ChildFunctionals left = child_functionals(F, nf, n, 0, n1);
  ChildFunctionals right = child_functionals(F, nf, n, n1, n2);
  run_both(
      n >= kTaskNode, [&] { node(d, e, n1, left.F, left.nf); },
      [&] { node(d + n1, e + n1, n2, right.F, right.nf); });

  // Merge data: poles, ζ, ρ, and the node's functionals in the children's eigenbases.
  std::vector<double> D(d, d + n), z(n), G(nf * n, 0.0);
  const double sq = 1 / std::sqrt(2.0);
  for (index_t l = 0; l < n1; ++l) z[l] = left.F[left.last * n1 + l] * sq;
  for (index_t l = 0; l < n2; ++l)
    z[n1 + l] = (beta < 0 ? -1.0 : 1.0) * right.F[right.first * n2 + l] * sq;
  for (index_t k = 0; k < left.nf; ++k)
    if (left.parent[k] >= 0) std::copy_n(left.F.data() + k * n1, n1, G.data() + left.parent[k] * n);
  for (index_t k = 0; k < right.nf; ++k)
    if (right.parent[k] >= 0)
      std::copy_n(right.F.data() + k * n2, n2, G.data() + right.parent[k] * n + n1);
  if (ab == 0) {
    std::vector<double> dv(D);
    sort_columns(dv, G, nf);
    std::copy(dv.begin(), dv.end(), d);
    F.swap(G);
    return;
  }
  merge(d, std::move(D), std::move(z), 2 * ab, G, nf);
  F.swap(G);
}

}  // namespace

void divide_conquer(std::vector<double>& d, const std::vector<double>& e, std::vector<double>& F,
                    index_t nf) {
  const index_t m = static_cast<index_t>(d.size());
  if (m == 0) return;
  node(d.data(), e.data(), m, F, nf);
}

}  // namespace pscr::eigen_detail
