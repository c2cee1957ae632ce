#include "pscr/reference/solver.hpp"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <sstream>
#include <string>

#include "common/error.hpp"
#include "eigen_init/eigen_data_check.hpp"
#include "eigen_init/eigen_init.hpp"
#include "pscr/partition.hpp"
#include "pscr/reference/levels.hpp"
#include "pscr/reference/residual.hpp"
#include "pscr/reference/rows.hpp"

namespace pscr::reference {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

constexpr int kRadix = 4;

/// Tasks per level the 2D solver aims at: enough for many cores, few enough that the slots of
/// split blocks stay small (64 · 3 rows).
constexpr index_t kTargetTasks2d = 64;

template <class Scalar>
bool all_finite(const Scalar* x, index_t n, int threads) {
  bool ok = true;
#pragma omp parallel for reduction(&& : ok) schedule(static) num_threads(threads) \
    if (threads > 1 && n > 65536)
  for (index_t k = 0; k < n; ++k) ok = ok && is_finite(x[k]);
  return ok;
}

/// |λ| ≤ tol · max|λ| over the top-level block: the pencil (A1, M1) has a zero eigenvalue.
template <class Scalar>
bool has_zero_eigenvalue(const EigenData<Scalar>& eigen, Scalar smallest) {
  const auto& top = eigen.block(eigen.partition.num_levels(), 0);
  real_t<Scalar> largest = 0;
  for (const auto& l : top.lambda) largest = std::max(largest, std::abs(l));
  return std::abs(smallest) <= 1e-8 * largest;
}

void check_options(const SolverOptions& options) {
  if (options.max_refinements < 0 || !(options.refine_tolerance >= 0))
    PSCR_INPUT_ERROR("solver: expected max_refinements >= 0 and refine_tolerance >= 0, found "
                     << options.max_refinements << " and " << options.refine_tolerance);
  if (options.threads < 0)
    PSCR_INPUT_ERROR("solver: threads must be >= 0 (0: OpenMP default), got " << options.threads);
}

}  // namespace

template <class Scalar>
std::vector<EigenData<Scalar>> compute_plan_eigen_data(const SeparableOperator<Scalar>& op) {
  if (op.dimension() != 2 && op.dimension() != 3)
    PSCR_INPUT_ERROR("solver: expected a 2D or 3D operator, found dimension " << op.dimension());
  std::vector<EigenData<Scalar>> eigen;
  for (int d = 0; d + 1 < op.dimension(); ++d)
    eigen.push_back(compute_eigen_data(op.factor(d), Partition(op.factor(d).size(), kRadix)));
  return eigen;
}

template <class Scalar>
std::vector<const Factor<Scalar>*> plan_eigen_factors(const SeparableOperator<Scalar>& op) {
  std::vector<const Factor<Scalar>*> factors;
  for (int d = 0; d + 1 < op.dimension(); ++d) factors.push_back(&op.factor(d));
  return factors;
}

template <class Scalar>
void check_plan_eigen_data(const SeparableOperator<Scalar>& op,
                           const std::vector<EigenData<Scalar>>& eigen, const char* who) {
  const int dims = op.dimension() - 1;
  if (static_cast<int>(eigen.size()) != dims)
    PSCR_INPUT_ERROR(who << ": expected eigen-data of " << dims << " dimension(s) for a "
                         << op.dimension() << "D operator (dimension 1"
                         << (dims == 2 ? " and 2" : "") << "), found " << eigen.size());
  for (int d = 0; d < dims; ++d) {
    std::ostringstream head;
    head << who << ": eigen-data of dimension " << d + 1 << ": ";
    const std::string where = head.str();
    const EigenData<Scalar>& data = eigen[d];
    const Partition& p = data.partition;
    const index_t n = op.factor(d).size();
    if (p.size() != n || p.radix() != kRadix)
      PSCR_INPUT_ERROR(where << "expected the radix-" << kRadix << " partition of n = " << n
                             << " (the size of factor " << d + 1 << "), found n = " << p.size()
                             << ", radix " << p.radix());
    if (const auto fault = find_fault(data)) PSCR_INPUT_ERROR(where << fault->message);
  }
}

