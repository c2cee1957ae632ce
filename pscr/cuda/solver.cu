// The GPU Solver: the plan of solver_core.cuh on the device executor, host transfers and their
// timing, rounds of right-hand sides, and the ordering of solves on different streams.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>
#include <sstream>
#include <string>

#include "common/cuda/check.hpp"
#include "common/cuda/device_buffer.hpp"
#include "pscr/cuda/device_exec.cuh"
#include "pscr/cuda/fd_solver.hpp"
#include "pscr/cuda/solver.hpp"
#include "pscr/cuda/solver_core.cuh"
#include "pscr/reference/solver.hpp"

namespace pscr::cuda {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

/// An event used only for ordering (no timing), owned.
class OrderEvent {
 public:
  OrderEvent() { PSCR_CUDA_CHECK(cudaEventCreateWithFlags(&event_, cudaEventDisableTiming)); }
  OrderEvent(const OrderEvent&) = delete;
  OrderEvent& operator=(const OrderEvent&) = delete;
  ~OrderEvent() { cudaEventDestroy(event_); }
  void record(cudaStream_t stream) { PSCR_CUDA_CHECK(cudaEventRecord(event_, stream)); }
  /// Makes `stream` wait (on the device) for the last record.
  void wait(cudaStream_t stream) const { PSCR_CUDA_CHECK(cudaStreamWaitEvent(stream, event_, 0)); }

 private:
  cudaEvent_t event_ = nullptr;
};

}  // namespace

template <class Scalar>
struct Solver<Scalar>::Impl {
  using T = detail::kernel_t<Scalar>;
  using Core = detail::SolverCore<Scalar, detail::DeviceExec>;

  SolverOptions options;
  Stream stream;  ///< plan building and host solves
  detail::DeviceExec exec{stream.get()};
  SolverMethod method = SolverMethod::pscr;
  std::string reason;
  std::unique_ptr<Core> core;               ///< PSCR
  std::unique_ptr<FdGpuSolver<Scalar>> fd;  ///< fast diagonalization
  std::unique_ptr<SeparableOperator<Scalar>> fd_op;
  std::size_t fd_bytes = 0;
  std::vector<EigenData<Scalar>> fd_eigen;  ///< eigen_data() of an FD plan, computed on demand
  std::unique_ptr<DeviceOperator<Scalar>> fd_apply;  ///< A, for the residuals of FD host solves
  DeviceBuffer<Scalar> fd_r, fd_c;                   ///< residual and correction of FD host solves
  DeviceBuffer<T> d_f, d_u;                          ///< staging of one round for host solves
  Event up_start, up_end, solve_end, down_end;
  OrderEvent done;  ///< recorded after every solve: the next one (on any stream) waits for it
  SolveStats stats;
  double init_seconds = 0;

  /// `eigen`: precomputed eigen-data, or none to compute them.
  Impl(const SeparableOperator<Scalar>& op, std::vector<EigenData<Scalar>>* eigen,
       SolverOptions opts)
      : options(opts) {
    const auto start = Clock::now();
    const index_t host_grids = options.host_buffers ? 2 : 0;
    if (eigen != nullptr && options.method == SolverMethod::fast_diagonalization)
      PSCR_INPUT_ERROR(
          "GPU solver: eigen-data are PSCR's; fast diagonalization computes its own (build the "
          "solver without eigen-data)");
    if (eigen == nullptr && build_fd(op)) {
      if (options.host_buffers) {
        d_f = DeviceBuffer<T>(op.grid_size());
        d_u = DeviceBuffer<T>(op.grid_size());
        if (fd_checks()) {
          fd_apply = std::make_unique<DeviceOperator<Scalar>>(op);
          fd_r = DeviceBuffer<Scalar>(op.grid_size());
          fd_c = DeviceBuffer<Scalar>(op.grid_size());
        }
      }
    } else {
      if (eigen != nullptr) reason = "eigen-data given (PSCR's setup is done)";
      core = eigen ? std::make_unique<Core>(exec, op, std::move(*eigen), options, host_grids)
                   : std::make_unique<Core>(exec, op, options, host_grids);
      if (options.host_buffers) {
        const index_t n = core->rhs_per_round() * core->grid_size();
        d_f = DeviceBuffer<T>(n);
        d_u = DeviceBuffer<T>(n);
      }
    }
    done.record(stream.get());
    stream.synchronize();
    init_seconds = seconds_since(start);
  }

