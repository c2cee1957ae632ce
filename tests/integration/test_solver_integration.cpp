// End-to-end solves with the CPU PSCR backend at larger sizes: manufactured solutions of Poisson
// (2D up to 2047², 3D 63³) and Helmholtz (10 and 5 points per wavelength), checking the relative
// residual against the bounds of the CPU-backend issue (1e-11 Poisson, 1e-9 Helmholtz), the
// error against the residual and an estimate of the condition number, and thread-count
// independence.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <sstream>
#include <string>
#include <vector>

#include "problems/generate.hpp"
#include "pscr/reference/solver.hpp"
#include "tests/support/random.hpp"

namespace pscr {
namespace {

using problems::Boundary;
using problems::DimensionSpec;
using problems::MeshKind;
using problems::ProblemSpec;
using Complex = std::complex<double>;

template <class Scalar>
double norm(const std::vector<Scalar>& x) {
  return static_cast<double>(norm2(x.data(), static_cast<index_t>(x.size())));
}

template <class Scalar>
double relative_difference(const std::vector<Scalar>& a, const std::vector<Scalar>& b) {
  std::vector<Scalar> d(a.size());
  for (std::size_t k = 0; k < a.size(); ++k) d[k] = a[k] - b[k];
  return norm(d) / norm(b);
}

/// κ₂(A) estimated from below: ‖A‖ by 8 steps of the power method on a random vector, ‖A⁻¹‖ by
/// 2 steps of inverse iteration (two solves) from the constant vector, which the smooth,
/// slowest modes of these operators dominate.
template <class Scalar>
double condition_estimate(const SeparableOperator<Scalar>& op, reference::Solver<Scalar>& solver) {
  const index_t n = op.grid_size();
  auto x = testing::random_vector<Scalar>(n, 5);
  std::vector<Scalar> y(n);
  double big = 0;
  for (int it = 0; it < 8; ++it) {
    op.apply(x.data(), y.data());
    big = norm(y) / norm(x);
    const double s = 1.0 / norm(y);
    for (index_t k = 0; k < n; ++k) x[k] = y[k] * s;
  }
  std::vector<Scalar> v(n, Scalar(1));
  double small_inv = 0;
  for (int it = 0; it < 2; ++it) {
    solver.solve(v.data(), y.data());
    small_inv = norm(y) / norm(v);
    const double s = 1.0 / norm(y);
    for (index_t k = 0; k < n; ++k) v[k] = y[k] * s;
  }
  return big * small_inv;
}

struct Expect {
  double residual;  ///< bound on ‖A u − f‖/‖f‖
  bool check_condition;
};

/// Generates the problem with a manufactured solution u*, solves, checks residual and error.
template <class Scalar>
void manufactured(const ProblemSpec& spec_in, const Expect& expect) {
  ProblemSpec spec = spec_in;
  spec.rhs = problems::RhsKind::manufactured;
  SCOPED_TRACE(problems::describe(spec));
  auto any = problems::generate(spec);
  const auto& p = std::get<Problem<Scalar>>(any);
  reference::Solver<Scalar> solver(p.op);
  std::vector<Scalar> u(p.f.size());
  solver.solve(p.f.data(), u.data());
  const double res = p.op.relative_residual(u.data(), p.f.data());
  const double err = relative_difference(u, p.u_exact);
  EXPECT_LE(res, expect.residual);
  // The solver computes its residual in another order: equal up to the rounding of a residual.
  EXPECT_NEAR(solver.last_solve().residual, res, 0.5 * res + 1e-15);
  // Recorded in the test report (--gtest_output), one entry per problem of the test.
  std::ostringstream what;
  what << "residual " << res << ", error " << err << ", initial residual "
       << solver.last_solve().initial_residual << ", refinements "
       << solver.last_solve().refinements << ", pivoted " << solver.last_solve().pivoted;
  static int problem = 0;
  ::testing::Test::RecordProperty("problem " + std::to_string(++problem), what.str());
  if (expect.check_condition) {
    // ‖u − u*‖/‖u*‖ ≤ κ ‖A u − f‖/‖f‖ (κ estimated from below, hence the factor 10).
    const double kappa = condition_estimate(p.op, solver);
    EXPECT_LE(err, 10 * kappa * res) << "kappa ~ " << kappa << ", residual " << res;
  } else {
    EXPECT_LE(err, 1e3 * expect.residual);
  }
}

DimensionSpec dim(index_t n, MeshKind mesh, Boundary left, Boundary right) {
  DimensionSpec d;
  d.n = n;
  d.mesh.kind = mesh;
  d.mesh.ratio = 10.0;
  d.left = left;
  d.right = right;
  return d;
}

/// ω for `ppw` points per wavelength on the unit interval with n unknowns and absorbing ends
/// (n − 1 steps): wavelength 2π/ω = ppw·h.
double omega_for(index_t n, double ppw) {
  return 2 * M_PI * static_cast<double>(n - 1) / ppw;
}

constexpr auto D = Boundary::dirichlet;
constexpr auto N = Boundary::neumann;
constexpr auto A = Boundary::absorbing;

TEST(SolverIntegration, Poisson2d) {
  ProblemSpec spec;
  spec.dims = {dim(2047, MeshKind::uniform, D, D), dim(2047, MeshKind::uniform, D, D)};
  manufactured<double>(spec, {1e-11, true});
  spec.dims = {dim(1023, MeshKind::random, D, N), dim(2047, MeshKind::graded, N, D)};
  manufactured<double>(spec, {1e-11, true});
}

TEST(SolverIntegration, Poisson3d) {
  ProblemSpec spec;
  spec.dims = {dim(63, MeshKind::uniform, D, D), dim(63, MeshKind::uniform, D, D),
               dim(63, MeshKind::uniform, D, D)};
  manufactured<double>(spec, {1e-11, true});
  spec.dims = {dim(64, MeshKind::random, N, D), dim(63, MeshKind::graded, D, D),
               dim(65, MeshKind::random, D, N)};
  manufactured<double>(spec, {1e-11, true});
}

TEST(SolverIntegration, Helmholtz2dTenAndFivePointsPerWavelength) {
  for (double ppw : {10.0, 5.0}) {
    ProblemSpec spec;
    spec.equation = problems::Equation::helmholtz;
    spec.dims = {dim(2047, MeshKind::uniform, A, A), dim(2047, MeshKind::uniform, A, A)};
    spec.omega = omega_for(2047, ppw);
    manufactured<Complex>(spec, {1e-9, false});
  }
  ProblemSpec spec;
  spec.equation = problems::Equation::helmholtz;
  spec.dims = {dim(1023, MeshKind::random, A, A), dim(511, MeshKind::graded, A, D)};
  spec.omega = omega_for(1023, 10.0);
  manufactured<Complex>(spec, {1e-9, false});
}

TEST(SolverIntegration, Helmholtz3dTenAndFivePointsPerWavelength) {
  for (double ppw : {10.0, 5.0}) {
    ProblemSpec spec;
    spec.equation = problems::Equation::helmholtz;
    spec.dims = {dim(63, MeshKind::uniform, A, A), dim(63, MeshKind::uniform, A, A),
                 dim(63, MeshKind::uniform, A, A)};
    spec.omega = omega_for(63, ppw);
    manufactured<Complex>(spec, {1e-9, false});
  }
}

/// Bitwise the same solution on 1 and 2 threads, at a size where every level runs in parallel.
TEST(SolverIntegration, ThreadCountIndependence) {
  ProblemSpec spec;
  spec.equation = problems::Equation::helmholtz;
  spec.dims = {dim(1023, MeshKind::random, A, A), dim(1023, MeshKind::random, A, A)};
  spec.omega = omega_for(1023, 10.0);
  auto any = problems::generate(spec);
  const auto& p = std::get<Problem<Complex>>(any);
  std::vector<std::vector<Complex>> u;
  for (int threads : {1, 2}) {
    reference::SolverOptions opt;
    opt.threads = threads;
    reference::Solver<Complex> solver(p.op, opt);
    u.emplace_back(p.f.size());
    solver.solve(p.f.data(), u.back().data());
  }
  EXPECT_TRUE(u[0] == u[1]);

  ProblemSpec spec3;
  spec3.dims = {dim(63, MeshKind::random, D, D), dim(64, MeshKind::random, D, N),
                dim(65, MeshKind::graded, N, D)};
  auto any3 = problems::generate(spec3);
  const auto& p3 = std::get<Problem<double>>(any3);
  std::vector<std::vector<double>> u3;
  for (int threads : {1, 2}) {
    reference::SolverOptions opt;
    opt.threads = threads;
    reference::Solver<double> solver(p3.op, opt);
    u3.emplace_back(p3.f.size());
    solver.solve(p3.f.data(), u3.back().data());
  }
  EXPECT_TRUE(u3[0] == u3[1]);
}

}  // namespace
}  // namespace pscr
