// Inverse iteration for complex symmetric tridiagonal pencils (contract in inverse_iteration.hpp).
#include "eigen_init/inverse_iteration.hpp"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <sstream>

#include "common/error.hpp"

namespace pscr::eigen_detail {

namespace {

using C = std::complex<double>;

/// Largest backward error ‖Aw − λMw‖ / ((‖A‖ + |λ|‖M‖)‖w‖) accepted for an eigenpair.
constexpr double kBackwardTol = 1e-12;
/// Backward error at which inverse iteration stops early.
constexpr double kConvergedTol = 32 * std::numeric_limits<double>::epsilon();
/// Smallest |wᵀMw| / (‖M‖‖w‖²) accepted: below it the pencil is near-defective.
constexpr double kIsotropyTol = 1e-8;
/// Inverse iteration steps per factorization (then the shift becomes the Rayleigh quotient).
constexpr int kMaxIterations = 3;
/// Clusters are formed from pairs closer than this times ‖M⁻¹A‖ (estimated).
constexpr double kClusterGap = 1e-2;
/// Refined eigenvalues are checked against the estimates of this many neighbours on each side.
constexpr index_t kNeighbours = 8;
/// Pairs closer than this times ‖M⁻¹A‖ are always in one cluster.
constexpr double kTightGap = 1e-8;
/// Gram–Schmidt budget: Σ (cluster size)² ≤ kClusterBudget · m, O(m²) work in all, except that
/// blocks up to kWholeBlock rows may form a single cluster.
constexpr double kClusterBudget = 2;
constexpr index_t kWholeBlock = 256;

inline double abs1(const C& x) {
  return std::abs(x.real()) + std::abs(x.imag());
}

/// LU with partial pivoting of the tridiagonal T = A − σM (LAPACK zgttrf), then solves.
class ShiftedLU {
 public:
  ShiftedLU(const SymTridiag<C>& A, const SymTridiag<C>& M, C sigma, double norm)
      : m_(A.size()), dl_(m_), d_(m_), du_(m_), du2_(m_), swap_(m_, 0) {
    for (index_t k = 0; k < m_; ++k) {
      d_[k] = A.diag[k] - sigma * M.diag[k];
      if (k + 1 < m_) dl_[k] = du_[k] = A.off[k] - sigma * M.off[k];
    }
    const double tiny = eps<double>() * norm;
    for (index_t k = 0; k + 1 < m_; ++k) {
      if (abs1(d_[k]) >= abs1(dl_[k])) {
        // No interchange: eliminate dl[k] with d[k].
        if (d_[k] == C{}) d_[k] = tiny;
        const C f = dl_[k] / d_[k];
        dl_[k] = f;
        d_[k + 1] -= f * du_[k];
        du2_[k] = 0;
      } else {
        // Interchange rows k and k+1.
        swap_[k] = 1;
        const C f = d_[k] / dl_[k];
        d_[k] = dl_[k];
        dl_[k] = f;
        const C t = du_[k];
        du_[k] = d_[k + 1];
        d_[k + 1] = t - f * d_[k + 1];
        if (k + 2 < m_) {
          du2_[k] = du_[k + 1];
          du_[k + 1] = -f * du_[k + 1];
        }
      }
    }
    if (d_[m_ - 1] == C{}) d_[m_ - 1] = tiny;
    for (C& x : d_) x = C(1) / x;  // the solves multiply by the reciprocal pivots
  }

  /// Solves T x = b in place.
  void solve(C* b) const {
    for (index_t k = 0; k + 1 < m_; ++k) {
      if (swap_[k]) {
        const C t = b[k];
        b[k] = b[k + 1];
        b[k + 1] = t - dl_[k] * b[k];
      } else {
        b[k + 1] -= dl_[k] * b[k];
      }
    }
    b[m_ - 1] *= d_[m_ - 1];
    if (m_ > 1) b[m_ - 2] = (b[m_ - 2] - du_[m_ - 2] * b[m_ - 1]) * d_[m_ - 2];
    for (index_t k = m_ - 3; k >= 0; --k)
      b[k] = (b[k] - du_[k] * b[k + 1] - du2_[k] * b[k + 2]) * d_[k];
  }

