// The GPU solver's fast-diagonalization method (SolverOptions::method) against the CPU backend on
// every case of test_solver_gpu_cases.hpp (2D and 3D, real and complex, odd and edge sizes),
// through the host API (several right-hand sides) and device pointers with the output poisoned;
// and the automatic choice on the device.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "common/cuda/check.hpp"
#include "common/cuda/device_buffer.hpp"
#include "pscr/cuda/solver.hpp"
#include "pscr/fd/setup.hpp"
#include "pscr/reference/solver.hpp"
#include "tests/pscr/test_solver_gpu_cases.hpp"
#include "tests/support/typed.hpp"

namespace pscr {
namespace {

template <class Scalar>
class FdGpuTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (cuda::device_count() == 0) GTEST_SKIP() << "no CUDA device";
  }
};
TYPED_TEST_SUITE(FdGpuTest, testing::ScalarTypes);

cuda::SolverOptions fd_options() {
  cuda::SolverOptions o;
  o.method = SolverMethod::fast_diagonalization;
  return o;
}

TYPED_TEST(FdGpuTest, MatchesCpuBackendOnEveryCase) {
  using Scalar = TypeParam;
  // Issue 6's bound between the GPU and the CPU backends.
  const double tol = 1e-10;
  index_t ran = 0;
  for (const auto& c : testing::gpu_cases()) {
    if (!c.template runs_as<Scalar>()) continue;
    SCOPED_TRACE(c.name());
    const Problem<Scalar> p = testing::make_problem<Scalar>(c);
    reference::Solver<Scalar> cpu(p.op);
    if (cpu.singular()) {
      // FD has no mean-zero handling: requesting it throws, automatic runs PSCR.
      EXPECT_THROW(cuda::Solver<Scalar>(p.op, fd_options()), InputError);
      EXPECT_EQ(cuda::Solver<Scalar>(p.op).method(), SolverMethod::pscr);
      continue;
    }
    if (!fd::certify(fd::fd_setup(p.op), p.op).passed) {
      // Not certified (none of these cases on the CPU today): requesting FD throws, automatic
      // runs PSCR.
      EXPECT_THROW(cuda::Solver<Scalar>(p.op, fd_options()), SolverError);
      EXPECT_EQ(cuda::Solver<Scalar>(p.op).method(), SolverMethod::pscr);
      continue;
    }
    const index_t n = p.op.grid_size();
    cuda::Solver<Scalar> gpu(p.op, fd_options());
    ASSERT_EQ(gpu.method(), SolverMethod::fast_diagonalization) << gpu.method_reason();
    EXPECT_EQ(gpu.rhs_per_round(), 1);
    EXPECT_FALSE(gpu.singular());

    // Host API, three right-hand sides: f, 2f and −f.
    std::vector<Scalar> f(3 * n), u(3 * n, Scalar(std::nan(""))), ref(n);
    cpu.solve(p.f.data(), ref.data());
    for (index_t k = 0; k < n; ++k) {
      f[k] = p.f[k];
      f[n + k] = Scalar(2) * p.f[k];
      f[2 * n + k] = -p.f[k];
    }
    gpu.solve_many(3, f.data(), u.data());
    const Scalar scales[3] = {Scalar(1), Scalar(2), Scalar(-1)};
    for (int r = 0; r < 3; ++r) {
      std::vector<Scalar> ur(u.begin() + r * n, u.begin() + (r + 1) * n), rr(ref);
      for (auto& v : rr) v *= scales[r];
      EXPECT_LE(testing::relative_difference(ur, rr), tol) << "host API, right-hand side " << r;
    }
    EXPECT_LE(p.op.relative_residual(u.data(), p.f.data()), tol);
    EXPECT_EQ(gpu.last_solve().right_hand_sides, 3);
    // The residual is measured on the device (largest over the three grids); no refinement
    // step is needed at refine_tolerance = 1e-10.
    double host_worst = 0;
    for (int r = 0; r < 3; ++r)
      host_worst = std::max(host_worst, p.op.relative_residual(u.data() + r * n, f.data() + r * n));
    const cuda::SolveStats& s = gpu.last_solve();
    EXPECT_GE(s.residual, 0);
    EXPECT_LE(s.residual, std::max(4 * host_worst, tol)) << "host residual " << host_worst;
    EXPECT_EQ(s.initial_residual, s.residual);
    EXPECT_EQ(s.refinements, 0);
    EXPECT_GT(s.solve_ms, 0);

    // refine_tolerance = 0: every grid takes refinement steps (at most 2, each kept only where it
    // lowers the residual), and the solution stays as accurate.
    cuda::SolverOptions always = fd_options();
    always.refine_tolerance = 0;
    cuda::Solver<Scalar> refining(p.op, always);
    std::vector<Scalar> v(n);
    refining.solve(p.f.data(), v.data());
    const cuda::SolveStats& rs = refining.last_solve();
    EXPECT_GE(rs.refinements, 1);
    EXPECT_LE(rs.refinements, 2);
    EXPECT_LE(rs.residual, rs.initial_residual);
    EXPECT_LE(testing::relative_difference(v, ref), tol) << "refined";
    // max_refinements = 0: no residual is computed.
    cuda::SolverOptions unchecked = fd_options();
    unchecked.max_refinements = 0;
    cuda::Solver<Scalar> plain(p.op, unchecked);
    plain.solve(p.f.data(), v.data());
    EXPECT_TRUE(std::isnan(plain.last_solve().residual));
    EXPECT_LE(testing::relative_difference(v, ref), tol) << "unchecked";

    // Device API on a stream of ours, output poisoned (all bits set: NaN).
    cuda::Stream stream;
    cuda::DeviceBuffer<Scalar> d_f(n), d_u(n);
    d_f.copy_from_host(p.f.data());
    PSCR_CUDA_CHECK(cudaMemsetAsync(d_u.data(), 0xff, d_u.bytes(), stream.get()));
    gpu.solve_device(stream.get(), 1, d_f.data(), d_u.data());
    stream.synchronize();
    std::vector<Scalar> ud(n);
    d_u.copy_to_host(ud.data());
    EXPECT_LE(testing::relative_difference(ud, ref), tol) << "device API";
    ++ran;
  }
  EXPECT_GT(ran, 5);
}

