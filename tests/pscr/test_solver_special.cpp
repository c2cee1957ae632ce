// The CPU PSCR solver beyond the generated problems: random factor pencils, singular (pure
// Neumann) problems and their mean-zero solutions, shifts that hit an eigenvalue, thread-count
// independence, several right-hand sides, aliasing, options.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <vector>

#include "common/error.hpp"
#include "problems/generate.hpp"
#include "pscr/reference/solver.hpp"
#include "tests/support/neumann.hpp"
#include "tests/support/oracle.hpp"
#include "tests/support/random.hpp"
#include "tests/support/tolerance.hpp"
#include "tests/support/typed.hpp"

namespace pscr {
namespace {

using problems::Boundary;
using problems::DimensionSpec;
using problems::MeshKind;
using problems::ProblemSpec;

template <class Scalar>
double relative_difference(const std::vector<Scalar>& a, const std::vector<Scalar>& b) {
  double diff = 0, ref = 0;
  for (std::size_t k = 0; k < a.size(); ++k) {
    diff += abs2(a[k] - b[k]);
    ref += abs2(b[k]);
  }
  return std::sqrt(diff / ref);
}

/// A random symmetric tridiagonal matrix with entries U(−1, 1) (both parts when complex), plus
/// `shift` on the diagonal.
template <class Scalar>
SymTridiag<Scalar> random_tridiag(index_t n, double shift, std::uint64_t seed) {
  SymTridiag<Scalar> t;
  t.diag = testing::random_vector<Scalar>(n, seed);
  t.off = testing::random_vector<Scalar>(n - 1, seed + 1);
  for (auto& d : t.diag) d += Scalar(shift);
  return t;
}

/// Random pencils: A_d arbitrary symmetric, M_d symmetric and diagonally dominant (positive
/// definite in the real case), c random.
template <class Scalar>
SeparableOperator<Scalar> random_operator(const std::vector<index_t>& shape, std::uint64_t seed) {
  std::vector<Factor<Scalar>> factors;
  for (std::size_t d = 0; d < shape.size(); ++d)
    factors.push_back({random_tridiag<Scalar>(shape[d], 0.0, seed + 10 * d),
                       random_tridiag<Scalar>(shape[d], 3.0, seed + 10 * d + 5)});
  return SeparableOperator<Scalar>(std::move(factors),
                                   testing::random_vector<Scalar>(1, seed + 99)[0]);
}

template <class Scalar>
class SolverRandomPencils : public ::testing::Test {};
TYPED_TEST_SUITE(SolverRandomPencils, testing::ScalarTypes);

TYPED_TEST(SolverRandomPencils, MatchOracle) {
  using Scalar = TypeParam;
  const std::vector<std::vector<index_t>> shapes = {{1, 1},     {2, 7},     {5, 3},   {16, 17},
                                                    {17, 16},   {31, 9},    {64, 5},  {3, 4, 5},
                                                    {17, 2, 9}, {5, 16, 7}, {1, 1, 3}};
  std::uint64_t seed = 500;
  for (const auto& shape : shapes) {
    SCOPED_TRACE(::testing::PrintToString(shape));
    const auto op = random_operator<Scalar>(shape, seed);
    const auto f = testing::random_vector<Scalar>(op.grid_size(), seed + 1);
    seed += 50;
    const auto ref = testing::sparse_lu_solve(op, f.data());
    reference::Solver<Scalar> solver(op);
    std::vector<Scalar> u(f.size());
    solver.solve(f.data(), u.data());
    // Random indefinite pencils: the refinement brings the residual to its tolerance; the error
    // is bounded by the conditioning, moderate for these diagonally shifted masses.
    EXPECT_LE(op.relative_residual(u.data(), f.data()),
              reference::SolverOptions{}.refine_tolerance);
    EXPECT_LE(relative_difference(u, ref), 1e-7);
  }
}

/// Pure Neumann Poisson (c = 0): singular, with e = ones as null vector of every A_d.
ProblemSpec neumann_spec(const std::vector<index_t>& shape, MeshKind mesh, std::uint64_t seed) {
  ProblemSpec spec;
  for (index_t n : shape) {
    DimensionSpec d;
    d.n = n;
    d.mesh.kind = mesh;
    d.left = d.right = Boundary::neumann;
    spec.dims.push_back(d);
  }
  spec.seed = seed;
  return spec;
}

TEST(SolverSingular, MeanZeroSolutionOfPureNeumann) {
  const std::vector<std::vector<index_t>> shapes = {{2, 2},    {5, 17},     {16, 3},   {64, 65},
                                                    {4, 4, 4}, {17, 5, 16}, {2, 63, 3}};
  std::uint64_t seed = 40;
  for (const auto& shape : shapes)
    for (MeshKind mesh : {MeshKind::uniform, MeshKind::random}) {
      SCOPED_TRACE(::testing::PrintToString(shape));
      auto any = problems::generate(neumann_spec(shape, mesh, ++seed));
      const auto& p = std::get<Problem<double>>(any);
      reference::Solver<double> solver(p.op);
      ASSERT_TRUE(solver.singular());
      std::vector<double> u(p.f.size());
      solver.solve(p.f.data(), u.data());
      // u solves A u = f̂ (f projected onto the range of A) and eᵀ M u = 0.
      const auto fhat = testing::project_neumann(p.op, p.f.data());
      // The singular problems are worse conditioned (κ ~ n²/h-scale of the Neumann Laplacian):
      // measured worst 1.5e-12.
      EXPECT_LE(p.op.relative_residual(u.data(), fhat.data()), 1e-11);
      EXPECT_LE(testing::neumann_mean(p.op, u.data()), testing::tolerance<double>(100));
    }
}

TEST(SolverSingular, ConsistentRightHandSideGivesTheExactSolution) {
  for (const auto& shape : std::vector<std::vector<index_t>>{{17, 33}, {9, 4, 17}}) {
    auto any = problems::generate(neumann_spec(shape, MeshKind::graded, 3));
    const auto& p = std::get<Problem<double>>(any);
    // u* of mean zero, f = A u* (consistent: eᵀ f = 0).
    auto ustar = testing::random_vector<double>(p.op.grid_size(), 11);
    const auto me = testing::mass_of_ones(p.op);
    double emu = 0, eme = 0;
    for (std::size_t k = 0; k < ustar.size(); ++k) {
      emu += me[k] * ustar[k];
      eme += me[k];
    }
    for (auto& v : ustar) v -= emu / eme;
    std::vector<double> f(ustar.size()), u(ustar.size());
    p.op.apply(ustar.data(), f.data());
    reference::Solver<double> solver(p.op);
    solver.solve(f.data(), u.data());
    EXPECT_LE(relative_difference(u, ustar), 1e-10);
  }
}

TEST(SolverSingular, PartlyNeumannOrScreenedIsRegular) {
  ProblemSpec spec = neumann_spec({9, 17}, MeshKind::uniform, 5);
  spec.dims[1].right = Boundary::dirichlet;
  auto any = problems::generate(spec);
  EXPECT_FALSE(reference::Solver<double>(std::get<Problem<double>>(any).op).singular());
  spec = neumann_spec({9, 17}, MeshKind::uniform, 5);
  spec.screening = 0.5;
  auto screened = problems::generate(spec);
  const auto& p = std::get<Problem<double>>(screened);
  reference::Solver<double> solver(p.op);
  EXPECT_FALSE(solver.singular());
  std::vector<double> u(p.f.size());
  solver.solve(p.f.data(), u.data());
  EXPECT_LE(p.op.relative_residual(u.data(), p.f.data()), testing::tolerance<double>(1e3));
}

TEST(SolverSingular, ShiftOnAnEigenvalueIsASolverError) {
  // A = A1⊗M2 + M1⊗A2 + c M1⊗M2 with 1×1 factors 2, 1, 2, 1 and c = −4: A = 0.
  SymTridiag<double> two{{2.0}, {}}, one{{1.0}, {}};
  SeparableOperator<double> op({{two, one}, {two, one}}, -4.0);
  reference::Solver<double> solver(op);
  std::vector<double> f = {1.0}, u(1);
  EXPECT_THROW(solver.solve(f.data(), u.data()), SolverError);
  // 1×3: A2 = 2I, M2 = I, so every row system A2 + (λ1 + c) M2 = A2 − 2 M2 is zero.
  SymTridiag<double> a2{{2.0, 2.0, 2.0}, {0.0, 0.0}}, m2{{1.0, 1.0, 1.0}, {0.0, 0.0}};
  SeparableOperator<double> op3({{two, one}, {a2, m2}}, -4.0);
  reference::Solver<double> solver3(op3);
  std::vector<double> f3 = {1.0, 2.0, 3.0}, u3(3);
  try {
    solver3.solve(f3.data(), u3.data());
    ADD_FAILURE() << "expected a SolverError";
  } catch (const SolverError& e) {
    EXPECT_NE(std::string(e.what()).find("singular"), std::string::npos) << e.what();
  }
  // Complex: the monitored Thomas flags the zero pivot, the pivoting solver confirms it.
  using C = std::complex<double>;
  SymTridiag<C> ctwo{{2.0}, {}}, cone{{1.0}, {}}, a2c{{C(2.0, 1.0)}, {}};
  SeparableOperator<C> cop({{ctwo, cone}, {a2c, cone}}, C(-4.0, -1.0));
  reference::Solver<C> csolver(cop);
  std::vector<C> cf = {1.0}, cu(1);
  try {
    csolver.solve(cf.data(), cu.data());
    ADD_FAILURE() << "expected a SolverError";
  } catch (const SolverError& e) {
    EXPECT_NE(std::string(e.what()).find("level 1, block [0, 0]"), std::string::npos) << e.what();
  }
}

template <class Scalar>
class SolverThreads : public ::testing::Test {};
TYPED_TEST_SUITE(SolverThreads, testing::ScalarTypes);

/// Bitwise the same solution for 1, 2 and 3 threads (the schedule fixes every sum).
TYPED_TEST(SolverThreads, ResultDoesNotDependOnTheThreadCount) {
  using Scalar = TypeParam;
  for (const auto& shape : std::vector<std::vector<index_t>>{{129, 65}, {33, 17, 40}}) {
    ProblemSpec spec;
    spec.equation =
        is_complex_v<Scalar> ? problems::Equation::helmholtz : problems::Equation::poisson;
    for (index_t n : shape) {
      DimensionSpec d;
      d.n = n;
      d.mesh.kind = MeshKind::random;
      if (is_complex_v<Scalar>) d.left = d.right = Boundary::absorbing;
      spec.dims.push_back(d);
    }
    spec.omega = 30;
    auto any = problems::generate(spec);
    const auto& p = std::get<Problem<Scalar>>(any);
    std::vector<std::vector<Scalar>> results;
    for (int threads : {1, 2, 3}) {
      reference::SolverOptions opt;
      opt.threads = threads;
      reference::Solver<Scalar> solver(p.op, opt);
      EXPECT_EQ(solver.threads(), threads);
      results.emplace_back(p.f.size());
      solver.solve(p.f.data(), results.back().data());
    }
    for (std::size_t t = 1; t < results.size(); ++t)
      for (std::size_t k = 0; k < results[0].size(); ++k)
        ASSERT_EQ(results[t][k], results[0][k]) << "threads " << t + 1 << ", entry " << k;
  }
}

TEST(SolverApi, SolveManyMatchesSolveAndAllowsAliasing) {
  ProblemSpec spec;
  spec.dims = {{37}, {21}};
  spec.nrhs = 3;
  auto any = problems::generate(spec);
  const auto& p = std::get<Problem<double>>(any);
  reference::Solver<double> solver(p.op);
  const index_t n = p.op.grid_size();
  std::vector<double> many(p.f.size());
  solver.solve_many(3, p.f.data(), many.data());
  EXPECT_EQ(solver.last_solve().right_hand_sides, 3);
  EXPECT_GT(solver.last_solve().flops, 0);
  EXPECT_GT(solver.init_seconds(), 0);
  for (index_t r = 0; r < 3; ++r) {
    std::vector<double> one(p.f.begin() + r * n, p.f.begin() + (r + 1) * n);
    solver.solve(one.data(), one.data());  // u aliases f
    for (index_t k = 0; k < n; ++k) EXPECT_EQ(one[k], many[r * n + k]);
  }
  solver.solve_many(0, nullptr, nullptr);
  EXPECT_EQ(solver.last_solve().right_hand_sides, 0);
}

TEST(SolverApi, RejectsBadOptionsAndArguments) {
  ProblemSpec spec;
  spec.dims = {{5}, {6}};
  auto any = problems::generate(spec);
  const auto& op = std::get<Problem<double>>(any).op;
  reference::SolverOptions bad;
  bad.threads = -1;
  EXPECT_THROW(reference::Solver<double>(op, bad), InputError);
  bad = {};
  bad.max_refinements = -2;
  EXPECT_THROW(reference::Solver<double>(op, bad), InputError);
  reference::Solver<double> solver(op);
  EXPECT_THROW(solver.solve_many(-1, nullptr, nullptr), InputError);
  EXPECT_THROW(solver.solve(nullptr, nullptr), InputError);
}

TEST(SolverApi, PivotingModesAgree) {
  ProblemSpec spec;
  spec.equation = problems::Equation::helmholtz;
  spec.dims = {{65, {}, Boundary::absorbing, Boundary::absorbing},
               {63, {}, Boundary::absorbing, Boundary::absorbing}};
  spec.omega = 40;  // ~10 points per wavelength
  auto any = problems::generate(spec);
  const auto& p = std::get<Problem<std::complex<double>>>(any);
  std::vector<std::vector<std::complex<double>>> u;
  std::vector<index_t> pivoted;
  for (auto mode :
       {reference::Pivoting::automatic, reference::Pivoting::never, reference::Pivoting::always}) {
    reference::SolverOptions opt;
    opt.pivoting = mode;
    reference::Solver<std::complex<double>> solver(p.op, opt);
    u.emplace_back(p.f.size());
    solver.solve(p.f.data(), u.back().data());
    pivoted.push_back(solver.last_solve().pivoted);
    EXPECT_LE(p.op.relative_residual(u.back().data(), p.f.data()), 1e-10);
  }
  EXPECT_EQ(pivoted[1], 0);
  EXPECT_GT(pivoted[2], pivoted[0]);
  EXPECT_LE(relative_difference(u[1], u[0]), 1e-10);
  EXPECT_LE(relative_difference(u[2], u[0]), 1e-10);
}

}  // namespace
}  // namespace pscr