 private:
  index_t m_;
  std::vector<C> dl_, d_, du_, du2_;
  std::vector<char> swap_;
};

double norm2(const C* x, index_t m) {
  double s = 0;
  for (index_t k = 0; k < m; ++k) s += std::norm(x[k]);
  return std::sqrt(s);
}

/// A deterministic start vector for eigenvalue l (splitmix64 of l and k), entries in (−1, 1).
void start_vector(index_t l, C* x, index_t m) {
  for (index_t k = 0; k < m; ++k) {
    std::uint64_t z =
        static_cast<std::uint64_t>(l) * 0x9E3779B97F4A7C15ull + static_cast<std::uint64_t>(k) + 1;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    x[k] = C(static_cast<double>(z >> 11) * 0x1.0p-52 - 1.0, 0.0);
  }
}

struct Problem {
  const SymTridiag<C>& A;
  const SymTridiag<C>& M;
  double norm_a, norm_m;
  index_t m;
};

/// A finished vector of a cluster and M times it.
struct Finished {
  std::vector<C> u, mu;
};

/// One eigenpair of a cluster: inverse iteration from the approximate λ with the finished
/// vectors of the cluster (each M-normalized) projected out. Returns the refined λ; x holds the
/// bilinear-normalized vector and mx = M x.
C refine(const Problem& p, index_t l, C lambda, const std::vector<Finished>& prev,
         std::vector<C>& x, std::vector<C>& mx) {
  const index_t m = p.m;
  std::vector<C> ax(m);
  start_vector(l, x.data(), m);
  auto project_out = [&](std::vector<C>& v) {
    // v −= Σ u (uᵀ M v), modified Gram–Schmidt with the bilinear M-product.
    for (const Finished& f : prev) {
      C c{};
      for (index_t k = 0; k < m; ++k) c += f.mu[k] * v[k];
      for (index_t k = 0; k < m; ++k) v[k] -= c * f.u[k];
    }
  };
  auto normalize = [&](std::vector<C>& v) {
    const double inv = 1 / norm2(v.data(), m);
    for (C& y : v) y *= inv;
  };
  project_out(x);
  normalize(x);
  p.M.apply(x.data(), mx.data());
  C sigma = lambda;
  for (int refactor = 0; refactor < 3; ++refactor) {
    const double scale = p.norm_a + std::abs(sigma) * p.norm_m;
    const ShiftedLU lu(p.A, p.M, sigma, scale);
    for (int it = 0; it < kMaxIterations; ++it) {
      // x ← (A − σM)⁻¹ M x, then the backward error of the Rayleigh quotient decides.
      x.swap(mx);
      lu.solve(x.data());
      project_out(x);
      normalize(x);
      p.M.apply(x.data(), mx.data());
      p.A.apply(x.data(), ax.data());
      C xmx{}, xax{};
      for (index_t k = 0; k < m; ++k) {
        xmx += x[k] * mx[k];
        xax += x[k] * ax[k];
      }
      if (std::abs(xmx) < kIsotropyTol * p.norm_m) {
        std::ostringstream msg;
        msg << "eigen_init: near-defective complex symmetric block of size " << m
            << ": eigenvector " << l << " has |wᵀMw| / (‖M‖‖w‖²) = " << std::abs(xmx) / p.norm_m;
        throw SolverError(msg.str());
      }
      const C rq = xax / xmx;
      double r = 0;
      for (index_t k = 0; k < m; ++k) r += std::norm(ax[k] - rq * mx[k]);
      const double backward = std::sqrt(r) / (p.norm_a + std::abs(rq) * p.norm_m);
      // Stop at a backward error of a few ulps; a vector with a larger one still deviates by
      // up to (backward error)·‖M⁻¹A‖/gap from the eigenvector, which the orthogonality of
      // close neighbours would show. Accept up to kBackwardTol only after the last step.
      const bool last = refactor == 2 && it + 1 == kMaxIterations;
      if (backward <= kConvergedTol || (last && backward <= kBackwardTol)) {
        const C s = C(1) / std::sqrt(xmx);
        for (index_t k = 0; k < m; ++k) {
          x[k] *= s;
          mx[k] *= s;
        }
        return rq;
      }
      if (it + 1 == kMaxIterations) sigma = rq;
    }
  }
  std::ostringstream msg;
  msg << "eigen_init: inverse iteration did not converge for eigenvalue " << l << " (" << lambda
      << ") of a complex symmetric block of size " << m;
  throw SolverError(msg.str());
}

/// Cluster boundaries: starts of clusters of consecutive eigenvalues (ends with m). Pairs
/// closer than `tight` are always joined (repeated eigenvalues need it); looser pairs up to
/// `gap_limit` are joined closest first while the Gram–Schmidt budget allows.
std::vector<index_t> clusters(const std::vector<C>& lambda, double tight, double gap_limit) {
  const index_t m = static_cast<index_t>(lambda.size());
  std::vector<index_t> order;
  for (index_t l = 0; l + 1 < m; ++l)
    if (std::abs(lambda[l + 1] - lambda[l]) <= gap_limit) order.push_back(l);
  std::stable_sort(order.begin(), order.end(), [&](index_t x, index_t y) {
    return std::abs(lambda[x + 1] - lambda[x]) < std::abs(lambda[y + 1] - lambda[y]);
  });
  std::vector<index_t> lo(m), hi(m);  // cluster extent, valid at its ends
  std::iota(lo.begin(), lo.end(), 0);
  std::iota(hi.begin(), hi.end(), 0);
  std::vector<char> joined(m, 0);  // joined[l]: l and l+1 in one cluster
  double cost = static_cast<double>(m);
  const double budget = m <= kWholeBlock ? static_cast<double>(m) * static_cast<double>(m)
                                         : kClusterBudget * static_cast<double>(m);
  for (index_t l : order) {
    const index_t a = lo[l], b = hi[l + 1];
    const double na = static_cast<double>(l - a + 1), nb = static_cast<double>(b - l);
    const double extra = (na + nb) * (na + nb) - na * na - nb * nb;
    if (cost + extra > budget && std::abs(lambda[l + 1] - lambda[l]) > tight) continue;
    cost += extra;
    joined[l] = 1;
    hi[a] = b;
    lo[b] = a;
  }
  std::vector<index_t> starts;
  for (index_t l = 0; l < m; ++l)
    if (l == 0 || !joined[l - 1]) starts.push_back(l);
  starts.push_back(m);
  return starts;
}

}  // namespace

void inverse_iteration(const SymTridiag<C>& A, const SymTridiag<C>& M, std::vector<C>& lambda,
                       const std::vector<index_t>& rows, std::vector<C>& W) {
  const index_t m = A.size();
  const index_t nz = static_cast<index_t>(rows.size());
  const Problem p{A, M, A.infinity_norm(), M.infinity_norm(), m};
  double lambda_max = 0;
  for (const C& x : lambda) lambda_max = std::max(lambda_max, std::abs(x));
  const std::vector<index_t> starts =
      clusters(lambda, kTightGap * lambda_max, kClusterGap * lambda_max);
  const index_t ncl = static_cast<index_t>(starts.size()) - 1;

  std::vector<C> refined(m);
  W.assign(nz * m, C{});
  int failed = 0;
  std::string failure;
  const bool threads = m >= 256 && !omp_in_parallel();
#pragma omp parallel for schedule(dynamic, 16) if (threads)
  for (index_t c = 0; c < ncl; ++c) {
    try {
      std::vector<Finished> done;
      std::vector<C> x(m), mx(m);
      for (index_t l = starts[c]; l < starts[c + 1]; ++l) {
        refined[l] = refine(p, l, lambda[l], done, x, mx);
        // Sign: the first entry of largest modulus gets a positive real part.
        index_t kmax = 0;
        for (index_t k = 1; k < m; ++k)
          if (abs1(x[k]) > abs1(x[kmax])) kmax = k;
        if (x[kmax].real() < 0) {
          for (C& v : x) v = -v;
          for (C& v : mx) v = -v;
        }
        for (index_t k = 0; k < nz; ++k) W[k * m + l] = x[rows[k]];
        if (l + 1 < starts[c + 1]) done.push_back({x, mx});
      }
    } catch (const SolverError& e) {
#pragma omp critical(pscr_inverse_iteration_failure)
      if (!failed) {
        failed = 1;
        failure = e.what();
      }
    }
  }
  if (failed) throw SolverError(failure);

  // Each refined eigenvalue must still be nearest to its own estimate (the estimates can be
  // inaccurate where the reduction needed large rotations): otherwise two vectors may have
  // converged to one eigenpair and another eigenpair is missing.
  const double tight = kTightGap * lambda_max;
  for (index_t l = 0; l < m; ++l) {
    const double own = std::abs(refined[l] - lambda[l]);
    if (own <= tight) continue;
    for (index_t j = std::max<index_t>(0, l - kNeighbours);
         j < std::min<index_t>(m, l + kNeighbours + 1); ++j) {
      if (j == l || std::abs(refined[l] - lambda[j]) >= own) continue;
      std::ostringstream msg;
      msg << "eigen_init: inverse iteration from the estimate " << lambda[l] << " of eigenvalue "
          << l << " of a complex symmetric block of size " << m << " converged to " << refined[l]
          << ", nearer the estimate of eigenvalue " << j
          << " (inaccurate estimates: near-defective pencil?)";
      throw SolverError(msg.str());
    }
  }

  // Sort by the refined eigenvalues.
  std::vector<index_t> order(m);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](index_t x, index_t y) {
    if (refined[x].real() != refined[y].real()) return refined[x].real() < refined[y].real();
    return refined[x].imag() < refined[y].imag();
  });
  std::vector<C> W2(nz * m);
  for (index_t l = 0; l < m; ++l) {
    lambda[l] = refined[order[l]];
    for (index_t k = 0; k < nz; ++k) W2[k * m + l] = W[k * m + order[l]];
  }
  W.swap(W2);
}

}  // namespace pscr::eigen_detail