template <class Scalar>
struct Solver<Scalar>::Impl {
  using Rows2 = detail::TridiagRows<Scalar>;
  using Plan2 = detail::LevelSolver<Scalar, Rows2>;
  using Rows3 = detail::GridRows<Scalar>;
  using Plan3 = detail::LevelSolver<Scalar, Rows3>;

  SeparableOperator<Scalar> op;
  SolverOptions options;
  std::vector<EigenData<Scalar>> eigen_data;  ///< dimension 1 (, dimension 2 in 3D)
  int threads = 1;
  double init_seconds = 0;
  SolveStats stats;

  // 2D: plan2 over (dim 1; dim 2). 3D: inner over (dim 2; dim 3), plan3 over (dim 1; inner).
  std::shared_ptr<const Plan2> plan2;
  typename Plan2::Workspace ws2;
  std::unique_ptr<Plan3> plan3;
  typename Plan3::Workspace ws3;
  std::vector<Scalar> F;  ///< right-hand side of a PSCR solve, reduced in place
  std::vector<Scalar> R;  ///< f̂ (singular case) or f kept while u overwrites it (refinement)
  std::vector<Scalar> D;  ///< with refinement: a correction
  std::unique_ptr<detail::ResidualOperator<Scalar>> resop;  ///< with refinement

  // Singular (pure Neumann, c = 0): the operator's null space (its null vector is e below).
  bool singular = false;
  KroneckerNullSpace<Scalar> null_space;

  /// The plan from eigen-data that fit op (checked by the caller); the plans keep their own
  /// copies, `eigen_data` keeps them for Solver::eigen_data().
  Impl(const SeparableOperator<Scalar>& op_in, std::vector<EigenData<Scalar>> eigen,
       SolverOptions opts)
      : op(op_in), options(opts), eigen_data(std::move(eigen)) {
    const auto start = Clock::now();
    threads = options.threads > 0 ? options.threads : std::max(1, omp_get_max_threads());
    const auto& f = op.factors();
    if (op.dimension() == 2) {
      plan2 = std::make_shared<Plan2>(f[0], eigen_data[0], Rows2(f[1], options.pivoting),
                                      kTargetTasks2d);
      ws2 = plan2->make_workspace(threads);
    } else {
      // Inner 2D solves run one per thread: never split their blocks.
      auto inner = std::make_shared<Plan2>(f[1], eigen_data[1], Rows2(f[2], options.pivoting), 1);
      // Slots of split blocks hold up to 3 rows of n2·n3 per task: at most about one grid.
      const index_t target = std::clamp<index_t>(f[0].size() / 4, 1, 64);
      plan3 = std::make_unique<Plan3>(f[0], eigen_data[0], Rows3(f[1], f[2], inner), target);
      ws3 = plan3->make_workspace(threads);
      plan2 = inner;
    }
    F.assign(op.grid_size(), Scalar(0));
    if (options.max_refinements > 0) {
      D.assign(op.grid_size(), Scalar(0));
      resop = std::make_unique<detail::ResidualOperator<Scalar>>(op, threads);
    }
    detect_singular();
    init_seconds = seconds_since(start);
  }

  /// Pure Neumann with c = 0: every A_d singular, and the eigen-data agree (dimension 1, and 2
  /// in 3D, have a zero eigenvalue).
  void detect_singular() {
    auto space = kronecker_null_space(op);
    if (!space) return;
    if (op.dimension() == 2) {
      if (!has_zero_eigenvalue(plan2->eigen(), plan2->smallest_eigenvalue())) return;
    } else {
      if (!has_zero_eigenvalue(plan3->eigen(), plan3->smallest_eigenvalue())) return;
      if (!has_zero_eigenvalue(plan2->eigen(), plan2->smallest_eigenvalue())) return;
    }
    null_space = std::move(*space);
    singular = true;
  }

  /// u = PSCR(F): F holds the right-hand side and is overwritten; returns the flops.
  double pscr(Scalar* u) {
    if (plan3) return plan3->solve(op.c(), singular, F.data(), u, ws3, threads);
    return plan2->solve(op.c(), singular, F.data(), u, ws2, threads);
  }

