// The GPU Solver: the plan of solver_core.cuh on the device executor, host transfers and their
// timing, rounds of right-hand sides, and the ordering of solves on different streams.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>

#include "common/cuda/check.hpp"
#include "common/cuda/device_buffer.hpp"
#include "pscr/cuda/device_exec.cuh"
#include "pscr/cuda/solver.hpp"
#include "pscr/cuda/solver_core.cuh"

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
  std::unique_ptr<Core> core;
  DeviceBuffer<T> d_f, d_u;  ///< staging of one round for host solves
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
    core = eigen ? std::make_unique<Core>(exec, op, std::move(*eigen), options, host_grids)
                 : std::make_unique<Core>(exec, op, options, host_grids);
    if (options.host_buffers) {
      const index_t n = core->rhs_per_round() * core->grid_size();
      d_f = DeviceBuffer<T>(n);
      d_u = DeviceBuffer<T>(n);
    }
    done.record(stream.get());
    stream.synchronize();
    init_seconds = seconds_since(start);
  }

  void solve_host(index_t nrhs, const Scalar* f, Scalar* u) {
    if (!options.host_buffers)
      PSCR_INPUT_ERROR("GPU solver: host solves need SolverOptions::host_buffers = true");
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
  const index_t n = nrhs * impl_->core->grid_size();
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
  return impl_->core->eigen_data();
}
template <class Scalar>
const SolveStats& Solver<Scalar>::last_solve() const {
  return impl_->stats;
}
template <class Scalar>
bool Solver<Scalar>::singular() const {
  return impl_->core->singular();
}
template <class Scalar>
index_t Solver<Scalar>::rhs_per_round() const {
  return impl_->core->rhs_per_round();
}
template <class Scalar>
std::size_t Solver<Scalar>::device_bytes() const {
  return impl_->core->bytes();
}
template <class Scalar>
double Solver<Scalar>::flops_per_rhs() const {
  return impl_->core->cost_per_rhs().flops;
}
template <class Scalar>
double Solver<Scalar>::bytes_per_rhs() const {
  return impl_->core->cost_per_rhs().bytes;
}
template <class Scalar>
const SeparableOperator<Scalar>& Solver<Scalar>::op() const {
  return impl_->core->op();
}

#define PSCR_INSTANTIATE_GPU_SOLVER(Scalar) template class Solver<Scalar>;
PSCR_FOR_EACH_SCALAR(PSCR_INSTANTIATE_GPU_SOLVER)
#undef PSCR_INSTANTIATE_GPU_SOLVER

}  // namespace pscr::cuda
