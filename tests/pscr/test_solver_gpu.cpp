// The GPU solver against the CPU backend on the same inputs (issue 6): every case of
// test_solver_gpu_cases.hpp, through the host API and through device pointers with the output
// poisoned, plus rounds of right-hand sides, the memory check and the stage timing. A failure
// names the case and where the largest difference is (row of dimension 1 and the level that
// solves it), so that one run on the GPU tells what is wrong.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <vector>

#include "common/cuda/check.hpp"
#include "common/cuda/device_buffer.hpp"
#include "pscr/cuda/solver.hpp"
#include "pscr/cuda/stage_fusion.hpp"
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

/// The CPU backend's solutions of every grid of p (the yardstick).
template <class Scalar>
std::vector<Scalar> cpu_solutions(reference::Solver<Scalar>& cpu, const Problem<Scalar>& p) {
  std::vector<Scalar> ref(p.f.size());
  cpu.solve_many(p.nrhs, p.f.data(), ref.data());
  return ref;
}

/// Solves `grids` grids of f through the device API on a stream of ours, the output poisoned
/// (all bits set: NaN) before the solve; returns u.
template <class Scalar>
std::vector<Scalar> solve_on_device(cuda::Solver<Scalar>& gpu, index_t grids,
                                    const std::vector<Scalar>& f) {
  cuda::Stream stream;
  cuda::DeviceBuffer<Scalar> d_f(f.size()), d_u(f.size());
  d_f.copy_from_host(f.data());
  PSCR_CUDA_CHECK(cudaMemsetAsync(d_u.data(), 0xff, d_u.bytes(), stream.get()));
  gpu.solve_device(stream.get(), grids, d_f.data(), d_u.data());
  stream.synchronize();
  std::vector<Scalar> u(f.size());
  d_u.copy_to_host(u.data());
  return u;
}

template <class Scalar>
void check_against_cpu(const testing::GpuCase& c, cuda::StageFusion fusion) {
  SCOPED_TRACE(c.name() +
               (fusion == cuda::StageFusion::never ? " (separate stages)" : " (fused stages)"));
  const Problem<Scalar> p = testing::make_problem<Scalar>(c);
  const auto shape = p.op.shape();
  const index_t n = p.op.grid_size();
  reference::Solver<Scalar> cpu(p.op);
  // Relative difference bounds of issue 6; the residual bounds of the CPU backend (issue 4).
  // Pure Neumann problems (mean-zero solutions) are solved on the complement of the null space,
  // whose conditioning is set by the smallest non-zero eigenvalue: the GPU's different
  // summation order shows up ~10x larger there (1.03e-12 seen on a graded 65 x 6 mesh, H200).
  const double tol = c.helmholtz() ? 1e-10 : (cpu.singular() ? 1e-11 : 1e-12);

  const std::vector<Scalar> ref = cpu_solutions(cpu, p);

  // Device solves cannot look at the residual: they take two refinement steps unconditionally,
  // as many as the host solves may take (near-resonance Helmholtz needs one).
  cuda::SolverOptions options;
  options.device_refinements = 2;
  options.fusion = fusion;
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

  // Device API.
  const std::vector<Scalar> ud = solve_on_device(gpu, 1, p.f);
  const double diff_d = testing::relative_difference(ud, ref);
  EXPECT_LE(diff_d, tol) << "device API: " << where(ud, ref, shape);
}

TYPED_TEST(SolverGpuTest, MatchesCpuBackendOnEveryCase) {
  using Scalar = TypeParam;
  index_t ran = 0;
  for (const auto& c : testing::gpu_cases()) {
    if (!c.template runs_as<Scalar>()) continue;
    check_against_cpu<Scalar>(c, cuda::StageFusion::always);
    ++ran;
  }
  EXPECT_GT(ran, 10);
}

TYPED_TEST(SolverGpuTest, SeparateStagesMatchCpuBackend) {
  using Scalar = TypeParam;
  for (const auto& c : testing::gpu_cases())
    if (c.template runs_as<Scalar>()) check_against_cpu<Scalar>(c, cuda::StageFusion::never);
}

