#pragma once
/// @file Checked calls and RAII owners for the cuBLAS and cuFFT handles of the peers. Host C++
/// (no CUDA syntax); benchmark code, not part of the library.

#include <cublas_v2.h>
#include <cufft.h>

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

/// Checks a cuFFT call: a result other than CUFFT_SUCCESS throws pscr::LibraryError.
#define PSCR_CUFFT_CHECK(call)                                                                 \
  do {                                                                                         \
    const cufftResult pscr_result_ = (call);                                                   \
    if (pscr_result_ != CUFFT_SUCCESS)                                                         \
      ::pscr::detail::throw_library_error("cuFFT", #call, static_cast<long>(pscr_result_), "", \
                                          __FILE__, __LINE__);                                 \
  } while (0)

namespace pscr::peers {

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

/// @brief An owned cuFFT plan; created by the caller through make(), destroyed here.
class CufftPlan {
 public:
  CufftPlan() = default;
  CufftPlan(const CufftPlan&) = delete;
  CufftPlan& operator=(const CufftPlan&) = delete;
  CufftPlan(CufftPlan&& other) noexcept : plan_(other.plan_), valid_(other.valid_) {
    other.valid_ = false;
  }
  CufftPlan& operator=(CufftPlan&& other) noexcept {
    if (this != &other) {
      release();
      plan_ = other.plan_;
      valid_ = other.valid_;
      other.valid_ = false;
    }
    return *this;
  }
  ~CufftPlan() { release(); }

  /// Batched 1D double real-to-complex transforms of length `n` (cufftPlanMany's advanced layout:
  /// element e of batch b at b·idist + e·istride in, b·odist + e·ostride out).
  static CufftPlan d2z(int n, int batch, int istride, int idist, int ostride, int odist) {
    CufftPlan p;
    int length[1] = {n};
    int inembed[1] = {n};
    int onembed[1] = {n / 2 + 1};
    PSCR_CUFFT_CHECK(cufftPlanMany(&p.plan_, 1, length, inembed, istride, idist, onembed, ostride,
                                   odist, CUFFT_D2Z, batch));
    p.valid_ = true;
    return p;
  }
  cufftHandle get() const { return plan_; }

 private:
  void release() noexcept {
    if (valid_) cufftDestroy(plan_);
    valid_ = false;
  }
  cufftHandle plan_ = 0;
  bool valid_ = false;
};

}  // namespace pscr::peers
