// The GPU solver's plan and kernels run on the CPU: the very SolverCore and stage functors of
// pscr/cuda, with an executor that loops over the elements instead of launching kernels and
// solves level 3 with tridiag::reference. Checked against the SparseLU oracle (error and
// residual), with every work array poisoned with NaN, and run twice with the elements of every
// launch visited in opposite orders: equal results show that no element reads what another
// element of the same launch writes (a race on the GPU). No GPU needed (label unit).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>
#include <memory>
#include <vector>

#include "pscr/cuda/solver_core.cuh"
#include "pscr/cuda/stage_fusion.hpp"
#include "pscr/reference/solver.hpp"
#include "tests/pscr/test_solver_gpu_cases.hpp"
#include "tests/support/oracle.hpp"
#include "tests/support/tolerance.hpp"
#include "tests/support/typed.hpp"
#include "tridiag/reference/solve.hpp"

namespace pscr {
namespace {

using cuda::detail::Stage;
using cuda::detail::TridiagRowOp;

/// The block abstraction of the fused stage on the CPU: a phase runs its threads one after
/// another (forward or in reverse), a barrier is the end of a phase.
struct HostBlock {
  int threads;
  bool reverse;
  int size() const { return threads; }
  template <class F>
  void each(F&& f) const {
    for (int k = 0; k < threads; ++k) f(reverse ? threads - 1 - k : k);
  }
  void sync() const {}
  /// What tridiag::cuda::detail::pcr_shared does, step by step with the same rows (pcr_row).
  template <class T>
  void pcr(T* a, T* b, T* c, T* d, int gv, int stride, int nc) const {
    const int total = gv * stride;
    std::vector<T> na(total), nb(total), nn(total), nd(total);
    for (int s = 1; s < nc; s <<= 1) {
      for (int e = 0; e < total; ++e)
        if (e % stride < nc)
          tridiag::cuda::detail::pcr_row(a, b, c, d, e, e % stride, s, nc, na[e], nb[e], nn[e],
                                         nd[e]);
      for (int e = 0; e < total; ++e)
        if (e % stride < nc) {
          a[e] = na[e];
          b[e] = nb[e];
          c[e] = nn[e];
          d[e] = nd[e];
        }
    }
    for (int e = 0; e < total; ++e)
      if (e % stride < nc) d[e] = d[e] / b[e];
  }
};

/// The CPU executor of the engine (see pscr/cuda/engine.cuh for the concept).
class HostExec {
 public:
  /// The segment stage needs warps (segment_stage.cuh): the long systems' stages run separately.
  static constexpr bool kSegmentStage = false;
  /// A host array; scalars start as NaN so that a read of an unwritten element shows.
  template <class T>
  class Buffer {
   public:
    Buffer() = default;
    explicit Buffer(std::size_t n) : v_(n, poison()) {}
    T* data() { return v_.data(); }
    const T* data() const { return v_.data(); }
    std::size_t size() const { return v_.size(); }

   private:
    static T poison() {
      if constexpr (std::is_floating_point_v<T>) {
        return std::numeric_limits<T>::quiet_NaN();
      } else if constexpr (std::is_same_v<T, cuda::detail::Complex>) {
        const double nan = std::numeric_limits<double>::quiet_NaN();
        return T(nan, nan);
      } else {
        return T{};
      }
    }
    std::vector<T> v_;
  };

  bool reverse = false;  ///< visit the elements of every launch in reverse order
  index_t launches = 0;

