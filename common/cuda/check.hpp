#pragma once
/// @file Checking CUDA runtime calls: every call and every launch goes through these macros, which
/// throw pscr::LibraryError naming the call, the CUDA error and the place. Host C++ (no CUDA
/// syntax).

#include <cuda_runtime_api.h>

#include "common/error.hpp"

/// Checks a CUDA runtime call.
#define PSCR_CUDA_CHECK(call)                                                                 \
  do {                                                                                        \
    const cudaError_t pscr_err_ = (call);                                                     \
    if (pscr_err_ != cudaSuccess)                                                             \
      ::pscr::detail::throw_library_error("CUDA", #call, static_cast<long>(pscr_err_),        \
                                          cudaGetErrorString(pscr_err_), __FILE__, __LINE__); \
  } while (0)

/// Checks the last kernel launch (configuration errors and asynchronous faults reported so far).
#define PSCR_CUDA_CHECK_LAUNCH() PSCR_CUDA_CHECK(cudaPeekAtLastError())

namespace pscr::cuda {

/// @brief Number of CUDA devices usable by this process; 0 when there is no driver or no GPU
/// (never throws: callers use it to decide whether to skip GPU work).
inline int device_count() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    (void)cudaGetLastError();  // clear the sticky "no device" error
    return 0;
  }
  return count;
}

}  // namespace pscr::cuda
