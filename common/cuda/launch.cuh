#pragma once
/// @file Launch sizing shared by the kernels of tridiag/cuda and pscr/cuda: dynamic shared memory
/// above the default limit, and the warps a kernel keeps resident on the device. Include only
/// from .cu files.

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>

#include "common/cuda/check.hpp"
#include "common/scalar.hpp"

namespace pscr::cuda {

/// Dynamic shared memory a block may use without opting in.
inline constexpr std::size_t kDefaultSharedBytes = 48 * 1024;

/// @brief Lets `kernel` use `bytes` of dynamic shared memory per block (an opt-in above 48 KiB).
template <class Kernel>
void allow_shared(Kernel* kernel, std::size_t bytes) {
  if (bytes > kDefaultSharedBytes)
    PSCR_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         static_cast<int>(bytes)));
}

/// @brief SMs of the current device.
inline int multiprocessors() {
  int device = 0, sms = 0;
  PSCR_CUDA_CHECK(cudaGetDevice(&device));
  PSCR_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  return sms;
}

/// @brief Blocks of `kernel` resident on the current device at once (at least one per SM), with
/// blocks of `threads` threads and `smem` bytes of dynamic shared memory; allows that shared
/// memory first.
template <class Kernel>
index_t resident_blocks(Kernel* kernel, int threads, std::size_t smem) {
  allow_shared(kernel, smem);
  int per_sm = 0;
  PSCR_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, smem));
  return static_cast<index_t>(std::max(per_sm, 1)) * multiprocessors();
}

}  // namespace pscr::cuda