  /// The method choice (solver.hpp, pscr/fd/choice.hpp); builds the FD plan and returns true
  /// where FD runs, returns false (reason set) where PSCR does.
  bool build_fd(const SeparableOperator<Scalar>& op) {
    if (options.method == SolverMethod::pscr) {
      reason = "requested";
      return false;
    }
    if (!(options.fd_setup_budget_s >= 0))
      PSCR_INPUT_ERROR("GPU solver: expected fd_setup_budget_s >= 0, found "
                       << options.fd_setup_budget_s);
    // The PSCR plan's checks of the options FD ignores, so that both methods reject the same.
    if (options.rhs_per_round < 0 || options.max_refinements < 0 ||
        options.device_refinements < 0 || !(options.refine_tolerance >= 0))
      PSCR_INPUT_ERROR(
          "GPU solver: expected rhs_per_round, max_refinements, device_refinements "
          "and refine_tolerance >= 0, found "
          << options.rhs_per_round << ", " << options.max_refinements << ", "
          << options.device_refinements << " and " << options.refine_tolerance);
    const bool automatic = options.method == SolverMethod::automatic;
    fd::ChoiceInput in;
    in.shape = op.shape();
    for (int d = 0; d + 1 < op.dimension(); ++d)
      in.dense.push_back(fd::uses_dense_eigensolver(op.factor(d)));
    in.scalar_bytes = sizeof(Scalar);
    in.host_grids = fd::fd_host_grids(options.host_buffers, fd_checks());
    in.singular = kronecker_null_space(op).has_value();  // before the plan's eigenvalue check
    in.pscr_options = options.rhs_per_round != 0 || options.device_refinements != 0 ||
                      options.profile || options.pivoting != Pivoting::automatic ||
                      options.fusion != StageFusion::automatic;
    in.free_device_bytes = exec.free_bytes();
    in.setup_budget_s = options.fd_setup_budget_s;
    if (automatic) {
      const fd::Choice choice = fd::choose_method(in);
      reason = choice.reason;
      if (choice.method == SolverMethod::pscr) return false;
    } else {
      if (op.dimension() != 2 && op.dimension() != 3)
        PSCR_INPUT_ERROR("GPU solver: expected a 2D or 3D operator, found dimension "
                         << op.dimension());
      if (in.singular)
        PSCR_INPUT_ERROR(
            "GPU solver: fast diagonalization cannot solve the singular pure-Neumann "
            "problem (c = 0); use SolverMethod::pscr or automatic");
      const std::size_t need = fd::fd_device_bytes(in.shape, in.scalar_bytes, in.host_grids);
      if (static_cast<double>(need) > 0.9 * static_cast<double>(in.free_device_bytes)) {
        std::ostringstream msg;
        msg << "GPU solver: fast diagonalization needs " << static_cast<double>(need) / (1 << 20)
            << " MiB of device memory, but only "
            << static_cast<double>(in.free_device_bytes) / (1 << 20)
            << " MiB are free (90% usable); use SolverMethod::pscr";
        throw SolverError(msg.str());
      }
      reason = "requested";
    }
    fd::FdSetup<Scalar> setup;
    try {
      setup = fd::fd_setup(op);
    } catch (const SolverError& e) {
      if (!automatic) throw;
      reason = std::string("FD setup failed (") + e.what() + ")";
      return false;
    }
    const fd::Certificate cert = fd::certify(setup, op);
    std::ostringstream measures;
    measures << "‖WᵀMW − I‖max = " << cert.orthogonality << ", eigenpair backward error "
             << cert.backward_error << ", tolerance " << fd::kCertifyTolerance << "; "
             << cert.unstable_systems << " shifted systems unstable without pivoting";
    if (!cert.passed) {
      if (!automatic)
        throw SolverError("GPU solver: the fast-diagonalization setup is not certified: " +
                          measures.str() + "; use SolverMethod::pscr");
      reason = "FD setup not certified (" + measures.str() + ")";
      return false;
    }
    reason += "; certified: " + measures.str();
    fd = std::make_unique<FdGpuSolver<Scalar>>(setup);
    fd_op = std::make_unique<SeparableOperator<Scalar>>(op);
    fd_bytes = fd::fd_device_bytes(in.shape, in.scalar_bytes, in.host_grids);
    method = SolverMethod::fast_diagonalization;
    return true;
  }

