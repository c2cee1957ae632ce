// The problem generators: factor entries by hand on tiny meshes, meshes, validation, right-hand
// sides, and generated systems solved by the SparseLU oracle.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <functional>
#include <initializer_list>
#include <numeric>
#include <string>

#include "common/error.hpp"
#include "problems/generate.hpp"
#include "tests/support/neumann.hpp"
#include "tests/support/oracle.hpp"
#include "tests/support/tolerance.hpp"

namespace pscr::problems {
namespace {

using cplx = std::complex<double>;
constexpr Boundary D = Boundary::dirichlet;
constexpr Boundary N = Boundary::neumann;
constexpr Boundary R = Boundary::absorbing;

/// Expects `call` to throw InputError whose message contains every one of `parts`.
void expect_input_error(const std::function<void()>& call,
                        std::initializer_list<std::string> parts) {
  try {
    call();
    ADD_FAILURE() << "expected InputError";
  } catch (const InputError& e) {
    const std::string msg = e.what();
    for (const auto& part : parts)
      EXPECT_NE(msg.find(part), std::string::npos)
          << "message '" << msg << "' lacks '" << part << "'";
  }
}

template <class Scalar>
void expect_tridiag(const SymTridiag<Scalar>& t, const std::vector<Scalar>& diag,
                    const std::vector<Scalar>& off, const char* what) {
  ASSERT_EQ(t.diag.size(), diag.size()) << what;
  ASSERT_EQ(t.off.size(), off.size()) << what;
  // Entries are a few exactly rounded operations on the steps.
  const double tol = testing::tolerance<double>(8);
  for (std::size_t k = 0; k < diag.size(); ++k)
    EXPECT_LE(std::abs(t.diag[k] - diag[k]), tol * std::abs(diag[k])) << what << " diag " << k;
  for (std::size_t k = 0; k < off.size(); ++k)
    EXPECT_LE(std::abs(t.off[k] - off[k]), tol * std::abs(off[k])) << what << " off " << k;
}

DimensionSpec dim(index_t n, Boundary left, Boundary right, MeshKind kind = MeshKind::uniform) {
  DimensionSpec d;
  d.n = n;
  d.left = left;
  d.right = right;
  d.mesh.kind = kind;
  return d;
}

double sum(const std::vector<double>& v) {
  return std::accumulate(v.begin(), v.end(), 0.0);
}

TEST(PoissonFactor, UniformDirichletByHand) {
  const auto steps = mesh_steps(dim(3, D, D), 1);
  ASSERT_EQ(steps, std::vector<double>(4, 0.25));
  const auto f = poisson_factor(steps, D, D);
  expect_tridiag<double>(f.A, {8, 8, 8}, {-4, -4}, "A");
  expect_tridiag<double>(f.M, {0.25, 0.25, 0.25}, {0, 0}, "M");
}

TEST(PoissonFactor, NonUniformAndNeumannEnds) {
  // Left Neumann: node 0 is an unknown with one step of 0.5; node 1 sits between 0.5 and 0.25.
  auto f = poisson_factor({0.5, 0.25}, N, D);
  expect_tridiag<double>(f.A, {2, 6}, {-2}, "A (N, D)");
  expect_tridiag<double>(f.M, {0.25, 0.375}, {0}, "M (N, D)");
  // Both Neumann: two nodes and one step.
  f = poisson_factor({0.5}, N, N);
  expect_tridiag<double>(f.A, {2, 2}, {-2}, "A (N, N)");
  expect_tridiag<double>(f.M, {0.25, 0.25}, {0}, "M (N, N)");
  // n = 1 between two Dirichlet nodes, and n = 1 with one Neumann end.
  f = poisson_factor({0.5, 0.25}, D, D);
  expect_tridiag<double>(f.A, {6}, {}, "A n=1 (D, D)");
  expect_tridiag<double>(f.M, {0.375}, {}, "M n=1 (D, D)");
  f = poisson_factor({0.25}, D, N);
  expect_tridiag<double>(f.A, {4}, {}, "A n=1 (D, N)");
  expect_tridiag<double>(f.M, {0.125}, {}, "M n=1 (D, N)");
}

TEST(HelmholtzFactor, UniformDirichletByHand) {
  const auto f = helmholtz_factor(mesh_steps(dim(3, D, D), 1), D, D, 2.0);
  expect_tridiag<cplx>(f.A, {8, 8, 8}, {-4, -4}, "A");
  expect_tridiag<cplx>(f.M, {1.0 / 6, 1.0 / 6, 1.0 / 6}, {1.0 / 24, 1.0 / 24}, "M");
}

TEST(HelmholtzFactor, NeumannAndAbsorbingEnds) {
  const double omega = 2.0;
  // Absorbing left end (eq. 35): A 1/h − iω/2, M h/3 + i/(2ω); Dirichlet right.
  auto f = helmholtz_factor({0.5, 0.25}, R, D, omega);
  expect_tridiag<cplx>(f.A, {cplx(2, -1), 6}, {-2}, "A (R, D)");
  expect_tridiag<cplx>(f.M, {cplx(0.5 / 3, 0.25), 0.25}, {0.5 / 6}, "M (R, D)");
  // Neumann right end: A 1/h, M h/3.
  f = helmholtz_factor({0.25, 0.5}, D, N, omega);
  expect_tridiag<cplx>(f.A, {6, 2}, {-2}, "A (D, N)");
  expect_tridiag<cplx>(f.M, {0.25, 0.5 / 3}, {0.5 / 6}, "M (D, N)");
  // Absorbing both ends, as in the paper's test problem.
  f = helmholtz_factor({0.5, 0.25}, R, R, omega);
  expect_tridiag<cplx>(f.A, {cplx(2, -1), 6, cplx(4, -1)}, {-2, -4}, "A (R, R)");
  expect_tridiag<cplx>(f.M, {cplx(0.5 / 3, 0.25), 0.25, cplx(0.25 / 3, 0.25)}, {0.5 / 6, 0.25 / 6},
                       "M (R, R)");
}

TEST(Factor, RejectsBadInput) {
  expect_input_error(
      [] {
        poisson_factor({0.5, 0.5}, R, D);
      },
      {"Poisson", "dirichlet or neumann", "absorbing/dirichlet"});
  expect_input_error([] { poisson_factor({1.0}, D, D); }, {"at least one unknown", "leave 0"});
  expect_input_error([] { poisson_factor({}, N, N); }, {"at least one unknown"});
  expect_input_error([] { poisson_factor({0.5, -0.5}, N, N); }, {"step 1", "positive", "-0.5"});
  expect_input_error([] { helmholtz_factor({0.5, 0.5}, R, R, 0.0); }, {"omega", "positive"});
  expect_input_error([] { helmholtz_factor({0.5, std::nan("")}, R, R, 1.0); }, {"step 1"});
}

TEST(MeshSteps, CountFollowsDirichletSides) {
  EXPECT_EQ(mesh_steps(dim(5, D, D), 1).size(), 6u);
  EXPECT_EQ(mesh_steps(dim(5, D, N), 1).size(), 5u);
  EXPECT_EQ(mesh_steps(dim(5, R, D), 1).size(), 5u);
  EXPECT_EQ(mesh_steps(dim(5, N, R), 1).size(), 4u);
  EXPECT_EQ(mesh_steps(dim(1, D, D), 1).size(), 2u);
  EXPECT_EQ(mesh_steps(dim(1, N, D), 1).size(), 1u);
  EXPECT_EQ(mesh_steps(dim(2, N, N), 1).size(), 1u);
}

TEST(MeshSteps, SumToLength) {
  for (const MeshKind kind : {MeshKind::uniform, MeshKind::graded, MeshKind::random}) {
    for (const index_t n : {1, 2, 3, 15, 16, 17, 64}) {
      auto d = dim(n, D, N, kind);
      d.mesh.length = 2.5;
      const auto steps = mesh_steps(d, 7);
      ASSERT_EQ(static_cast<index_t>(steps.size()), n);
      // A sum of n positive numbers: rounding grows at most like n.
      EXPECT_NEAR(sum(steps), 2.5, 2.5 * testing::tolerance<double>(4, n))
          << to_string(kind) << " n " << n;
      for (const double h : steps) EXPECT_GT(h, 0);
    }
  }
}

TEST(MeshSteps, GradedRatio) {
  for (const double ratio : {1.0, 2.0, 10.0, 1000.0}) {
    auto d = dim(17, D, D, MeshKind::graded);
    d.mesh.ratio = ratio;
    const auto steps = mesh_steps(d, 1);
    ASSERT_EQ(steps.size(), 18u);
    EXPECT_TRUE(std::is_sorted(steps.begin(), steps.end())) << "ratio " << ratio;
    // Geometric growth: consecutive steps have the same quotient ratio^(1/17).
    const double q = std::pow(ratio, 1.0 / 17);
    for (std::size_t k = 1; k < steps.size(); ++k)
      EXPECT_NEAR(steps[k] / steps[k - 1], q, testing::tolerance<double>(16)) << "k " << k;
    EXPECT_NEAR(steps.back() / steps.front(), ratio, ratio * testing::tolerance<double>(64));
    EXPECT_NEAR(sum(steps), 1.0, testing::tolerance<double>(64));
  }
  // One step: the whole interval, whatever the ratio.
  auto d = dim(1, N, D, MeshKind::graded);
  EXPECT_EQ(mesh_steps(d, 1), std::vector<double>{1.0});
}

TEST(MeshSteps, RandomIsReproducibleFromTheSeed) {
  auto d = dim(16, D, D, MeshKind::random);
  d.mesh.perturbation = 0.5;
  const auto a = mesh_steps(d, 42);
  EXPECT_EQ(a, mesh_steps(d, 42));
  const auto b = mesh_steps(d, 43);
  EXPECT_NE(a, b);
  // Before rescaling steps lie in h·[1 − p, 1 + p]; rescaling changes them by at most that much.
  const double h = 1.0 / 17;
  for (const double s : a) {
    EXPECT_GT(s, h * 0.5 / 1.5);
    EXPECT_LT(s, h * 1.5 / 0.5);
  }
  EXPECT_GT(*std::max_element(a.begin(), a.end()) - *std::min_element(a.begin(), a.end()), 0.1 * h);
  d.mesh.perturbation = 0;
  for (const double s : mesh_steps(d, 42)) EXPECT_NEAR(s, h, testing::tolerance<double>(4));
}

TEST(MeshSteps, RejectsImpossibleSpecs) {
  expect_input_error([] { mesh_steps(dim(0, D, D), 1); }, {"n must be >= 1", "got 0"});
  expect_input_error([] { mesh_steps(dim(1, N, N), 1); },
                     {"n = 1", "neumann/neumann", "no mesh step", "dirichlet side"});
  expect_input_error([] { mesh_steps(dim(1, R, N), 1); }, {"absorbing/neumann", "no mesh step"});
  auto graded = dim(4, D, D, MeshKind::graded);
  graded.mesh.ratio = 0.5;
  expect_input_error([&] { mesh_steps(graded, 1); }, {"ratio", ">= 1", "0.5"});
  auto random = dim(4, D, D, MeshKind::random);
  random.mesh.perturbation = 1.0;
  expect_input_error([&] { mesh_steps(random, 1); }, {"perturbation", "[0, 1)", "got 1"});
  random.mesh.perturbation = -0.1;
  expect_input_error([&] { mesh_steps(random, 1); }, {"perturbation", "-0.1"});
  auto length = dim(4, D, D);
  length.mesh.length = 0;
  expect_input_error([&] { mesh_steps(length, 1); }, {"length", "positive", "got 0"});
  length.mesh.length = -1;
  expect_input_error([&] { mesh_steps(length, 1); }, {"length", "got -1"});
}

TEST(Names, RoundTripAndRejectUnknown) {
  for (const auto e : {Equation::poisson, Equation::helmholtz})
    EXPECT_EQ(parse_equation(to_string(e)), e);
  for (const auto b : {D, N, R}) EXPECT_EQ(parse_boundary(to_string(b)), b);
  for (const auto m : {MeshKind::uniform, MeshKind::graded, MeshKind::random})
    EXPECT_EQ(parse_mesh_kind(to_string(m)), m);
  for (const auto r : {RhsKind::random, RhsKind::manufactured})
    EXPECT_EQ(parse_rhs_kind(to_string(r)), r);
  EXPECT_EQ(to_string(Equation::helmholtz), "helmholtz");
  EXPECT_EQ(to_string(R), "absorbing");
  expect_input_error([] { parse_equation("Poisson"); },
                     {"equation", "'Poisson'", "poisson, helmholtz"});
  expect_input_error([] { parse_boundary("robin"); },
                     {"boundary", "'robin'", "dirichlet, neumann, absorbing"});
  expect_input_error([] { parse_mesh_kind(""); }, {"mesh", "''", "uniform, graded, random"});
  expect_input_error([] { parse_rhs_kind("zero"); },
                     {"right-hand side", "'zero'", "random, manufactured"});
}

ProblemSpec spec_of(Equation equation, std::vector<DimensionSpec> dims) {
  ProblemSpec s;
  s.equation = equation;
  s.dims = std::move(dims);
  return s;
}

TEST(Generate, RejectsBadSpecs) {
  expect_input_error([] { generate(spec_of(Equation::poisson, {dim(3, D, D)})); },
                     {"2 or 3 dimensions", "got 1"});
  expect_input_error(
      [] { generate(spec_of(Equation::poisson, std::vector<DimensionSpec>(4, dim(3, D, D)))); },
      {"2 or 3 dimensions", "got 4"});
  auto s = spec_of(Equation::poisson, {dim(3, D, D), dim(3, D, R)});
  expect_input_error([&] { generate(s); },
                     {"dimension 2", "Helmholtz only", "dirichlet or neumann"});
  s = spec_of(Equation::poisson, {dim(3, D, D), dim(3, D, N)});
  s.screening = -1;
  expect_input_error([&] { generate(s); }, {"screening", ">= 0", "got -1"});
  s.screening = 0;
  s.nrhs = 0;
  expect_input_error([&] { generate(s); }, {"nrhs", ">= 1", "got 0"});
  s = spec_of(Equation::helmholtz, {dim(3, R, R), dim(3, R, R)});
  s.omega = -2;
  expect_input_error([&] { generate(s); }, {"omega", "positive", "got -2"});
  s = spec_of(Equation::helmholtz, {dim(3, R, R), dim(1, N, R)});
  expect_input_error([&] { generate(s); }, {"dimension 2", "no mesh step"});
}

TEST(Generate, RealOrComplex) {
  // Poisson is real, also screened with Neumann sides (and pure Neumann with c = 0).
  auto s = spec_of(Equation::poisson, {dim(3, N, N), dim(4, N, N)});
  EXPECT_TRUE(std::holds_alternative<Problem<double>>(generate(s)));
  s.screening = 2.5;
  const auto screened = std::get<Problem<double>>(generate(s));
  EXPECT_EQ(screened.op.c(), 2.5);
  // Helmholtz without an absorbing side is real, with c = −ω².
  s = spec_of(Equation::helmholtz, {dim(3, D, N), dim(4, N, D), dim(2, D, D)});
  s.omega = 3;
  const auto real = std::get<Problem<double>>(generate(s));
  EXPECT_EQ(real.op.c(), -9.0);
  EXPECT_DOUBLE_EQ(real.op.factor(1).M.off[0], 0.25 / 6);  // consistent mass, h = 1/4
  // One absorbing side anywhere makes it complex.
  s.dims[2].right = R;
  const auto complex = std::get<Problem<cplx>>(generate(s));
  EXPECT_EQ(complex.op.c(), cplx(-9.0));
  EXPECT_NE(complex.op.factor(2).A.diag.back().imag(), 0.0);
  EXPECT_EQ(complex.op.factor(0).A.diag.back().imag(), 0.0);
}

template <class Scalar>
void expect_f_is_a_u(const Problem<Scalar>& p) {
  ASSERT_EQ(p.u_exact.size(), p.f.size());
  const auto a = testing::assemble(p.op);
  const index_t n = p.op.grid_size();
  for (index_t k = 0; k < p.nrhs; ++k) {
    Eigen::Map<const Eigen::Matrix<Scalar, Eigen::Dynamic, 1>> u(p.u_exact.data() + k * n, n);
    const Eigen::Matrix<Scalar, Eigen::Dynamic, 1> ref = a * u;
    double err = 0;
    double scale = 0;
    for (index_t r = 0; r < n; ++r) {
      err = std::max(err, std::abs(p.f[k * n + r] - ref[r]));
      scale = std::max(scale, std::abs(ref[r]));
    }
    // Each entry sums at most 3^d · (d + 1) products of O(1/h) numbers.
    EXPECT_LE(err, scale * testing::tolerance<Scalar>(200)) << "rhs " << k;
  }
}

TEST(Generate, ManufacturedRightHandSideIsAu) {
  auto s = spec_of(Equation::poisson, {dim(5, D, N, MeshKind::graded), dim(4, N, D)});
  s.rhs = RhsKind::manufactured;
  s.nrhs = 2;
  s.screening = 0.5;
  const auto p = std::get<Problem<double>>(generate(s));
  EXPECT_EQ(p.nrhs, 2);
  EXPECT_TRUE(p.batched);
  EXPECT_EQ(p.f.size(), 2u * 20);
  expect_f_is_a_u(p);

  auto h = spec_of(Equation::helmholtz,
                   {dim(3, R, D, MeshKind::random), dim(4, N, R), dim(2, R, R, MeshKind::graded)});
  h.rhs = RhsKind::manufactured;
  const auto q = std::get<Problem<cplx>>(generate(h));
  EXPECT_FALSE(q.batched);
  EXPECT_NE(q.u_exact[0].imag(), 0.0);
  expect_f_is_a_u(q);
}

// Pure Neumann (c = 0): u is determined up to the null vector z; the manufactured u is the one
// with zᵀ M u = 0 that the solvers return, and f = A u still.
TEST(Generate, PureNeumannManufacturedSolutionHasMeanZero) {
  for (const auto& dims : {std::vector<DimensionSpec>{dim(6, N, N, MeshKind::random), dim(5, N, N)},
                           std::vector<DimensionSpec>{dim(4, N, N, MeshKind::graded), dim(3, N, N),
                                                      dim(5, N, N, MeshKind::random)}}) {
    auto s = spec_of(Equation::poisson, dims);
    s.rhs = RhsKind::manufactured;
    s.nrhs = 2;
    const auto p = std::get<Problem<double>>(generate(s));
    expect_f_is_a_u(p);
    const index_t n = p.op.grid_size();
    for (index_t k = 0; k < p.nrhs; ++k) {
      const double* u = p.u_exact.data() + k * n;
      EXPECT_LE(testing::neumann_mean(p.op, u), testing::tolerance<double>(100))
          << describe(s) << " rhs " << k;
      EXPECT_GT(norm2(u, n), 0.1 * std::sqrt(double(n))) << "u was not left random";
    }
  }
}

TEST(Generate, RandomRightHandSides) {
  auto s = spec_of(Equation::helmholtz, {dim(3, R, R), dim(5, R, R)});
  s.nrhs = 3;
  s.seed = 11;
  const auto p = std::get<Problem<cplx>>(generate(s));
  EXPECT_TRUE(p.u_exact.empty());
  ASSERT_EQ(p.f.size(), 3u * 15);
  for (const auto& x : p.f) {
    EXPECT_LT(std::abs(x.real()), 1.0);
    EXPECT_LT(std::abs(x.imag()), 1.0);
  }
  EXPECT_NE(p.f[0].imag(), 0.0);
  EXPECT_NE(p.f[0], p.f[15]);  // the grids differ from each other
  EXPECT_EQ(std::get<Problem<cplx>>(generate(s)).f, p.f);
  s.seed = 12;
  EXPECT_NE(std::get<Problem<cplx>>(generate(s)).f, p.f);
  // batched is kept for one right-hand side.
  s.nrhs = 1;
  EXPECT_FALSE(std::get<Problem<cplx>>(generate(s)).batched);
  s.batched = true;
  EXPECT_TRUE(std::get<Problem<cplx>>(generate(s)).batched);
}

TEST(Generate, RecordsSpecAndSteps) {
  auto s = spec_of(Equation::poisson,
                   {dim(3, D, D), dim(4, N, D, MeshKind::random), dim(2, D, N, MeshKind::graded)});
  s.dims[1].mesh.perturbation = 0.3;
  s.dims[2].mesh.ratio = 4;
  s.dims[2].mesh.length = 2.5;
  s.seed = 9;
  EXPECT_EQ(describe(s),
            "equation=poisson screening=0 rhs=random nrhs=1 batched=false seed=9 dims=3 "
            "n1=3 mesh1=uniform length1=1 left1=dirichlet right1=dirichlet "
            "n2=4 mesh2=random length2=1 perturbation2=0.3 left2=neumann right2=dirichlet "
            "n3=2 mesh3=graded length3=2.5 ratio3=4 left3=dirichlet right3=neumann");
  const auto p = std::get<Problem<double>>(generate(s));
  ASSERT_TRUE(p.generator.has_value());
  EXPECT_EQ(p.generator->description, describe(s));
  ASSERT_EQ(p.generator->steps.size(), 3u);
  for (std::size_t d = 0; d < 3; ++d)
    EXPECT_EQ(p.generator->steps[d], mesh_steps(s.dims[d], stream_seed(9, 1 + d))) << d;
  // Dimensions draw independent random meshes from the one seed.
  s.dims[0] = s.dims[1];
  const auto q = std::get<Problem<double>>(generate(s));
  EXPECT_NE(q.generator->steps[0], q.generator->steps[1]);
  auto h = spec_of(Equation::helmholtz, {dim(3, R, R), dim(3, R, R)});
  h.omega = 12.5;
  EXPECT_EQ(describe(h).substr(0, 35), "equation=helmholtz omega=12.5 rhs=r");
}

template <class Scalar>
void expect_oracle_solves(const ProblemSpec& s) {
  const auto p = std::get<Problem<Scalar>>(generate(s));
  const auto u = testing::sparse_lu_solve(p.op, p.f.data());
  // A direct solve of a small well-conditioned system: the residual is a modest multiple of eps.
  EXPECT_LE(p.op.relative_residual(u.data(), p.f.data()), testing::tolerance<Scalar>(1e4))
      << describe(s);
}

TEST(Generate, PoissonSystemsAreNonsingular) {
  auto s =
      spec_of(Equation::poisson, {dim(7, D, N, MeshKind::graded), dim(5, N, D, MeshKind::random)});
  expect_oracle_solves<double>(s);
  s = spec_of(Equation::poisson,
              {dim(3, N, D, MeshKind::random), dim(1, D, D), dim(5, D, N, MeshKind::graded)});
  expect_oracle_solves<double>(s);
  // Screened, Neumann on every side (image smoothing).
  s = spec_of(Equation::poisson, {dim(5, N, N, MeshKind::random), dim(6, N, N)});
  s.screening = 1;
  expect_oracle_solves<double>(s);
}

TEST(Generate, HelmholtzSystemsAreNonsingular) {
  // The paper's problem: absorbing on every side.
  auto s = spec_of(Equation::helmholtz,
                   {dim(7, R, R, MeshKind::random), dim(5, R, R, MeshKind::graded)});
  expect_oracle_solves<cplx>(s);
  s = spec_of(Equation::helmholtz,
              {dim(3, R, D), dim(4, N, R, MeshKind::random), dim(5, D, N, MeshKind::graded)});
  s.omega = 7.3;
  expect_oracle_solves<cplx>(s);
  // Real Helmholtz (Dirichlet/Neumann), ω away from the resonances of this small box.
  s = spec_of(Equation::helmholtz, {dim(5, D, N), dim(3, N, D, MeshKind::random)});
  s.omega = 3.7;
  expect_oracle_solves<double>(s);
}

// HelmholtzPencil::eigen_shifts: λ_j − ω² for the eigenvalues λ_j of the other pencil (m rows, its
// random mesh from the seed, this pencil's ω, absorbing ends), ascending in real part and repeated
// with period m; checked against Eigen's dense eigensolver on M⁻¹A (shares no code with
// eigen_init). At m = n about a fifth of the shifts lie below 0 (λ_j below ω²), which is what
// makes them PSCR's and not shift()'s, whose share there is a twentieth.
TEST(HelmholtzPencil, EigenShiftsAreTheOtherPencilsEigenvaluesLessOmegaSquared) {
  const index_t n = 63, m = 31;
  const std::uint64_t seed = 5;
  const HelmholtzPencil pencil(n, seed);
  const std::vector<cplx> shifts = pencil.eigen_shifts(2 * m + 3, m, seed + 1);
  ASSERT_EQ(shifts.size(), static_cast<std::size_t>(2 * m + 3));
  const double omega = 2.0 * M_PI * static_cast<double>(n + 1) / 10.0;
  DimensionSpec dim;
  dim.n = m;
  dim.mesh.kind = MeshKind::random;
  dim.left = dim.right = Boundary::absorbing;
  const Factor<cplx> other =
      helmholtz_factor(mesh_steps(dim, seed + 1), dim.left, dim.right, omega);
  Eigen::MatrixXcd A = Eigen::MatrixXcd::Zero(m, m), M = Eigen::MatrixXcd::Zero(m, m);
  for (index_t i = 0; i < m; ++i) {
    A(i, i) = other.A.diag[i];
    M(i, i) = other.M.diag[i];
  }
  for (index_t i = 0; i + 1 < m; ++i) {
    A(i, i + 1) = A(i + 1, i) = other.A.off[i];
    M(i, i + 1) = M(i + 1, i) = other.M.off[i];
  }
  const Eigen::MatrixXcd MinvA = M.lu().solve(A);
  const Eigen::VectorXcd eig =
      Eigen::ComplexEigenSolver<Eigen::MatrixXcd>(MinvA, false).eigenvalues();
  std::vector<cplx> expected(eig.data(), eig.data() + m);
  std::sort(expected.begin(), expected.end(),
            [](const cplx& x, const cplx& y) { return x.real() < y.real(); });
  double scale = 0;
  for (const cplx& l : expected) scale = std::max(scale, std::abs(l));
  for (index_t k = 0; k < 2 * m + 3; ++k) {
    EXPECT_LE(std::abs(shifts[k] + omega * omega - expected[k % m]), 1e-9 * scale) << "shift " << k;
    if (k > 0 && k % m != 0) EXPECT_LE(shifts[k - 1].real(), shifts[k].real()) << "shift " << k;
  }
  // A fifth below zero at m = n (here 1023), a twentieth of shift()'s.
  const index_t big = 1023;
  const HelmholtzPencil wide(big, seed);
  const std::vector<cplx> pscr = wide.eigen_shifts(big, big, seed + 1);
  const auto below =
      std::count_if(pscr.begin(), pscr.end(), [](const cplx& s) { return s.real() < 0; });
  index_t even_below = 0;
  for (index_t j = 0; j < big; ++j) even_below += wide.shift(j, big).real() < 0;
  EXPECT_GE(below, big / 7);
  EXPECT_LE(below, big / 4);
  EXPECT_GE(below, 3 * even_below);
  EXPECT_THROW(pencil.eigen_shifts(4, 0, seed), InputError);
}

}  // namespace
}  // namespace pscr::problems
