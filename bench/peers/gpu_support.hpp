#pragma once
/// @file Checked calls and an RAII owner for the cuFFT plans of the peers (cuBLAS:
/// pscr/cuda/cublas.hpp). Host C++ (no CUDA syntax); benchmark code, not part of the library.

#include <cufft.h>

#include "common/cuda/check.hpp"
#include "common/error.hpp"
#include "pscr/cuda/cublas.hpp"
#include "pscr/cuda/fd_solver.hpp"
#include "pscr/fd/setup.hpp"

/// Checks a cuFFT call: a result other than CUFFT_SUCCESS throws pscr::LibraryError.
#define PSCR_CUFFT_CHECK(call)                                                                 \
  do {                                                                                         \
    const cufftResult pscr_result_ = (call);                                                   \
    if (pscr_result_ != CUFFT_SUCCESS)                                                         \
      ::pscr::detail::throw_library_error("cuFFT", #call, static_cast<long>(pscr_result_), "", \
                                          __FILE__, __LINE__);                                 \
  } while (0)

namespace pscr::peers {

// The library's FD method (pscr/fd, pscr/cuda/fd_solver.hpp) is the fd peer: the bench times the
// very code the solver runs.
using cuda::CublasHandle;
using cuda::FdGpuSolver;
using fd::CostModel;
using fd::fd_setup;
using fd::fd_solve;
using fd::FdSetup;

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