TYPED_TEST(FdGpuTest, AutomaticChoosesFdIn3dAndPscrIn2d) {
  using Scalar = TypeParam;
  bool seen2 = false, seen3 = false;
  for (const auto& c : testing::gpu_cases()) {
    if (!c.template runs_as<Scalar>()) continue;
    const Problem<Scalar> p = testing::make_problem<Scalar>(c);
    reference::Solver<Scalar> cpu(p.op);
    if (cpu.singular()) continue;
    SCOPED_TRACE(c.name());
    const cuda::Solver<Scalar> gpu(p.op);
    EXPECT_FALSE(gpu.method_reason().empty());
    if (p.op.dimension() == 2) {
      EXPECT_EQ(gpu.method(), SolverMethod::pscr) << gpu.method_reason();
      seen2 = true;
    } else {
      EXPECT_EQ(gpu.method(), SolverMethod::fast_diagonalization) << gpu.method_reason();
      seen3 = true;
      // Options only PSCR honors keep PSCR.
      cuda::SolverOptions o;
      o.device_refinements = 1;
      EXPECT_EQ(cuda::Solver<Scalar>(p.op, o).method(), SolverMethod::pscr);
      cuda::SolverOptions none;
      none.fd_setup_budget_s = 0;
      EXPECT_EQ(cuda::Solver<Scalar>(p.op, none).method(), SolverMethod::pscr);
      cuda::SolverOptions forced;
      forced.method = SolverMethod::pscr;
      EXPECT_EQ(cuda::Solver<Scalar>(p.op, forced).method(), SolverMethod::pscr);
    }
  }
  EXPECT_TRUE(seen2);
  EXPECT_TRUE(seen3);
}

TYPED_TEST(FdGpuTest, EigenDataMakeThePlanPscrs) {
  using Scalar = TypeParam;
  for (const auto& c : testing::gpu_cases()) {
    if (!c.template runs_as<Scalar>() || c.spec.dims.size() != 3) continue;
    const Problem<Scalar> p = testing::make_problem<Scalar>(c);
    if (reference::Solver<Scalar>(p.op).singular()) continue;
    SCOPED_TRACE(c.name());
    cuda::Solver<Scalar> fd(p.op);
    ASSERT_EQ(fd.method(), SolverMethod::fast_diagonalization) << fd.method_reason();
    // An FD plan computes PSCR's eigen-data on demand (for saving them).
    ASSERT_EQ(fd.eigen_data().size(), 2u);
    cuda::Solver<Scalar> given(p.op, fd.eigen_data(), {});
    EXPECT_EQ(given.method(), SolverMethod::pscr);
    EXPECT_THROW(cuda::Solver<Scalar>(p.op, fd.eigen_data(), fd_options()), InputError);
    const index_t n = p.op.grid_size();
    std::vector<Scalar> u(n), v(n);
    fd.solve(p.f.data(), u.data());
    given.solve(p.f.data(), v.data());
    EXPECT_LE(testing::relative_difference(u, v), 1e-10);
    return;  // one case is enough
  }
  FAIL() << "no non-singular 3D case";
}

TYPED_TEST(FdGpuTest, TooLargeForTheDeviceSaysHowMuch) {
  using Scalar = TypeParam;
  // 1700³ unknowns: one grid alone is 39 GB (real); requested FD needs four.
  const SeparableOperator<Scalar> op = testing::uniform_cube_operator<Scalar>(1700, Scalar(1));
  try {
    cuda::Solver<Scalar> gpu(op, fd_options());
    FAIL() << "expected SolverError";
  } catch (const SolverError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("MiB"), std::string::npos) << msg;
    EXPECT_NE(msg.find("free"), std::string::npos) << msg;
  }
}

}  // namespace
}  // namespace pscr