  /// ‖x‖₂ summed in fixed blocks, in order: the same value for any thread count.
  real_t<Scalar> norm(const Scalar* x) const {
    const index_t n = op.grid_size();
    constexpr index_t kBlock = 4096;
    const index_t nblocks = (n + kBlock - 1) / kBlock;
    std::vector<real_t<Scalar>> part(nblocks, 0);
#pragma omp parallel for schedule(static) num_threads(threads) if (threads > 1 && nblocks > 16)
    for (index_t b = 0; b < nblocks; ++b) {
      real_t<Scalar> sum = 0;
      const index_t end = std::min(n, (b + 1) * kBlock);
#pragma omp simd reduction(+ : sum)
      for (index_t k = b * kBlock; k < end; ++k) sum += abs2(x[k]);
      part[b] = sum;
    }
    real_t<Scalar> total = 0;
    for (const auto& v : part) total += v;
    return std::sqrt(total);
  }

  /// y = x for a grid, on the solver's threads.
  void copy(const Scalar* x, Scalar* y) const {
    const index_t n = op.grid_size();
#pragma omp parallel for schedule(static) num_threads(threads) if (threads > 1 && n > 65536)
    for (index_t k = 0; k < n; ++k) y[k] = x[k];
  }

  /// y += a x for a grid, on the solver's threads.
  void axpy(Scalar a, const Scalar* x, Scalar* y) const {
    const index_t n = op.grid_size();
#pragma omp parallel for schedule(static) num_threads(threads) if (threads > 1 && n > 65536)
    for (index_t k = 0; k < n; ++k) y[k] += a * x[k];
  }

  /// r = f − A u.
  void residual(const Scalar* f, const Scalar* u, Scalar* r) {
    (*resop)(f, u, r);
  }

  /// One right-hand side: (projection,) PSCR, residual, refinement steps; returns the flops and
  /// updates the residual and refinement statistics of `stats`.
  double solve_one(const Scalar* f_in, Scalar* u, SolveStats& st) {
    const index_t n = op.grid_size();
    const bool refine = options.max_refinements > 0;
    double flops = 0;
    // The right-hand side the solution must satisfy: f, or f̂ = f − μ M e (singular case). It
    // is copied to R when it must be changed, or kept for the refinement while u overwrites f.
    const Scalar* f = f_in;
    if (singular || (refine && f_in == u)) {
      if (R.empty()) R.assign(n, Scalar(0));
      copy(f_in, R.data());
      if (singular) {
        // f̂ = f − μ M e with μ = eᵀ f / eᵀ M e: f projected onto range(A).
        const auto& e = null_space;
        kron_axpy(op.shape(), kron_dot(op.shape(), e.z, R.data()) / e.z_m_z, e.mz, R.data());
        flops += flop_scale() * 4.0 * n;
      }
      f = R.data();
    }
    copy(f, F.data());
    flops += pscr(u);
    if (refine) {
      const double nf = static_cast<double>(norm(f));
      // r = f − A u into F: the next right-hand side.
      auto relative_residual = [&]() {
        residual(f, u, F.data());
        flops += resop->flops_per_unknown() * n;
        const double nr = static_cast<double>(norm(F.data()));
        return nf > 0 ? nr / nf : nr;
      };
      double rel = relative_residual();
      st.initial_residual = std::max(st.initial_residual, rel);
      for (int step = 0; step < options.max_refinements; ++step) {
        // Below the rounding floor of the residual itself, ~eps·‖A‖‖u‖/‖f‖ (a smooth f with a
        // large solution, e.g. Poisson on a fine grid), refinement cannot gain anything.
        const double floor = op.residual_rounding_floor(static_cast<double>(norm(u)), nf);
        if (!(rel > options.refine_tolerance) || !(rel > floor)) break;
        // u += PSCR(f − A u): one step of iterative refinement.
        flops += pscr(D.data());
        axpy(Scalar(1), D.data(), u);
        flops += flop_scale() * 2.0 * n;
        ++st.refinements;
        const double next = relative_residual();
        if (!(next <= rel)) {
          // No gain: keep the previous iterate.
          axpy(Scalar(-1), D.data(), u);
          break;
        }
        const bool stalled = next > 0.5 * rel;
        rel = next;
        if (stalled) break;
      }
      st.residual = std::max(st.residual, rel);
    }
    if (singular) {
      // u −= e (eᵀ M u) / eᵀ M e: the solution of mean zero.
      const auto& e = null_space;
      kron_axpy(op.shape(), kron_dot(op.shape(), e.mz, u) / e.z_m_z, e.z, u);
      flops += flop_scale() * 4.0 * n;
    }
    if (!all_finite(u, n, threads))
      throw SolverError(
          "PSCR solve: the solution is not finite: a shifted system is singular (the shift c "
          "hits an eigenvalue of the operator) or the problem is too ill-conditioned");
    return flops;
  }