  index_t grid_size() const { return fd ? fd_op->grid_size() : core->grid_size(); }
  index_t round() const { return fd ? 1 : core->rhs_per_round(); }
  const SeparableOperator<Scalar>& op() const { return fd ? *fd_op : core->op(); }

  /// Whether FD host solves compute their residual (and refine): as PSCR's, when
  /// max_refinements > 0.
  bool fd_checks() const { return options.max_refinements > 0; }

  /// The residual check and iterative refinement of one FD host solve (PSCR's rule, grid by
  /// grid, SolverCore::refine_checked): while ‖f − A u‖/‖f‖ exceeds refine_tolerance, at most
  /// max_refinements steps u += FD(f − A u); a step that does not lower the residual is undone,
  /// one that does not halve it is the last (PSCR's rounding floor is left out: the undo rule
  /// ends a refinement that stagnates). Synchronous; returns the final relative residual.
  double refine_fd(cudaStream_t st, const Scalar* df, Scalar* du, SolveStats& s) {
    double rel = fd->residual(st, *fd_apply, df, du, fd_r.data());
    s.initial_residual = std::max(s.initial_residual, rel);
    for (int step = 0; step < options.max_refinements && rel > options.refine_tolerance; ++step) {
      fd->solve(st, fd_r.data(), fd_c.data());
      fd->axpy(st, 1.0, fd_c.data(), du);
      ++s.refinements;
      const double next = fd->residual(st, *fd_apply, df, du, fd_r.data());
      if (!(next < rel)) {
        fd->axpy(st, -1.0, fd_c.data(), du);
        break;
      }
      const bool halved = next <= 0.5 * rel;
      rel = next;
      if (!halved) break;
    }
    return rel;
  }

  /// Host solves with FD: one grid at a time, each checked (refine_fd) when fd_checks().
  void solve_host_fd(index_t nrhs, const Scalar* f, Scalar* u) {
    const auto start = Clock::now();
    SolveStats s;
    s.residual = fd_checks() ? 0.0 : std::nan("");
    s.initial_residual = s.residual;
    const index_t grid = grid_size();
    const std::size_t bytes = sizeof(T) * static_cast<std::size_t>(grid);
    cudaStream_t st = stream.get();
    auto* df = reinterpret_cast<Scalar*>(d_f.data());
    auto* du = reinterpret_cast<Scalar*>(d_u.data());
    done.wait(st);
    for (index_t r = 0; r < nrhs; ++r) {
      up_start.record(st);
      PSCR_CUDA_CHECK(cudaMemcpyAsync(df, f + r * grid, bytes, cudaMemcpyHostToDevice, st));
      up_end.record(st);
      fd->solve(st, df, du);
      if (fd_checks()) s.residual = std::max(s.residual, refine_fd(st, df, du, s));
      solve_end.record(st);
      const bool ok = fd->finite(st, du);
      PSCR_CUDA_CHECK(cudaMemcpyAsync(u + r * grid, du, bytes, cudaMemcpyDeviceToHost, st));
      down_end.record(st);
      down_end.synchronize();
      s.upload_ms += up_end.elapsed_ms_since(up_start);
      s.solve_ms += solve_end.elapsed_ms_since(up_end);
      s.download_ms += down_end.elapsed_ms_since(solve_end);
      if (!ok)
        throw SolverError(
            "fast-diagonalization solve (GPU): the solution is not finite: a shifted system is "
            "singular or its LU factorization without pivoting broke down; use SolverMethod::pscr");
    }
    done.record(st);
    const fd::CostModel cost = fd->cost();
    s.right_hand_sides = nrhs;
    s.flops = cost.flops * (nrhs + s.refinements);
    s.bytes = cost.bytes * (nrhs + s.refinements);
    s.seconds = seconds_since(start);
    stats = s;
  }

