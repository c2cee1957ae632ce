#pragma once
// Tridiagonal pencils for the eigen_init tests and benchmark: random ones, and the 1D factors of
// the test problems (myllykoski2018 §5.1) built by hand from mesh steps, independently of
// problems/.

#include <cmath>
#include <complex>
#include <cstdint>
#include <random>
#include <vector>

#include "pscr/operator.hpp"

namespace pscr::testing {

/// Mesh steps of n + 1 cells over [0, 1] (n interior nodes, Dirichlet at both ends) or n − 1
/// cells (n nodes including both ends): `cells` steps; uniform when ratio = 1 and
/// perturbation = 0, geometrically graded from h to ratio·h, or randomly perturbed
/// h·(1 + p·U(−1, 1)).
inline std::vector<double> mesh_steps(index_t cells, double ratio, double perturbation,
                                      std::uint64_t seed) {
  std::vector<double> h(cells, 1.0);
  if (cells > 1 && ratio != 1.0) {
    const double g = std::pow(ratio, 1.0 / static_cast<double>(cells - 1));
    for (index_t k = 1; k < cells; ++k) h[k] = h[k - 1] * g;
  }
  if (perturbation > 0) {
    std::mt19937_64 gen(seed);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    for (double& x : h) x *= 1.0 + perturbation * u(gen);
  }
  double sum = 0;
  for (double x : h) sum += x;
  for (double& x : h) x /= sum;
  return h;
}

/// Poisson, Dirichlet at both ends, linear FE with lumped mass (eq. 31): n = steps − 1 unknowns,
/// A = tridiag(−1/h_{l−1}, 1/h_{l−1} + 1/h_l, −1/h_l), M = diag((h_{l−1} + h_l)/2).
inline Factor<double> poisson_factor(const std::vector<double>& h) {
  const index_t n = static_cast<index_t>(h.size()) - 1;
  Factor<double> f;
  f.A.diag.resize(n);
  f.M.diag.resize(n);
  f.A.off.resize(n - 1);
  f.M.off.assign(n - 1, 0.0);
  for (index_t l = 0; l < n; ++l) {
    f.A.diag[l] = 1 / h[l] + 1 / h[l + 1];
    f.M.diag[l] = (h[l] + h[l + 1]) / 2;
    if (l + 1 < n) f.A.off[l] = -1 / h[l + 1];
  }
  return f;
}

/// Helmholtz stiffness and consistent mass, Dirichlet at both ends (real, M tridiagonal):
/// A as for Poisson, M = tridiag(h_l/6, (h_{l−1} + h_l)/3, h_l/6).
inline Factor<double> dirichlet_mass_factor(const std::vector<double>& h) {
  Factor<double> f = poisson_factor(h);
  const index_t n = f.A.size();
  for (index_t l = 0; l < n; ++l) {
    f.M.diag[l] = (h[l] + h[l + 1]) / 3;
    if (l + 1 < n) f.M.off[l] = h[l + 1] / 6;
  }
  return f;
}

/// Helmholtz with the second-order absorbing condition at both ends (eqs. 33–35): n = steps + 1
/// nodes, complex entries in the first and last rows of A and M.
inline Factor<std::complex<double>> helmholtz_factor(const std::vector<double>& h, double omega) {
  using C = std::complex<double>;
  const index_t n = static_cast<index_t>(h.size()) + 1;
  Factor<C> f;
  f.A.diag.resize(n);
  f.M.diag.resize(n);
  f.A.off.resize(n - 1);
  f.M.off.resize(n - 1);
  const C i(0, 1);
  for (index_t l = 1; l + 1 < n; ++l) {
    f.A.diag[l] = (h[l - 1] + h[l]) / (h[l - 1] * h[l]);
    f.M.diag[l] = (h[l - 1] + h[l]) / 3;
  }
  f.A.diag[0] = 1 / h[0] - i * omega / 2.0;
  f.A.diag[n - 1] = 1 / h[n - 2] - i * omega / 2.0;
  f.M.diag[0] = h[0] / 3 + i / (2 * omega);
  f.M.diag[n - 1] = h[n - 2] / 3 + i / (2 * omega);
  for (index_t l = 0; l + 1 < n; ++l) {
    f.A.off[l] = -1 / h[l];
    f.M.off[l] = h[l] / 6;
  }
  return f;
}

}  // namespace pscr::testing
