// The GPU solver against the CPU backend on the same inputs (issue 6): every case of
// test_solver_gpu_cases.hpp, through the host API and through device pointers with the output
// poisoned, plus rounds of right-hand sides, the memory check and the stage timing. A failure
// names the case and where the largest difference is (row of dimension 1 and the level that
// solves it), so that one run on the GPU tells what is wrong.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <sstream>
#include <vector>

#include "common/cuda/check.hpp"
#include "common/cuda/device_buffer.hpp"
#include "pscr/cuda/solver.hpp"
#include "pscr/reference/solver.hpp"
#include "tests/pscr/test_solver_gpu_cases.hpp"
#include "tests/support/typed.hpp"

namespace pscr {
namespace {

template <class Scalar>
class SolverGpuTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (cuda::device_count() == 0) GTEST_SKIP() << "no CUDA device";
  }
};
TYPED_TEST_SUITE(SolverGpuTest, testing::ScalarTypes);

/// The level whose back substitution solves row j of dimension 1 (1-based j + 1 = 4^(i−1)·t,
/// t not divisible by 4).
int solving_level(index_t j) {
  int level = 1;
  for (index_t k = j + 1; k % 4 == 0; k /= 4) ++level;
  return level;
}

/// Where u and ref differ most: "max |Δ| = … at grid index (j, …), row j solved at level i;
/// first non-finite at …".
template <class Scalar>
std::string where(const std::vector<Scalar>& u, const std::vector<Scalar>& ref,
                  const std::vector<index_t>& shape) {
  const index_t N = static_cast<index_t>(u.size()) / shape[0];
  index_t worst = 0, nonfinite = -1;
  double most = -1;
  for (std::size_t k = 0; k < u.size(); ++k) {
    if (!std::isfinite(std::abs(u[k]))) {
      if (nonfinite < 0) nonfinite = static_cast<index_t>(k);
      continue;
    }
    const double d = std::abs(u[k] - ref[k]);
    if (d > most) {
      most = d;
      worst = static_cast<index_t>(k);
    }
  }
  std::ostringstream s;
  auto at = [&](index_t k) {
    std::ostringstream t;
    const index_t j = k / N;
    t << "(j=" << j << ", q=" << k % N << "), row solved at level " << solving_level(j);
    return t.str();
  };
  s << "max |u - ref| = " << most << " at " << at(worst) << " (|ref| there " << std::abs(ref[worst])
    << ")";
  if (nonfinite >= 0) s << "; first non-finite value at " << at(nonfinite);
  return s.str();
}

template <class Scalar>
void poison(std::vector<Scalar>& v) {
  std::fill(v.begin(), v.end(), Scalar(std::numeric_limits<double>::quiet_NaN()));
}

template <class Scalar>
void check_against_cpu(const testing::GpuCase& c, bool fused) {
  SCOPED_TRACE(c.name() + (fused ? " (fused stages)" : " (separate stages)"));
  const Problem<Scalar> p = testing::make_problem<Scalar>(c);
  const auto shape = p.op.shape();
  const index_t n = p.op.grid_size();
  reference::Solver<Scalar> cpu(p.op);
  // Relative difference bounds of issue 6; the residual bounds of the CPU backend (issue 4).
  // Pure Neumann problems (mean-zero solutions) are solved on the complement of the null space,
  // whose conditioning is set by the smallest non-zero eigenvalue: the GPU's different
  // summation order shows up ~10x larger there (1.03e-12 seen on a graded 65 x 6 mesh, H200).
  const double tol = c.helmholtz() ? 1e-10 : (cpu.singular() ? 1e-11 : 1e-12);

  std::vector<Scalar> ref(n);
  cpu.solve(p.f.data(), ref.data());

  // Device solves cannot look at the residual: they take two refinement steps unconditionally,
  // as many as the host solves may take (near-resonance Helmholtz needs one).
  cuda::SolverOptions options;
  options.device_refinements = 2;
  options.fused = fused;
  cuda::Solver<Scalar> gpu(p.op, options);
  ASSERT_EQ(gpu.singular(), cpu.singular());
  const auto f = gpu.singular() ? testing::project_neumann(p.op, p.f.data()) : p.f;

  // Host API.
  std::vector<Scalar> u(n);
  poison(u);
  gpu.solve(p.f.data(), u.data());
  const double diff = testing::relative_difference(u, ref);
  EXPECT_LE(diff, tol) << "host API: " << where(u, ref, shape);
  EXPECT_LE(p.op.relative_residual(u.data(), f.data()), tol);
  EXPECT_LE(gpu.last_solve().residual, tol);
  if (gpu.singular()) EXPECT_LE(testing::neumann_mean(p.op, u.data()), 1e-12);

  // Device API on a stream of ours, output poisoned (all bits set: NaN).
  cuda::Stream stream;
  cuda::DeviceBuffer<Scalar> d_f(n), d_u(n);
  d_f.copy_from_host(p.f.data());
  PSCR_CUDA_CHECK(cudaMemsetAsync(d_u.data(), 0xff, d_u.bytes(), stream.get()));
  gpu.solve_device(stream.get(), 1, d_f.data(), d_u.data());
  stream.synchronize();
  std::vector<Scalar> ud(n);
  d_u.copy_to_host(ud.data());
  const double diff_d = testing::relative_difference(ud, ref);
  EXPECT_LE(diff_d, tol) << "device API: " << where(ud, ref, shape);
}

