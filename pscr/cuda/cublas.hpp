#pragma once
/// @file Checked cuBLAS calls and an RAII owner of a cuBLAS handle, for the fast-diagonalization
/// method of the GPU solver (fd_solver.hpp) and the peers benchmark. Host C++ (no CUDA syntax).

#include <cublas_v2.h>

#include "common/cuda/check.hpp"
#include "common/error.hpp"

/// Checks a cuBLAS call: a status other than CUBLAS_STATUS_SUCCESS throws pscr::LibraryError.
#define PSCR_CUBLAS_CHECK(call)                                                             \
  do {                                                                                      \
    const cublasStatus_t pscr_status_ = (call);                                             \
    if (pscr_status_ != CUBLAS_STATUS_SUCCESS)                                              \
      ::pscr::detail::throw_library_error("cuBLAS", #call, static_cast<long>(pscr_status_), \
                                          cublasGetStatusString(pscr_status_), __FILE__,    \
                                          __LINE__);                                        \
  } while (0)

namespace pscr::cuda {

/// @brief An owned cuBLAS handle (pointer mode host, default math mode: FP64 GEMMs run on the
/// tensor cores where the device has them, with IEEE results).
class CublasHandle {
 public:
  CublasHandle() { PSCR_CUBLAS_CHECK(cublasCreate(&handle_)); }
  CublasHandle(const CublasHandle&) = delete;
  CublasHandle& operator=(const CublasHandle&) = delete;
  ~CublasHandle() {
    if (handle_ != nullptr) cublasDestroy(handle_);
  }
  cublasHandle_t get() const { return handle_; }

 private:
  cublasHandle_t handle_ = nullptr;
};

}  // namespace pscr::cuda