  static constexpr double flop_scale() {
    return detail::flop_scale<Scalar>();
  }
};

template <class Scalar>
Solver<Scalar>::Solver(const SeparableOperator<Scalar>& op, SolverOptions options) {
  const auto start = Clock::now();
  check_options(options);
  impl_ = std::make_unique<Impl>(op, compute_plan_eigen_data(op), options);
  impl_->init_seconds = seconds_since(start);
}

template <class Scalar>
Solver<Scalar>::Solver(const SeparableOperator<Scalar>& op,
                       std::vector<EigenData<Scalar>> eigen_data, SolverOptions options) {
  check_options(options);
  check_plan_eigen_data(op, eigen_data, "solver");
  impl_ = std::make_unique<Impl>(op, std::move(eigen_data), options);
}

template <class Scalar>
Solver<Scalar>::~Solver() = default;
template <class Scalar>
Solver<Scalar>::Solver(Solver&&) noexcept = default;
template <class Scalar>
Solver<Scalar>& Solver<Scalar>::operator=(Solver&&) noexcept = default;

template <class Scalar>
void Solver<Scalar>::solve(const Scalar* f, Scalar* u) {
  solve_many(1, f, u);
}

template <class Scalar>
void Solver<Scalar>::solve_many(index_t nrhs, const Scalar* f, Scalar* u) {
  if (nrhs < 0) PSCR_INPUT_ERROR("solver: nrhs must be >= 0, got " << nrhs);
  if (nrhs > 0 && (f == nullptr || u == nullptr))
    PSCR_INPUT_ERROR("solver: f and u must not be null");
  const auto start = Clock::now();
  SolveStats stats;
  const index_t n = impl_->op.grid_size();
  stats.residual = impl_->options.max_refinements > 0 ? 0.0 : std::nan("");
  stats.initial_residual = stats.residual;
  for (index_t r = 0; r < nrhs; ++r) stats.flops += impl_->solve_one(f + r * n, u + r * n, stats);
  stats.right_hand_sides = nrhs;
  stats.pivoted =
      impl_->plan3 ? Impl::Plan3::take_pivoted(impl_->ws3) : Impl::Plan2::take_pivoted(impl_->ws2);
  stats.seconds = seconds_since(start);
  impl_->stats = stats;
}

template <class Scalar>
double Solver<Scalar>::init_seconds() const {
  return impl_->init_seconds;
}
template <class Scalar>
const std::vector<EigenData<Scalar>>& Solver<Scalar>::eigen_data() const {
  return impl_->eigen_data;
}
template <class Scalar>
const SolveStats& Solver<Scalar>::last_solve() const {
  return impl_->stats;
}
template <class Scalar>
bool Solver<Scalar>::singular() const {
  return impl_->singular;
}
template <class Scalar>
int Solver<Scalar>::threads() const {
  return impl_->threads;
}
template <class Scalar>
const char* Solver<Scalar>::kernels() const {
  return detail::lane_kernels<Scalar>().isa;
}
template <class Scalar>
const SeparableOperator<Scalar>& Solver<Scalar>::op() const {
  return impl_->op;
}

#define PSCR_INSTANTIATE_SOLVER(Scalar)                                         \
  template class Solver<Scalar>;                                                \
  template std::vector<EigenData<Scalar>> compute_plan_eigen_data<Scalar>(      \
      const SeparableOperator<Scalar>&);                                        \
  template std::vector<const Factor<Scalar>*> plan_eigen_factors<Scalar>(       \
      const SeparableOperator<Scalar>&);                                        \
  template void check_plan_eigen_data<Scalar>(const SeparableOperator<Scalar>&, \
                                              const std::vector<EigenData<Scalar>>&, const char*);
PSCR_FOR_EACH_SCALAR(PSCR_INSTANTIATE_SOLVER)
#undef PSCR_INSTANTIATE_SOLVER

}  // namespace pscr::reference