TYPED_TEST(SolverGpuTest, MatchesCpuBackendOnEveryCase) {
  using Scalar = TypeParam;
  index_t ran = 0;
  for (const auto& c : testing::gpu_cases()) {
    if (!c.template runs_as<Scalar>()) continue;
    check_against_cpu<Scalar>(c, true);
    ++ran;
  }
  EXPECT_GT(ran, 10);
}

TYPED_TEST(SolverGpuTest, SeparateStagesMatchCpuBackend) {
  using Scalar = TypeParam;
  for (const auto& c : testing::gpu_cases())
    if (c.template runs_as<Scalar>()) check_against_cpu<Scalar>(c, false);
}

TYPED_TEST(SolverGpuTest, PivotingModesMatchCpuBackend) {
  using Scalar = TypeParam;
  for (const auto& c : testing::gpu_cases()) {
    if (!c.helmholtz() || !c.template runs_as<Scalar>()) continue;
    SCOPED_TRACE(c.name());
    const Problem<Scalar> p = testing::make_problem<Scalar>(c);
    const index_t n = p.op.grid_size();
    reference::Solver<Scalar> cpu(p.op);
    std::vector<Scalar> ref(n);
    cpu.solve(p.f.data(), ref.data());
    for (auto mode : {cuda::Pivoting::never, cuda::Pivoting::always}) {
      cuda::SolverOptions o;
      o.pivoting = mode;
      cuda::Solver<Scalar> gpu(p.op, o);
      std::vector<Scalar> u(n);
      poison(u);
      gpu.solve(p.f.data(), u.data());
      EXPECT_LE(testing::relative_difference(u, ref), 1e-10)
          << (mode == cuda::Pivoting::never ? "never: " : "always: ")
          << where(u, ref, p.op.shape());
      if (mode == cuda::Pivoting::always) EXPECT_GT(gpu.last_solve().pivoted, 0);
    }
  }
}

