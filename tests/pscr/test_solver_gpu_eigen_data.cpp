// The GPU solver from precomputed eigen-data (issue 3: initialize once, solve many times): built
// from another GPU solver's eigen_data(), or from the CPU solver's, it gives bitwise the solution
// of the GPU solver that computed them, on every case of test_solver_gpu_cases.hpp; eigen-data
// of another size are refused with InputError. Needs a CUDA device (label gpu).
#include <gtest/gtest.h>

#include <vector>

#include "common/cuda/check.hpp"
#include "common/error.hpp"
#include "pscr/cuda/solver.hpp"
#include "pscr/reference/solver.hpp"
#include "tests/pscr/test_solver_gpu_cases.hpp"
#include "tests/support/typed.hpp"

namespace pscr {
namespace {

template <class Scalar>
class SolverGpuEigenDataTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (cuda::device_count() == 0) GTEST_SKIP() << "no CUDA device";
  }
};
TYPED_TEST_SUITE(SolverGpuEigenDataTest, testing::ScalarTypes);

template <class Scalar>
std::vector<Scalar> solve(cuda::Solver<Scalar>& solver, const std::vector<Scalar>& f) {
  std::vector<Scalar> u(f.size());
  solver.solve(f.data(), u.data());
  return u;
}

TYPED_TEST(SolverGpuEigenDataTest, BitwiseFromGivenEigenData) {
  using Scalar = TypeParam;
  int ran = 0;
  for (const auto& c : testing::gpu_cases()) {
    if (!c.template runs_as<Scalar>()) continue;
    SCOPED_TRACE(c.name());
    const Problem<Scalar> p = testing::make_problem<Scalar>(c);
    // PSCR explicitly: the automatic choice may run FD in 3D, whose solution is not PSCR's bits.
    cuda::SolverOptions pscr_options;
    pscr_options.method = SolverMethod::pscr;
    cuda::Solver<Scalar> computed(p.op, pscr_options);
    ASSERT_EQ(static_cast<int>(computed.eigen_data().size()), p.op.dimension() - 1);
    const std::vector<Scalar> u = solve(computed, p.f);
    cuda::Solver<Scalar> given(p.op, computed.eigen_data(), {});
    const std::vector<Scalar> u_given = solve(given, p.f);
    // The CPU solver's eigen-data: the same computation (compute_plan_eigen_data).
    reference::Solver<Scalar> cpu(p.op);
    cuda::Solver<Scalar> from_cpu(p.op, cpu.eigen_data(), {});
    const std::vector<Scalar> u_cpu = solve(from_cpu, p.f);
    EXPECT_EQ(given.singular(), computed.singular());
    for (std::size_t k = 0; k < u.size(); ++k) {
      ASSERT_EQ(u_given[k], u[k]) << "element " << k << ", the GPU solver's eigen-data";
      ASSERT_EQ(u_cpu[k], u[k]) << "element " << k << ", the CPU solver's eigen-data";
    }
    ++ran;
  }
  EXPECT_GT(ran, 10);
}

TYPED_TEST(SolverGpuEigenDataTest, RefusesEigenDataOfAnotherSize) {
  using Scalar = TypeParam;
  for (std::size_t dims : {2, 3}) {
    std::vector<Problem<Scalar>> two;
    for (const auto& c : testing::gpu_cases())
      if (c.template runs_as<Scalar>() && c.spec.dims.size() == dims &&
          (two.empty() || two[0].op.factor(0).size() != c.spec.dims[0].n) && two.size() < 2)
        two.push_back(testing::make_problem<Scalar>(c));
    ASSERT_EQ(two.size(), 2u);
    EXPECT_THROW(cuda::Solver<Scalar>(two[0].op, reference::compute_plan_eigen_data(two[1].op), {}),
                 InputError);
  }
}

}  // namespace
}  // namespace pscr
