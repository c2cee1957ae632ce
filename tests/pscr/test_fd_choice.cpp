// The GPU solver's method choice (pscr/fd/choice.hpp) as a pure function of sizes, memory and
// the setup budget, and the FD setup's certificate (pscr/fd/setup.hpp), on the CPU.
#include <gtest/gtest.h>

#include <complex>
#include <string>
#include <variant>
#include <vector>

#include "problems/generate.hpp"
#include "pscr/fd/choice.hpp"
#include "pscr/fd/setup.hpp"
#include "tests/support/typed.hpp"

namespace pscr {
namespace {

using problems::Boundary;
using problems::Equation;
using problems::MeshKind;

constexpr std::size_t kGiB = std::size_t{1} << 30;

fd::ChoiceInput input(std::vector<index_t> shape, bool complex, std::size_t free) {
  fd::ChoiceInput in;
  in.shape = shape;
  in.dense.assign(shape.size() - 1, complex);
  in.scalar_bytes = complex ? 16 : 8;
  in.free_device_bytes = free;
  return in;
}

TEST(FdChoice, TwoDimensionalProblemsRunPscr) {
  for (index_t n : {3, 255, 1024, 8192})
    for (bool complex : {false, true})
      EXPECT_EQ(fd::choose_method(input({n, n}, complex, 140 * kGiB)).method, SolverMethod::pscr);
}

TEST(FdChoice, ThreeDimensionalProblemsRunFdWhereTheyFit) {
  for (index_t n : {1, 3, 31, 127, 255, 511}) {
    const fd::Choice c = fd::choose_method(input({n, n + 2, n + 1}, false, 140 * kGiB));
    EXPECT_EQ(c.method, SolverMethod::fast_diagonalization) << n << ": " << c.reason;
  }
  // 361³ Helmholtz (2.75 s measured setup) is within the default 5 s budget, 511³ (8.76 s) not.
  EXPECT_EQ(fd::choose_method(input({361, 361, 361}, true, 140 * kGiB)).method,
            SolverMethod::fast_diagonalization);
  const fd::Choice big = fd::choose_method(input({511, 511, 511}, true, 140 * kGiB));
  EXPECT_EQ(big.method, SolverMethod::pscr);
  EXPECT_NE(big.reason.find("budget"), std::string::npos) << big.reason;
  // A larger budget admits it; a zero budget admits nothing.
  auto generous = input({511, 511, 511}, true, 140 * kGiB);
  generous.setup_budget_s = 20;
  EXPECT_EQ(fd::choose_method(generous).method, SolverMethod::fast_diagonalization);
  auto none = input({31, 31, 31}, false, 140 * kGiB);
  none.setup_budget_s = 0;
  EXPECT_EQ(fd::choose_method(none).method, SolverMethod::pscr);
}

TEST(FdChoice, SingularProblemsAndPscrOnlyOptionsRunPscr) {
  auto singular = input({31, 31, 31}, false, 140 * kGiB);
  singular.singular = true;
  EXPECT_EQ(fd::choose_method(singular).method, SolverMethod::pscr);
  auto options = input({31, 31, 31}, false, 140 * kGiB);
  options.pscr_options = true;
  EXPECT_EQ(fd::choose_method(options).method, SolverMethod::pscr);
}

TEST(FdChoice, DeviceMemoryBoundIsNinetyPercentOfFree) {
  const std::vector<index_t> shape = {63, 31, 17};
  // (2 + 2) grids, W1 and W2, the last factors (4·(17 + 1)), one shift per system, workspace.
  const std::size_t scalars = 4 * 63 * 31 * 17 + 63 * 63 + 31 * 31 + 4 * 18 + 63 * 31;
  const std::size_t need = scalars * 16 + fd::kCublasWorkspaceBytes + sizeof(int);
  EXPECT_EQ(fd::fd_device_bytes(shape, 16, 2), need);
  EXPECT_EQ(fd::fd_device_bytes(shape, 16, 0), need - 2 * 63 * 31 * 17 * 16);
  const std::size_t enough = static_cast<std::size_t>(static_cast<double>(need) / 0.9) + 16;
  EXPECT_EQ(fd::choose_method(input(shape, true, enough)).method,
            SolverMethod::fast_diagonalization);
  const fd::Choice tight = fd::choose_method(input(shape, true, need));
  EXPECT_EQ(tight.method, SolverMethod::pscr);
  EXPECT_NE(tight.reason.find("MiB"), std::string::npos) << tight.reason;
}

TEST(FdChoice, SizesBeyondCublasIntsRunPscr) {
  EXPECT_EQ(fd::choose_method(input({3, 50000, 50000}, false, 1000 * kGiB)).method,
            SolverMethod::pscr);
}

TEST(FdChoice, SetupEstimateFollowsTheMeasuredRates) {
  // Dense (zggev): 8.76 s measured for two dimensions of 511; the model stays within 10%.
  const double dense = fd::fd_setup_seconds({511, 511, 511}, {true, true});
  EXPECT_GT(dense, 0.9 * 8.76);
  EXPECT_LT(dense, 1.1 * 8.76);
  // dstemr: 0.04 s measured at 511³; the model overestimates (certificate included), < 1 s.
  const double mrrr = fd::fd_setup_seconds({511, 511, 511}, {false, false});
  EXPECT_GT(mrrr, 0.04);
  EXPECT_LT(mrrr, 1.0);
  // Only dimensions 1..d−1 are set up: the last size does not count.
  EXPECT_EQ(fd::fd_setup_seconds({31, 31, 5}, {true, true}),
            fd::fd_setup_seconds({31, 31, 5000}, {true, true}));
}

TEST(FdChoice, MethodNames) {
  EXPECT_STREQ(to_string(SolverMethod::pscr), "pscr");
  EXPECT_STREQ(to_string(SolverMethod::fast_diagonalization), "fast_diagonalization");
  EXPECT_STREQ(to_string(SolverMethod::automatic), "automatic");
}

/// A 3D problem per scalar type: real Poisson on a random mesh (diagonal M: dstemr) and real
/// Helmholtz with Neumann sides (tridiagonal M: dsygvd); complex Helmholtz with absorbing sides.
template <class Scalar>
std::vector<Problem<Scalar>> problems_3d(const std::vector<index_t>& shape) {
  std::vector<Problem<Scalar>> out;
  auto make = [&](Equation eq, MeshKind mesh, Boundary side, std::uint64_t seed) {
    problems::ProblemSpec s;
    s.equation = eq;
    s.seed = seed;
    s.omega = 5.0;
    for (index_t n : shape) {
      problems::DimensionSpec d;
      d.n = n;
      d.mesh.kind = mesh;
      d.left = Boundary::dirichlet;
      d.right = side;
      s.dims.push_back(d);
    }
    out.push_back(std::get<Problem<Scalar>>(problems::generate(s)));
  };
  if constexpr (is_complex_v<Scalar>) {
    make(Equation::helmholtz, MeshKind::random, Boundary::absorbing, 5);
  } else {
    make(Equation::poisson, MeshKind::random, Boundary::dirichlet, 5);
    make(Equation::helmholtz, MeshKind::graded, Boundary::neumann, 6);
  }
  return out;
}

template <class Scalar>
class FdCertificateTest : public ::testing::Test {};
TYPED_TEST_SUITE(FdCertificateTest, testing::ScalarTypes);

TYPED_TEST(FdCertificateTest, PassesForTheLapackSetup) {
  using Scalar = TypeParam;
  for (const auto& shape : std::vector<std::vector<index_t>>{{1, 2, 3}, {15, 17, 4}, {33, 9, 5}})
    for (const auto& p : problems_3d<Scalar>(shape)) {
      const auto setup = fd::fd_setup(p.op);
      const fd::Certificate c = fd::certify(setup, p.op);
      EXPECT_TRUE(c.passed) << c.orthogonality << " " << c.backward_error;
      EXPECT_LE(c.orthogonality, fd::kCertifyTolerance);
      EXPECT_LE(c.backward_error, fd::kCertifyTolerance);
    }
}

TYPED_TEST(FdCertificateTest, FailsForPerturbedEigenvectorsOrEigenvalues) {
  using Scalar = TypeParam;
  const auto p = problems_3d<Scalar>({17, 15, 3})[0];
  const auto setup = fd::fd_setup(p.op);
  auto bad_w = setup;
  bad_w.eig[1].W[5 * 15 + 7] += Scalar(1e-9);
  const fd::Certificate cw = fd::certify(bad_w, p.op);
  EXPECT_FALSE(cw.passed);
  EXPECT_GT(cw.orthogonality, fd::kCertifyTolerance);
  auto bad_l = setup;
  bad_l.eig[0].lambda[3] *= 1 + 1e-9;
  const fd::Certificate cl = fd::certify(bad_l, p.op);
  EXPECT_FALSE(cl.passed);
  EXPECT_GT(cl.backward_error, fd::kCertifyTolerance);
  auto nan = setup;
  nan.eig[0].W[0] = Scalar(std::nan(""));
  EXPECT_FALSE(fd::certify(nan, p.op).passed);
}

TYPED_TEST(FdCertificateTest, FlagsShiftedSystemsThatThomasCannotSolveStably) {
  using Scalar = TypeParam;
  // Dimension 1: one unknown, λ = 2. Last dimension: A + 2 M has a zero pivot in row 0
  // (A(0, 0) = −2, M = I), then is well conditioned: LU without pivoting breaks down.
  const index_t n = 5;
  Factor<Scalar> first{{{Scalar(2)}, {}}, {{Scalar(1)}, {}}};
  std::vector<Scalar> diag(n, Scalar(4)), off(n - 1, Scalar(1));
  diag[0] = Scalar(-2);
  Factor<Scalar> last{{diag, off}, {std::vector<Scalar>(n, Scalar(1)), std::vector<Scalar>(n - 1)}};
  const SeparableOperator<Scalar> op({first, last}, Scalar(0));
  const auto setup = fd::fd_setup(op);
  const fd::Certificate c = fd::certify(setup, op);
  EXPECT_EQ(c.unstable_systems, 1);
  EXPECT_FALSE(c.passed);
  // Shifted away from the breakdown (c = 1: A + 3 M), the pivots grow by 1/|1| only: stable.
  const SeparableOperator<Scalar> shifted({first, last}, Scalar(1));
  const fd::Certificate ok = fd::certify(fd::fd_setup(shifted), shifted);
  EXPECT_EQ(ok.unstable_systems, 0);
  EXPECT_TRUE(ok.passed);
}

TEST(FdCertificate, DenseEigensolverWhereMIsNotDiagonalOrComplex) {
  const auto real = problems_3d<double>({5, 4, 3});
  EXPECT_FALSE(fd::uses_dense_eigensolver(real[0].op.factor(0)));  // lumped mass: dstemr
  EXPECT_TRUE(fd::uses_dense_eigensolver(real[1].op.factor(0)));   // consistent mass: dsygvd
  EXPECT_TRUE(
      fd::uses_dense_eigensolver(problems_3d<std::complex<double>>({5, 4, 3})[0].op.factor(0)));
}

}  // namespace
}  // namespace pscr