TYPED_TEST(SolverGpuTest, SegmentStageAsAccurateAsSeparateStages) {
  using Scalar = TypeParam;
  // Tridiagonal dimensions of 2047 to 4100 rows, where the segment stage runs (fused, asked for
  // on every GPU) and the separate stages are the established path. Both are compared with the CPU
  // backend on three right-hand sides in rounds of two (P = 2, then 1): the fused solution may not
  // be further from it, nor have a larger residual, than the bound of issue 6 or twice the separate
  // stages' (long random-mesh Poisson problems are conditioned so that both paths differ from the
  // CPU by up to ~1e-11, measured). So must the device API's, on a stream of ours with the output
  // poisoned (two unconditional refinement steps, as in check_against_cpu), against the separate
  // stages' device API.
  index_t ran = 0;
  for (const auto& c0 : testing::long_system_cases()) {
    if (!c0.template runs_as<Scalar>()) continue;
    ++ran;
    testing::GpuCase c = c0;
    c.spec.nrhs = 3;
    SCOPED_TRACE(c.name());
    const Problem<Scalar> p = testing::make_problem<Scalar>(c);
    const index_t n = p.op.grid_size();
    reference::Solver<Scalar> cpu(p.op);
    const std::vector<Scalar> ref = cpu_solutions(cpu, p);
    const double tol = c.helmholtz() ? 1e-10 : (cpu.singular() ? 1e-11 : 1e-12);
    struct Result {
      std::vector<Scalar> u;
      double diff = 0, residual = 0, mean = 0, device_diff = 0;
    };
    auto run = [&](cuda::StageFusion fusion) {
      cuda::SolverOptions o;
      o.fusion = fusion;
      o.rhs_per_round = 2;
      o.device_refinements = 2;
      cuda::Solver<Scalar> gpu(p.op, o);
      Result r;
      r.u.resize(3 * n);
      poison(r.u);
      gpu.solve_many(3, p.f.data(), r.u.data());
      r.diff = testing::relative_difference(r.u, ref);
      // The largest residual and mean over the grids (f projected for a singular problem).
      for (index_t g = 0; g < 3; ++g) {
        const Scalar* fg = p.f.data() + g * n;
        const Scalar* ug = r.u.data() + g * n;
        const auto f =
            gpu.singular() ? testing::project_neumann(p.op, fg) : std::vector<Scalar>(fg, fg + n);
        r.residual = std::max(r.residual, p.op.relative_residual(ug, f.data()));
        if (gpu.singular()) r.mean = std::max(r.mean, testing::neumann_mean(p.op, ug));
      }
      r.device_diff = testing::relative_difference(solve_on_device(gpu, 3, p.f), ref);
      return r;
    };
    const Result fused = run(cuda::StageFusion::always), separate = run(cuda::StageFusion::never);
    EXPECT_LE(separate.diff, 1e-9) << "separate: " << where(separate.u, ref, p.op.shape());
    EXPECT_LE(fused.diff, std::max(tol, 2 * separate.diff))
        << "fused: " << where(fused.u, ref, p.op.shape());
    EXPECT_LE(fused.residual, std::max(tol, 2 * separate.residual));
    EXPECT_LE(fused.mean, std::max(1e-12, 2 * separate.mean));
    EXPECT_LE(fused.device_diff, std::max(tol, 2 * separate.device_diff)) << "device API";
  }
  EXPECT_GE(ran, 3);
}

TYPED_TEST(SolverGpuTest, PivotingModesMatchCpuBackend) {
  using Scalar = TypeParam;
  for (const auto& c : testing::gpu_cases()) {
    if (!c.helmholtz() || !c.template runs_as<Scalar>()) continue;
    SCOPED_TRACE(c.name());
    const Problem<Scalar> p = testing::make_problem<Scalar>(c);
    const index_t n = p.op.grid_size();
    reference::Solver<Scalar> cpu(p.op);
    const std::vector<Scalar> ref = cpu_solutions(cpu, p);
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
      const std::vector<Scalar> ref = cpu_solutions(cpu, p);
      cuda::SolverOptions o;
      o.rhs_per_round = 2;
      cuda::Solver<Scalar> gpu(p.op, o);
      ASSERT_EQ(gpu.rhs_per_round(), 2);
      std::vector<Scalar> u(5 * n);
      poison(u);
      gpu.solve_many(5, p.f.data(), u.data());
      EXPECT_LE(testing::relative_difference(u, ref), 1e-12) << where(u, ref, p.op.shape());
      EXPECT_EQ(gpu.last_solve().right_hand_sides, 5);

      const std::vector<Scalar> ud = solve_on_device(gpu, 5, p.f);
      for (index_t k = 0; k < 5 * n; ++k) ASSERT_EQ(ud[k], u[k]) << "grid " << k / n;
      // In place is refused by the device API.
      cuda::Stream stream;
      cuda::DeviceBuffer<Scalar> d_f(n);
      d_f.copy_from_host(p.f.data());
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
  using cuda::StageFusion;
  const tridiag::cuda::SelectionGpu selection = tridiag::cuda::current_selection_gpu();
  // n2 ≤ kFusedMaxN: FusedStage; n2 ≥ 2047: the segment stage; by default where they pay on this
  // GPU (block_stage_pays, segment_stage_pays).
  for (const auto& [n2, fusion] :
       std::vector<std::pair<index_t, StageFusion>>{{33, StageFusion::automatic},
                                                    {63, StageFusion::always},
                                                    {63, StageFusion::never},
                                                    {63, StageFusion::automatic},
                                                    {2100, StageFusion::always},
                                                    {2100, StageFusion::never},
                                                    {2100, StageFusion::automatic},
                                                    {4100, StageFusion::automatic}}) {
    const bool fused =
        fusion == StageFusion::always ||
        (fusion == StageFusion::automatic &&
         (n2 <= 64 ? cuda::detail::block_stage_pays(n2, is_complex_v<Scalar>)
                   : cuda::detail::segment_stage_pays(n2, selection, is_complex_v<Scalar>)));
    SCOPED_TRACE(std::to_string(n2) + (fused ? ", fused stages" : ", separate stages"));
    c.spec.dims = {{255}, {n2}};
    const Problem<Scalar> p = testing::make_problem<Scalar>(c);
    cuda::SolverOptions o;
    o.profile = true;
    o.fusion = fusion;
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
