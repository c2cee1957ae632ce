#pragma once
/// @file The dense fast-diagonalization (FD) method of the GPU solver (SolverOptions::method),
/// also timed as a peer of PSCR by bench/peers: the eigen-transforms of
/// pscr/fd/setup.hpp as cuBLAS GEMMs and the shifted tridiagonal solves as a batched Thomas kernel
/// (one thread per system, interleaved layout). The GEMM calls and the device layouts are in
/// pscr/fd/calls.hpp. Host C++ (no CUDA syntax).

#include <cuda_runtime_api.h>

#include <cstddef>
#include <vector>

#include "common/cuda/device_buffer.hpp"
#include "pscr/cuda/cublas.hpp"
#include "pscr/cuda/operator.hpp"
#include "pscr/fd/calls.hpp"
#include "pscr/fd/choice.hpp"
#include "pscr/fd/setup.hpp"

namespace pscr::cuda {

/// @brief The FD solver of one operator: uploaded eigenvectors, factors, shifts and workspace.
template <class Scalar>
class FdGpuSolver {
 public:
  /// Uploads setup's Wᵀ matrices, the last dimension's factors and the shifts; allocates the two
  /// grid-sized work arrays (work, tmp) and cuBLAS's workspace (fd::kCublasWorkspaceBytes, given
  /// to cuBLAS at every solve, so that solves allocate nothing). Throws InputError when a size
  /// does not fit cuBLAS's int arguments.
  explicit FdGpuSolver(const fd::FdSetup<Scalar>& setup);

  /// @brief Device bytes this solver allocates for `shape` (not counting f and u):
  /// fd::fd_device_bytes without staging grids.
  static std::size_t device_bytes(const std::vector<index_t>& shape);

  /// @brief d_u = A⁻¹ d_f on `stream` (device grids, C order, not aliased). When given,
  /// `after_transform` is recorded after the forward transforms and `after_tridiag` after the
  /// tridiagonal solves, for the time share of each stage.
  void solve(cudaStream_t stream, const Scalar* d_f, Scalar* d_u,
             cuda::Event* after_transform = nullptr, cuda::Event* after_tridiag = nullptr);

  /// @brief Whether the grid d_u (grid_size values) is finite (synchronous on `stream`).
  bool finite(cudaStream_t stream, const Scalar* d_u);

  /// @brief The relative residual ‖f − A u‖₂ / ‖f‖₂ of the grids d_f, d_u, with A applied by
  /// `op` (the operator this solver was set up for); d_r receives f − A u (not aliased with d_f
  /// or d_u). Synchronous on `stream`. 0 when f = 0 and u = 0.
  double residual(cudaStream_t stream, DeviceOperator<Scalar>& op, const Scalar* d_f,
                  const Scalar* d_u, Scalar* d_r);

  /// @brief d_y += alpha · d_x (grids) on `stream`.
  void axpy(cudaStream_t stream, double alpha, const Scalar* d_x, Scalar* d_y);

  fd::CostModel cost() const;

 private:
  void run(cublasHandle_t h, const fd::GemmCall& call, const Scalar* d_f, Scalar* d_u);
  /// The handle on `stream`, with this solver's workspace.
  cublasHandle_t handle_on(cudaStream_t stream);

  std::vector<index_t> shape_;
  index_t grid_size_ = 0;
  fd::FdCalls calls_;
  CublasHandle blas_;
  std::vector<cuda::DeviceBuffer<Scalar>> wt_;                  // Wᵀ of dimension 1 (and 2)
  cuda::DeviceBuffer<Scalar> a_diag_, a_off_, m_diag_, m_off_;  // last dimension's factors
  cuda::DeviceBuffer<Scalar> shifts_;
  cuda::DeviceBuffer<Scalar> work_, tmp_;
  cuda::DeviceBuffer<char> workspace_;  // cuBLAS's workspace
  cuda::DeviceBuffer<int> flag_;        // finite(): set when a value is not finite
};

}  // namespace pscr::cuda
