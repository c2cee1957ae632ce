#pragma once
/// @file The separable operator of pscr/operator.hpp applied on the GPU. Host C++ (no CUDA
/// syntax). Device arrays use the same C-order grid layout as the host (block u_j contiguous).

#include <cuda_runtime_api.h>

#include <vector>

#include "common/cuda/device_buffer.hpp"
#include "pscr/operator.hpp"

namespace pscr::cuda {

/// @brief The operator's factors resident on the device, with the workspace of one apply.
template <class Scalar>
class DeviceOperator {
 public:
  /// Uploads the factors (and A1 + c·M1) of `op`; allocates two grid-sized work arrays.
  explicit DeviceOperator(const SeparableOperator<Scalar>& op);

  /// @brief d_y = A d_u on `stream` (device pointers, one grid each, not aliased).
  void apply(cudaStream_t stream, const Scalar* d_u, Scalar* d_y);

  index_t grid_size() const { return grid_size_; }

 private:
  struct DeviceTridiag {
    DeviceBuffer<Scalar> diag, off;
    index_t n = 0;
  };
  static DeviceTridiag upload(const SymTridiag<Scalar>& t);

  std::vector<index_t> shape_;
  index_t grid_size_ = 0;
  // terms_[t][d]: the factor of dimension d in Kronecker term t of DESIGN.md §1.
  std::vector<std::vector<const DeviceTridiag*>> terms_;
  std::vector<DeviceTridiag> factors_;  // A1 + c·M1, then M_d and A_d for d ≥ 2, and M1
  DeviceBuffer<Scalar> work_a_, work_b_;
};

}  // namespace pscr::cuda