  template <class F>
  void launch(Stage, index_t rows, index_t cols, const F& f) {
    ++launches;
    if (!reverse) {
      for (index_t r = 0; r < rows; ++r)
        for (index_t c = 0; c < cols; ++c) f(r, c);
    } else {
      for (index_t r = rows - 1; r >= 0; --r)
        for (index_t c = cols - 1; c >= 0; --c) f(r, c);
    }
  }
  /// The fused stage block by block, its shared memory poisoned before each block.
  template <class T>
  void launch_blocks(Stage, index_t blocks, int threads, std::size_t smem_bytes,
                     const cuda::detail::FusedStage<T>& f) {
    ++launches;
    Buffer<T> smem(smem_bytes / sizeof(T));
    const Buffer<T> poisoned(smem_bytes / sizeof(T));
    for (index_t k = 0; k < blocks; ++k) {
      std::copy_n(poisoned.data(), poisoned.size(), smem.data());
      f.run(HostBlock{threads, reverse}, reverse ? blocks - 1 - k : k, smem.data());
    }
  }
  std::size_t shared_limit() const { return std::size_t{1} << 30; }

  template <class T>
  void upload(T* dst, const T* src, index_t count) {
    std::copy_n(src, count, dst);
  }
  template <class T>
  void download(T* dst, const T* src, index_t count) {
    std::copy_n(src, count, dst);
  }
  template <class T>
  index_t tridiag_workspace(index_t, index_t, bool) const {
    return 1;
  }
  /// Level 3 with the CPU references, one system at a time; a system whose factorization meets
  /// an exactly zero pivot becomes NaN (the GPU solvers do not detect zero pivots either).
  template <class T>
  void tridiag(const TridiagRowOp<T>& am, index_t n, const T* shifts, index_t batch, T* x,
               tridiag::BatchLayout layout, bool pivoting, T*, index_t) {
    using S = cuda::detail::host_scalar_t<T>;
    auto h = [](const T* p) { return reinterpret_cast<const S*>(p); };
    const SymTridiag<S> A{{h(am.a_diag), h(am.a_diag) + n}, {h(am.a_off), h(am.a_off) + n - 1}};
    const SymTridiag<S> M{{h(am.m_diag), h(am.m_diag) + n}, {h(am.m_off), h(am.m_off) + n - 1}};
    std::vector<S> ws(3 * n);
    const auto one = tridiag::BatchLayout{layout.system_stride, layout.row_stride};
    for (index_t k = 0; k < batch; ++k) {
      S* xk = reinterpret_cast<S*>(x) + k * layout.system_stride;
      const S* sk = h(shifts) + k;
      try {
        if (pivoting) {
          tridiag::reference::solve_shifted_pivoting(A, M, sk, 1, xk, one, xk, one, ws.data(),
                                                     3 * n);
        } else {
          tridiag::reference::solve_shifted(A, M, sk, 1, xk, one, xk, one, ws.data(), 3 * n);
        }
      } catch (const SolverError&) {
        for (index_t r = 0; r < n; ++r)
          xk[r * layout.row_stride] = S(std::numeric_limits<double>::quiet_NaN());
      }
    }
  }
  std::size_t free_bytes() const { return std::size_t{1} << 40; }
};

template <class Scalar>
class SolverGpuEmulation : public ::testing::Test {};
TYPED_TEST_SUITE(SolverGpuEmulation, testing::ScalarTypes);

/// Solves nrhs grids through SolverCore<Scalar, HostExec> in one round, elements visited forward
/// or in reverse; `check`: a host solve (refinement decided on residuals), else a device solve;
/// `eigen`: precomputed eigen-data for the plan (moved from), or null to compute them.
template <class Scalar>
std::vector<Scalar> emulate(const SeparableOperator<Scalar>& op, const std::vector<Scalar>& f,
                            index_t nrhs, cuda::SolverOptions options, bool reverse,
                            bool* singular = nullptr, cuda::SolveStats* stats = nullptr,
                            bool check = true, std::vector<EigenData<Scalar>>* eigen = nullptr) {
  using T = cuda::detail::kernel_t<Scalar>;
  HostExec exec;
  exec.reverse = reverse;
  options.rhs_per_round = nrhs;
  using Core = cuda::detail::SolverCore<Scalar, HostExec>;
  auto plan = eigen ? std::make_unique<Core>(exec, op, std::move(*eigen), options, 0)
                    : std::make_unique<Core>(exec, op, options, 0);
  Core& core = *plan;
  EXPECT_EQ(core.rhs_per_round(), nrhs);
  HostExec::Buffer<T> u(f.size());
  cuda::SolveStats st;
  core.solve(exec, nrhs, reinterpret_cast<const T*>(f.data()), u.data(), check,
             check ? &st : nullptr);
  if (singular != nullptr) *singular = core.singular();
  if (stats != nullptr) *stats = st;
  const Scalar* p = reinterpret_cast<const Scalar*>(u.data());
  return std::vector<Scalar>(p, p + f.size());
}

template <class Scalar>
void check_case(const testing::GpuCase& c, cuda::Pivoting pivoting) {
  SCOPED_TRACE(c.name());
  const Problem<Scalar> p = testing::make_problem<Scalar>(c);
  cuda::SolverOptions options;
  options.pivoting = pivoting;
  bool singular = false;
  const auto u = emulate(p.op, p.f, 1, options, false, &singular);
  const auto u_rev = emulate(p.op, p.f, 1, options, true);
  for (std::size_t k = 0; k < u.size(); ++k) {
    ASSERT_TRUE(std::isfinite(std::abs(u[k]))) << "u[" << k << "] not finite (not written?)";
    // Bitwise: every element is computed by the same operations in either order.
    ASSERT_EQ(u[k], u_rev[k]) << "element " << k << " depends on the order of a launch";
  }
  // Tolerances: the CPU backend's own bounds against the oracle (issue 4); the graded meshes
  // (step ratio 10) and the indefinite Helmholtz shifts cost a few digits more than the
  // residual, hence error bounds 10x the residual bounds.
  const double res_tol = c.helmholtz() ? 1e-10 : 1e-12;
  const double err_tol = 10 * res_tol;
  if (singular) {
    const auto fh = testing::project_neumann(p.op, p.f.data());
    EXPECT_LE(p.op.relative_residual(u.data(), fh.data()), res_tol);
    EXPECT_LE(testing::neumann_mean(p.op, u.data()), 1e-12) << "not the mean-zero solution";
    return;
  }
  const auto ref = testing::sparse_lu_solve(p.op, p.f.data());
  EXPECT_LE(testing::relative_difference(u, ref), err_tol);
  EXPECT_LE(p.op.relative_residual(u.data(), p.f.data()), res_tol);
}

TYPED_TEST(SolverGpuEmulation, MatchesOracleOnEveryCase) {
  using Scalar = TypeParam;
  index_t ran = 0;
  for (const auto& c : testing::gpu_cases()) {
    if (!c.template runs_as<Scalar>()) continue;
    check_case<Scalar>(c, cuda::Pivoting::automatic);
    ++ran;
    if (::testing::Test::HasFatalFailure()) return;
  }
  EXPECT_GT(ran, 10);
}

TYPED_TEST(SolverGpuEmulation, UnfusedStagesToo) {
  using Scalar = TypeParam;
  // The fused stages wherever they apply against the separate stages, case by case.
  for (const auto& c : testing::gpu_cases()) {
    if (!c.template runs_as<Scalar>()) continue;
    SCOPED_TRACE(c.name());
    const Problem<Scalar> p = testing::make_problem<Scalar>(c);
    cuda::SolverOptions fused, separate;
    fused.fusion = cuda::StageFusion::always;
    separate.fusion = cuda::StageFusion::never;
    const auto u1 = emulate(p.op, p.f, 1, fused, false);
    const auto u2 = emulate(p.op, p.f, 1, separate, false);
    // Both are PSCR with the same partition method per system, the right-hand sides and sums
    // formed in another order: rounding apart, amplified like the residual (Helmholtz).
    EXPECT_LE(testing::relative_difference(u1, u2), c.helmholtz() ? 1e-10 : 1e-12);
  }
}

TYPED_TEST(SolverGpuEmulation, FusedPlanKeepsNoSystemsArray) {
  using Scalar = TypeParam;
  using T = cuda::detail::kernel_t<Scalar>;
  // Where every stage runs fused, the plan holds no systems array X (one row per shifted system,
  // the largest array of the separate stages) nor its shifts: exactly those bytes less than the
  // separate stages' plan. A singular problem's top stage runs separately: no saving there.
  const index_t R = 2;
  for (const auto& dims : std::vector<std::vector<index_t>>{{17, 9}, {5, 4, 7}}) {
    for (auto side : {problems::Boundary::dirichlet, problems::Boundary::neumann}) {
      testing::GpuCase c;
      c.complex_poisson = is_complex_v<Scalar>;
      for (index_t n : dims) c.spec.dims.push_back({n, {}, side, side});
      SCOPED_TRACE(c.name());
      const Problem<Scalar> p = testing::make_problem<Scalar>(c);
      HostExec exec;
      cuda::SolverOptions fused, separate;
      fused.rhs_per_round = separate.rhs_per_round = R;
      fused.fusion = cuda::StageFusion::always;
      separate.fusion = cuda::StageFusion::never;
      using Core = cuda::detail::SolverCore<Scalar, HostExec>;
      const Core with_fusion(exec, p.op, fused, 0), without(exec, p.op, separate, 0);
      // The engine whose row solver is the tridiagonal one: dimension 1 of 2D, 2 of 3D, whose
      // problems are the outer level's systems in 3D.
      const auto& eigen = with_fusion.eigen_data();
      const index_t S =
          cuda::detail::build_tables(eigen.back(), cuda::detail::kChunkLanes).max_systems;
      const index_t engine_problems =
          dims.size() == 2
              ? R
              : R * cuda::detail::build_tables(eigen[0], cuda::detail::kChunkLanes).max_systems;
      const std::size_t systems_bytes =
          sizeof(T) *
          static_cast<std::size_t>(engine_problems * S * dims.back() + engine_problems * S);
      if (side == problems::Boundary::neumann) {
        ASSERT_TRUE(with_fusion.singular());
        EXPECT_EQ(with_fusion.bytes(), without.bytes());
      } else {
        EXPECT_EQ(with_fusion.bytes() + systems_bytes, without.bytes());
      }
    }
  }
}

TYPED_TEST(SolverGpuEmulation, PivotingModesAgree) {
  using Scalar = TypeParam;
  // Helmholtz with Dirichlet sides is real and indefinite, with absorbing sides complex: both go
  // through the monitor; `always` and `never` must give the same solution to rounding.
  for (const auto& c : testing::gpu_cases()) {
    if (!c.helmholtz() || !c.template runs_as<Scalar>() || c.spec.dims.size() != 2) continue;
    check_case<Scalar>(c, cuda::Pivoting::always);
    check_case<Scalar>(c, cuda::Pivoting::never);
  }
}

TYPED_TEST(SolverGpuEmulation, SeveralRightHandSidesInOneRound) {
  using Scalar = TypeParam;
  // Three grids in one round, 2D and 3D, one of them singular: each must equal its own solve.
  for (const auto& dims : std::vector<std::vector<index_t>>{{17, 5}, {5, 4, 7}}) {
    testing::GpuCase c;
    c.complex_poisson = is_complex_v<Scalar>;
    for (index_t n : dims) c.spec.dims.push_back({n});
    c.spec.nrhs = 3;
    for (auto side : {problems::Boundary::dirichlet, problems::Boundary::neumann}) {
      for (auto& d : c.spec.dims) d.left = d.right = side;
      SCOPED_TRACE(c.name());
      const Problem<Scalar> p = testing::make_problem<Scalar>(c);
      const index_t n = p.op.grid_size();
      const auto all = emulate(p.op, p.f, 3, {}, false);
      for (index_t r = 0; r < 3; ++r) {
        const std::vector<Scalar> f1(p.f.begin() + r * n, p.f.begin() + (r + 1) * n);
        const auto one = emulate(p.op, f1, 1, {}, false);
        for (index_t k = 0; k < n; ++k) ASSERT_EQ(all[r * n + k], one[k]) << "rhs " << r;
      }
    }
  }
}

TYPED_TEST(SolverGpuEmulation, ResidualStageMatchesTheOperator) {
  using Scalar = TypeParam;
  using T = cuda::detail::kernel_t<Scalar>;
  // r = f − A u for random factors, u and f, 2D and 3D, odd sizes, against SeparableOperator.
  std::uint64_t seed = 3;
  for (const auto& shape : std::vector<std::vector<index_t>>{
           {1, 1}, {7, 1}, {5, 33}, {2, 3, 4}, {6, 1, 5}, {3, 5, 1}}) {
    std::vector<Factor<Scalar>> factors;
    for (index_t n : shape)
      factors.push_back({{testing::random_vector<Scalar>(n, seed++),
                          testing::random_vector<Scalar>(n - 1, seed++)},
                         {testing::random_vector<Scalar>(n, seed++),
                          testing::random_vector<Scalar>(n - 1, seed++)}});
    const SeparableOperator<Scalar> op(factors, testing::random_vector<Scalar>(1, seed++)[0]);
    const index_t n = op.grid_size();
    const index_t P = 2;
    const auto u = testing::random_vector<Scalar>(P * n, seed++);
    const auto f = testing::random_vector<Scalar>(P * n, seed++);
    std::vector<Scalar> expected(P * n);
    for (index_t p = 0; p < P; ++p) {
      op.apply(u.data() + p * n, expected.data() + p * n);
      for (index_t k = 0; k < n; ++k) expected[p * n + k] = f[p * n + k] - expected[p * n + k];
    }
    HostExec exec;
    using FB = cuda::detail::FactorBuffers<Scalar, HostExec>;
    std::vector<std::unique_ptr<FB>> fb;
    for (const auto& fac : factors) fb.push_back(std::make_unique<FB>(exec, fac));
    const auto a1 = fb[0]->op();
    const T c = cuda::detail::to_kernel(op.c());
    const index_t N = n / shape[0];
    std::vector<Scalar> r(P * n, Scalar(std::nan("")));
    auto run = [&](auto row) {
      exec.launch(Stage::other, P * shape[0], N,
                  cuda::detail::ResidualStage<T, decltype(row)>{
                      a1.a_diag, a1.a_off, a1.m_diag, a1.m_off, a1.n, c, row, N, n,
                      reinterpret_cast<const T*>(f.data()), reinterpret_cast<const T*>(u.data()),
                      reinterpret_cast<T*>(r.data())});
    };
    if (shape.size() == 2) {
      run(fb[1]->op());
    } else {
      run(cuda::detail::GridRowOp<T>{fb[1]->op(), fb[2]->op()});
    }
    // Sums of up to 27 products of O(1) values, in another order.
    EXPECT_LE(testing::relative_difference(r, expected), testing::tolerance<Scalar>(100))
        << shape.size() << "D, n1 = " << shape[0];
    // Column sums of |r|² give ‖r_p‖².
    std::vector<Scalar> partial(P * N);
    exec.launch(Stage::other, P, N,
                cuda::detail::NormColumns<T>{reinterpret_cast<const T*>(r.data()), shape[0], N, n,
                                             reinterpret_cast<T*>(partial.data())});
    for (index_t p = 0; p < P; ++p) {
      double sum = 0;
      for (index_t q = 0; q < N; ++q) sum += std::real(partial[p * N + q]);
      EXPECT_NEAR(std::sqrt(sum), norm2(r.data() + p * n, n), 1e-13 * std::sqrt(sum));
    }
  }
}

TYPED_TEST(SolverGpuEmulation, RefinementFollowsTheCpuRule) {
  using Scalar = TypeParam;
  using problems::Boundary;
  std::vector<testing::GpuCase> cases;
  // Poisson, 2D and 3D, Dirichlet and pure Neumann: residuals at the rounding floor, no step.
  for (const auto& dims : std::vector<std::vector<index_t>>{{17, 15}, {5, 16, 3}})
    for (auto side : {Boundary::dirichlet, Boundary::neumann}) {
      testing::GpuCase c;
      c.complex_poisson = is_complex_v<Scalar>;
      for (index_t n : dims) c.spec.dims.push_back({n, {}, side, side});
      cases.push_back(c);
    }
  // Helmholtz near resonance (complex): refinement needed.
  for (const auto& c : testing::gpu_cases())
    if (c.helmholtz() && c.spec.omega == 30.0) cases.push_back(c);
  index_t refined = 0;
  for (const auto& c : cases) {
    if (!c.template runs_as<Scalar>()) continue;
    SCOPED_TRACE(c.name());
    const Problem<Scalar> p = testing::make_problem<Scalar>(c);
    bool singular = false;
    cuda::SolverOptions plain;
    plain.max_refinements = 0;
    const auto u0 = emulate(p.op, p.f, 1, plain, false, &singular);
    const auto f = singular ? testing::project_neumann(p.op, p.f.data()) : p.f;
    const double r0 = p.op.relative_residual(u0.data(), f.data());
    cuda::SolveStats st;
    const auto u = emulate(p.op, p.f, 1, {}, false, nullptr, &st);
    const double r = p.op.relative_residual(u.data(), f.data());
    // The device computes the residuals in another order: equal up to their rounding (the CPU
    // backend's test of its own statistics).
    EXPECT_NEAR(st.initial_residual, r0, 0.5 * r0 + testing::tolerance<Scalar>(10));
    EXPECT_NEAR(st.residual, r, 0.5 * r + testing::tolerance<Scalar>(10));
    EXPECT_EQ(st.refinements > 0, r0 > cuda::SolverOptions{}.refine_tolerance);
    EXPECT_LE(r, cuda::SolverOptions{}.refine_tolerance);
    refined += st.refinements;
    // Device solves: the same number of steps, taken without looking, give the same solution.
    cuda::SolverOptions device;
    device.device_refinements = static_cast<int>(st.refinements);
    const auto ud = emulate(p.op, p.f, 1, device, false, nullptr, nullptr, false);
    for (std::size_t k = 0; k < ud.size(); ++k) ASSERT_EQ(ud[k], u[k]) << "element " << k;
  }
  if (is_complex_v<Scalar>) EXPECT_GT(refined, 0) << "no case exercised the refinement";
}

TYPED_TEST(SolverGpuEmulation, PlanFromGivenEigenDataIsBitwiseTheSame) {
  using Scalar = TypeParam;
  // The plan built from precomputed eigen-data (issue 3: initialize once, solve many times)
  // solves exactly as the plan that computes them; eigen-data of another size are refused.
  index_t ran = 0;
  for (const auto& c : testing::gpu_cases()) {
    if (!c.template runs_as<Scalar>()) continue;
    SCOPED_TRACE(c.name());
    const Problem<Scalar> p = testing::make_problem<Scalar>(c);
    auto eigen = reference::compute_plan_eigen_data(p.op);
    const auto u = emulate(p.op, p.f, 1, {}, false);
    const auto u_given = emulate(p.op, p.f, 1, {}, false, nullptr, nullptr, true, &eigen);
    for (std::size_t k = 0; k < u.size(); ++k) ASSERT_EQ(u_given[k], u[k]) << "element " << k;
    ++ran;
  }
  EXPECT_GT(ran, 10);
  // The first two 2D cases of this scalar type whose n1 differ.
  std::vector<Problem<Scalar>> two;
  for (const auto& c : testing::gpu_cases())
    if (c.template runs_as<Scalar>() && c.spec.dims.size() == 2 &&
        (two.empty() || two[0].op.factor(0).size() != c.spec.dims[0].n) && two.size() < 2)
      two.push_back(testing::make_problem<Scalar>(c));
  ASSERT_EQ(two.size(), 2u);
  auto wrong = reference::compute_plan_eigen_data(two[1].op);
  EXPECT_THROW(emulate(two[0].op, two[0].f, 1, {}, false, nullptr, nullptr, true, &wrong),
               InputError);
}

// The GPU plan's levels 1 and 2, with level 3 solved exactly, against the CPU backend on an
// indefinite Helmholtz problem of pscr_gpu_bench's kind (random mesh, absorbing sides, 10 points
// per wavelength, its seed), neither refined: the same residual to rounding (within 0.3% at 255²
// to 4095² when measured), so that where the GPU's own residual exceeds the CPU backend's, its
// level-3 solvers account for it (docs/tridiag-performance.md).
TEST(SolverGpuEmulationHelmholtz, InitialResidualIsTheCpuBackends) {
  using C = std::complex<double>;
  const index_t n = 255;
  problems::ProblemSpec spec;
  spec.equation = problems::Equation::helmholtz;
  for (int d = 0; d < 2; ++d) {
    problems::DimensionSpec dim;
    dim.n = n;
    dim.mesh.kind = problems::MeshKind::random;
    dim.left = dim.right = problems::Boundary::absorbing;
    spec.dims.push_back(dim);
  }
  spec.omega = 2.0 * M_PI * static_cast<double>(n + 1) / 10.0;
  spec.seed = 2018;
  const auto p = std::get<Problem<C>>(problems::generate(spec));
  cuda::SolverOptions gpu_options;
  gpu_options.max_refinements = 0;
  const auto u_gpu = emulate(p.op, p.f, 1, gpu_options, false);
  reference::SolverOptions cpu_options;
  cpu_options.max_refinements = 0;
  reference::Solver<C> cpu(p.op, cpu_options);
  std::vector<C> u_cpu(p.f.size());
  cpu.solve(p.f.data(), u_cpu.data());
  const double gpu_residual = p.op.relative_residual(u_gpu.data(), p.f.data());
  const double cpu_residual = p.op.relative_residual(u_cpu.data(), p.f.data());
  // Indefinite: PSCR alone leaves far more than rounding (2.6e-11 measured), so that a ratio
  // near 1 is a real agreement.
  EXPECT_GT(cpu_residual, 1e-13);
  EXPECT_LE(gpu_residual, 1.2 * cpu_residual);
  EXPECT_GE(gpu_residual, cpu_residual / 1.2);
}

// Where the default options fuse a level's stages: in shared memory real systems up to kFusedMaxN
// rows and complex ones up to 41 (block_stage_pays); as the segment stage real systems from 4095
// rows on every GPU, complex ones from 2047 rows but not on the H200, whose separate stages
// measured faster at every size (segment_stage_pays).
TEST(StageFusion, FusesWhereItMeasuredFaster) {
  using cuda::detail::block_stage_pays;
  using cuda::detail::segment_stage_pays;
  using tridiag::cuda::SelectionGpu;
  for (const index_t n : {1, 2, 41, 63, 64}) EXPECT_TRUE(block_stage_pays(n, false)) << n;
  for (const index_t n : {1, 2, 31, 41}) EXPECT_TRUE(block_stage_pays(n, true)) << n;
  for (const index_t n : {42, 47, 63, 64}) EXPECT_FALSE(block_stage_pays(n, true)) << n;
  for (const SelectionGpu gpu : tridiag::cuda::kSelectionGpus) {
    for (const index_t n : {1024, 2048, 4094}) EXPECT_FALSE(segment_stage_pays(n, gpu, false)) << n;
    for (const index_t n : {4095, 8192, 16384}) EXPECT_TRUE(segment_stage_pays(n, gpu, false)) << n;
  }
  EXPECT_FALSE(segment_stage_pays(2046, SelectionGpu::h100, true));
  for (const index_t n : {2047, 4095, 8191})
    EXPECT_TRUE(segment_stage_pays(n, SelectionGpu::h100, true)) << n;
  for (const index_t n : {1023, 2047, 4095, 8191, 16383})
    EXPECT_FALSE(segment_stage_pays(n, SelectionGpu::h200, true)) << n;
}

}  // namespace
}  // namespace pscr