TYPED_TEST(SolverGpuTest, RoundsOfRightHandSidesOnDevicePointers) {
  using Scalar = TypeParam;
  // Five grids in rounds of two (2D and 3D, one singular): host API against the CPU backend, and
  // the device API, on a stream of ours, bit for bit equal to the host API.
  for (const auto& dims : std::vector<std::vector<index_t>>{{33, 17}, {9, 16, 5}}) {
    for (auto side : {problems::Boundary::dirichlet, problems::Boundary::neumann}) {
      testing::GpuCase c;
      c.complex_poisson = is_complex_v<Scalar>;
      for (index_t n : dims) c.spec.dims.push_back({n, {}, side, side});
      c.spec.nrhs = 5;
      SCOPED_TRACE(c.name());
      const Problem<Scalar> p = testing::make_problem<Scalar>(c);
      const index_t n = p.op.grid_size();
      reference::Solver<Scalar> cpu(p.op);
      std::vector<Scalar> ref(5 * n);
      cpu.solve_many(5, p.f.data(), ref.data());
      cuda::SolverOptions o;
      o.rhs_per_round = 2;
      cuda::Solver<Scalar> gpu(p.op, o);
      ASSERT_EQ(gpu.rhs_per_round(), 2);
      std::vector<Scalar> u(5 * n);
      poison(u);
      gpu.solve_many(5, p.f.data(), u.data());
      EXPECT_LE(testing::relative_difference(u, ref), 1e-12) << where(u, ref, p.op.shape());
      EXPECT_EQ(gpu.last_solve().right_hand_sides, 5);

      cuda::Stream stream;
      cuda::DeviceBuffer<Scalar> d_f(5 * n), d_u(5 * n);
      d_f.copy_from_host(p.f.data());
      PSCR_CUDA_CHECK(cudaMemsetAsync(d_u.data(), 0xff, d_u.bytes(), stream.get()));
      gpu.solve_device(stream.get(), 5, d_f.data(), d_u.data());
      stream.synchronize();
      std::vector<Scalar> ud(5 * n);
      d_u.copy_to_host(ud.data());
      for (index_t k = 0; k < 5 * n; ++k) ASSERT_EQ(ud[k], u[k]) << "grid " << k / n;
      // In place is refused by the device API.
      EXPECT_THROW(gpu.solve_device(stream.get(), 1, d_f.data(), d_f.data()), InputError);
    }
  }
}

TYPED_TEST(SolverGpuTest, TooLargeForTheDeviceSaysHowMuch) {
  using Scalar = TypeParam;
  // 1700³ unknowns: one grid alone is 39 GB (real), several are needed; no GPU here holds it.
  const SeparableOperator<Scalar> op = testing::uniform_cube_operator<Scalar>(1700, Scalar(0));
  cuda::SolverOptions o;
  o.pivoting = cuda::Pivoting::never;
  try {
    cuda::Solver<Scalar> gpu(op, o);
    FAIL() << "expected SolverError";
  } catch (const SolverError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("MiB"), std::string::npos) << msg;
    EXPECT_NE(msg.find("free"), std::string::npos) << msg;
  }
}

TYPED_TEST(SolverGpuTest, StageTimesAddUp) {
  using Scalar = TypeParam;
  testing::GpuCase c;
  c.complex_poisson = is_complex_v<Scalar>;
  c.spec.dims = {{255}, {63}};  // n2 ≤ kFusedMaxN, so the fused stage applies
  const Problem<Scalar> p = testing::make_problem<Scalar>(c);
  for (bool fused : {true, false}) {
    SCOPED_TRACE(fused ? "fused stages" : "separate stages");
    cuda::SolverOptions o;
    o.profile = true;
    o.fused = fused;
    cuda::Solver<Scalar> gpu(p.op, o);
    std::vector<Scalar> u(p.op.grid_size());
    gpu.solve(p.f.data(), u.data());
    const auto& s = gpu.last_solve();
    const auto& t = s.stages;
    if (fused) {
      EXPECT_GT(t.fused_ms, 0);
    } else {
      EXPECT_GT(t.rhs_ms, 0);
      EXPECT_GT(t.tridiag_ms, 0);
      EXPECT_GT(t.sum_ms, 0);
      EXPECT_EQ(t.fused_ms, 0);
    }
    EXPECT_GT(t.update_ms, 0);
    // A host solve computes at least one residual (max_refinements = 2 by default).
    EXPECT_GT(t.refine_ms, 0);
    EXPECT_LE(
        t.rhs_ms + t.tridiag_ms + t.sum_ms + t.update_ms + t.fused_ms + t.refine_ms + t.other_ms,
        1.01 * s.solve_ms);
    EXPECT_GT(s.flops, 0);
    EXPECT_GT(s.bytes, 0);
    EXPECT_GT(gpu.device_bytes(), 0u);
  }
}

}  // namespace
}  // namespace pscr
