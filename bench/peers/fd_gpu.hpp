#pragma once
/// @file The dense fast-diagonalization (FD) peer on the GPU: the eigen-transforms of
/// fd_reference.hpp as cuBLAS GEMMs and the shifted tridiagonal solves as a batched Thomas kernel
/// (one thread per system, interleaved layout). The GEMM calls and the device layouts are in
/// fd_calls.hpp. Host C++ (no CUDA syntax); benchmark code, not part of the library.

#include <cuda_runtime_api.h>

#include <cstddef>
#include <vector>

#include "bench/peers/fd_calls.hpp"
#include "bench/peers/fd_reference.hpp"
#include "bench/peers/gpu_support.hpp"
#include "common/cuda/device_buffer.hpp"

namespace pscr::peers {

/// @brief The work of one solve, for the roofline: floating-point operations of the GEMMs (the
/// O(N·n) part; the O(N) tridiagonal work is not counted) and bytes that must cross device
/// memory at least once per pass (every GEMM reads its operands and writes its result once; the
/// Thomas kernel reads d, writes d' and cp, reads them back and writes x: 6 grid passes).
struct CostModel {
  double flops = 0;
  double bytes = 0;
};

/// @brief The FD solver of one operator: uploaded eigenvectors, factors, shifts and workspace.
template <class Scalar>
class FdGpuSolver {
 public:
  /// Uploads setup's Wᵀ matrices, the last dimension's factors and the shifts; allocates the two
  /// grid-sized work arrays (work, tmp). Throws InputError when a size does not fit cuBLAS's int
  /// arguments.
  explicit FdGpuSolver(const FdSetup<Scalar>& setup);

  /// @brief Device bytes this solver allocates for `shape` (not counting f and u).
  static std::size_t device_bytes(const std::vector<index_t>& shape);

  /// @brief d_u = A⁻¹ d_f on `stream` (device grids, C order, not aliased). When given,
  /// `after_transform` is recorded after the forward transforms and `after_tridiag` after the
  /// tridiagonal solves, for the time share of each stage.
  void solve(cudaStream_t stream, const Scalar* d_f, Scalar* d_u,
             cuda::Event* after_transform = nullptr, cuda::Event* after_tridiag = nullptr);

  CostModel cost() const;

 private:
  void run(cublasHandle_t h, const GemmCall& call, const Scalar* d_f, Scalar* d_u);

  std::vector<index_t> shape_;
  index_t grid_size_ = 0;
  FdCalls calls_;
  CublasHandle blas_;
  std::vector<cuda::DeviceBuffer<Scalar>> wt_;                  // Wᵀ of dimension 1 (and 2)
  cuda::DeviceBuffer<Scalar> a_diag_, a_off_, m_diag_, m_off_;  // last dimension's factors
  cuda::DeviceBuffer<Scalar> shifts_;
  cuda::DeviceBuffer<Scalar> work_, tmp_;
};

}  // namespace pscr::peers