  void solve_host(index_t nrhs, const Scalar* f, Scalar* u) {
    if (!options.host_buffers)
      PSCR_INPUT_ERROR("GPU solver: host solves need SolverOptions::host_buffers = true");
    if (fd) {
      solve_host_fd(nrhs, f, u);
      return;
    }
    const auto start = Clock::now();
    SolveStats s;
    s.residual = options.max_refinements > 0 ? 0.0 : std::nan("");
    s.initial_residual = s.residual;
    const index_t grid = core->grid_size();
    const index_t R = core->rhs_per_round();
    cudaStream_t st = stream.get();
    done.wait(st);
    for (index_t r0 = 0; r0 < nrhs; r0 += R) {
      const index_t P = std::min(R, nrhs - r0);
      const std::size_t bytes = sizeof(T) * static_cast<std::size_t>(P * grid);
      up_start.record(st);
      PSCR_CUDA_CHECK(
          cudaMemcpyAsync(d_f.data(), f + r0 * grid, bytes, cudaMemcpyHostToDevice, st));
      up_end.record(st);
      if (options.profile) exec.start_profile();
      s.flops += core->solve(exec, P, d_f.data(), d_u.data(), true, &s);
      solve_end.record(st);
      if (options.profile) exec.collect(s.stages);
      PSCR_CUDA_CHECK(
          cudaMemcpyAsync(u + r0 * grid, d_u.data(), bytes, cudaMemcpyDeviceToHost, st));
      down_end.record(st);
      down_end.synchronize();
      s.upload_ms += up_end.elapsed_ms_since(up_start);
      s.solve_ms += solve_end.elapsed_ms_since(up_end);
      s.download_ms += down_end.elapsed_ms_since(solve_end);
      if (!core->finite(exec, P, d_u.data()))
        throw SolverError(
            "PSCR solve (GPU): the solution is not finite: a shifted system is singular (the "
            "shift c hits an eigenvalue of the operator) or the problem is too ill-conditioned");
    }
    done.record(st);
    s.right_hand_sides = nrhs;
    s.bytes = core->cost_per_rhs().bytes * (nrhs + s.refinements);
    s.pivoted = core->pivoted_per_rhs() * (nrhs + s.refinements);
    s.seconds = seconds_since(start);
    stats = s;
  }

  void solve_device(cudaStream_t st, index_t nrhs, const Scalar* f, Scalar* u) {
    if (fd) {
      const index_t grid = grid_size();
      done.wait(st);
      for (index_t r = 0; r < nrhs; ++r) fd->solve(st, f + r * grid, u + r * grid);
      done.record(st);
      return;
    }
    const index_t grid = core->grid_size();
    const index_t R = core->rhs_per_round();
    done.wait(st);
    exec.set_stream(st);
    try {
      for (index_t r0 = 0; r0 < nrhs; r0 += R) {
        const index_t P = std::min(R, nrhs - r0);
        core->solve(exec, P, reinterpret_cast<const T*>(f + r0 * grid),
                    reinterpret_cast<T*>(u + r0 * grid), false, nullptr);
      }
    } catch (...) {
      exec.set_stream(stream.get());
      throw;
    }
    done.record(st);
    exec.set_stream(stream.get());
  }
};

