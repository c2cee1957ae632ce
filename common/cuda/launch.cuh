#pragma once
/// @file Launch sizing shared by the kernels of tridiag/cuda and pscr/cuda: dynamic shared memory
/// above the default limit, and the warps a kernel keeps resident on the device. Both are asked of
/// the driver once per context and kept (launch.cpp): PSCR's smallest tridiagonal solves are
/// host-bound, and the queries cost a solve call 1.5–5 µs of its 7.5–11.5 (H100 machine,
/// bench/solve_host_bench.cu; one launch alone costs 4.2–4.8 µs there).

#include <cuda_runtime.h>

#include <cstddef>

#include "common/cuda/check.hpp"
#include "common/scalar.hpp"

namespace pscr::cuda {

/// Dynamic shared memory a block may use without opting in.
inline constexpr std::size_t kDefaultSharedBytes = 48 * 1024;

namespace detail {
/// allow_shared and resident_blocks on the kernel's host stub (launch.cpp).
void allow_shared_bytes(const void* kernel, std::size_t bytes);
index_t resident_blocks_of(const void* kernel, int threads, std::size_t smem);
}  // namespace detail

/// @brief Lets `kernel` use `bytes` of dynamic shared memory per block in the current context (an
/// opt-in above 48 KiB). The limit only ever rises: it stays at the largest `bytes` asked so far,
/// so a launch checked against an earlier, larger request still fits.
template <class Kernel>
void allow_shared(Kernel* kernel, std::size_t bytes) {
  if (bytes > kDefaultSharedBytes)
    detail::allow_shared_bytes(reinterpret_cast<const void*>(kernel), bytes);
}

/// @brief Largest dynamic shared memory a block may use on the current device (with the opt-in).
inline std::size_t max_block_shared() {
  int device = 0, bytes = 0;
  PSCR_CUDA_CHECK(cudaGetDevice(&device));
  PSCR_CUDA_CHECK(cudaDeviceGetAttribute(&bytes, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  return static_cast<std::size_t>(bytes);
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
  return detail::resident_blocks_of(reinterpret_cast<const void*>(kernel), threads, smem);
}

}  // namespace pscr::cuda