template <class Scalar>
Solver<Scalar>::Solver(const SeparableOperator<Scalar>& op, SolverOptions options)
    : impl_(std::make_unique<Impl>(op, nullptr, options)) {}

template <class Scalar>
Solver<Scalar>::Solver(const SeparableOperator<Scalar>& op,
                       std::vector<EigenData<Scalar>> eigen_data, SolverOptions options)
    : impl_(std::make_unique<Impl>(op, &eigen_data, options)) {}

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
  if (nrhs < 0) PSCR_INPUT_ERROR("GPU solver: nrhs must be >= 0, got " << nrhs);
  if (nrhs > 0 && (f == nullptr || u == nullptr))
    PSCR_INPUT_ERROR("GPU solver: f and u must not be null");
  impl_->solve_host(nrhs, f, u);
}

template <class Scalar>
void Solver<Scalar>::solve_device(cudaStream_t stream, index_t nrhs, const Scalar* d_f,
                                  Scalar* d_u) {
  if (nrhs < 0) PSCR_INPUT_ERROR("GPU solver: nrhs must be >= 0, got " << nrhs);
  if (nrhs == 0) return;
  if (d_f == nullptr || d_u == nullptr)
    PSCR_INPUT_ERROR("GPU solver: d_f and d_u must not be null");
  const index_t n = nrhs * impl_->grid_size();
  if (d_u < d_f + n && d_f < d_u + n)
    PSCR_INPUT_ERROR("GPU solver: d_u must not overlap d_f (solve_device does not work in place)");
  impl_->solve_device(stream, nrhs, d_f, d_u);
}

template <class Scalar>
double Solver<Scalar>::init_seconds() const {
  return impl_->init_seconds;
}
template <class Scalar>
const std::vector<EigenData<Scalar>>& Solver<Scalar>::eigen_data() const {
  if (impl_->fd) {
    // An FD plan has no PSCR eigen-data: computed on the first call (CPU), for saving.
    if (impl_->fd_eigen.empty())
      impl_->fd_eigen = reference::compute_plan_eigen_data(*impl_->fd_op);
    return impl_->fd_eigen;
  }
  return impl_->core->eigen_data();
}
template <class Scalar>
const SolveStats& Solver<Scalar>::last_solve() const {
  return impl_->stats;
}
template <class Scalar>
SolverMethod Solver<Scalar>::method() const {
  return impl_->method;
}
template <class Scalar>
const std::string& Solver<Scalar>::method_reason() const {
  return impl_->reason;
}
template <class Scalar>
bool Solver<Scalar>::singular() const {
  return impl_->fd ? false : impl_->core->singular();
}
template <class Scalar>
index_t Solver<Scalar>::rhs_per_round() const {
  return impl_->round();
}
template <class Scalar>
std::size_t Solver<Scalar>::device_bytes() const {
  return impl_->fd ? impl_->fd_bytes : impl_->core->bytes();
}
template <class Scalar>
double Solver<Scalar>::flops_per_rhs() const {
  return impl_->fd ? impl_->fd->cost().flops : impl_->core->cost_per_rhs().flops;
}
template <class Scalar>
double Solver<Scalar>::bytes_per_rhs() const {
  return impl_->fd ? impl_->fd->cost().bytes : impl_->core->cost_per_rhs().bytes;
}
template <class Scalar>
const SeparableOperator<Scalar>& Solver<Scalar>::op() const {
  return impl_->op();
}

#define PSCR_INSTANTIATE_GPU_SOLVER(Scalar) template class Solver<Scalar>;
PSCR_FOR_EACH_SCALAR(PSCR_INSTANTIATE_GPU_SOLVER)
#undef PSCR_INSTANTIATE_GPU_SOLVER

}  // namespace pscr::cuda
