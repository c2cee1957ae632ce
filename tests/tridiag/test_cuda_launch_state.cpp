// The launch state the GPU solvers keep per CUDA context (common/cuda/launch.cpp): each kernel's
// dynamic shared-memory opt-in above 48 KiB, which only ever rises, and its occupancy answers. A
// solve whose kernel needs the opt-in must still run after a smaller launch of the same kernel and
// after cudaDeviceReset, which makes a new context where no attribute is set. Its own executable:
// the reset frees every allocation of the process.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "common/cuda/check.hpp"
#include "common/cuda/device_buffer.hpp"
#include "tests/tridiag/systems.hpp"
#include "tridiag/cuda/solve.hpp"

namespace pscr::tridiag {
namespace {

using pscr::cuda::DeviceBuffer;

/// Largest relative residual of the sweep method's solution of `batch` dominant systems of n rows
/// (real, contiguous), all device memory allocated here.
double sweep_residual(index_t n, index_t batch) {
  const auto t = testing::make_shifted<double>(n, batch, testing::Kind::dominant, 41 + batch);
  const cuda::Options options{cuda::Method::sweep};
  const cuda::DeviceSymTridiagBuffer<double> A(t.A), M(t.M);
  DeviceBuffer<double> d(t.d.size()), x(t.d.size()), shifts(t.shifts.size());
  d.copy_from_host(t.d.data());
  shifts.copy_from_host(t.shifts.data());
  const index_t wc = cuda::workspace_size<double>(n, batch, options);
  DeviceBuffer<double> ws(std::max<index_t>(wc, 1));
  const BatchLayout l = BatchLayout::contiguous(n);
  const pscr::cuda::Stream stream;
  cuda::solve_shifted(stream.get(), A.view(), M.view(), shifts.data(), batch, d.data(), l, x.data(),
                      l, ws.data(), wc, options);
  stream.synchronize();
  std::vector<double> xh(t.d.size());
  x.copy_to_host(xh.data());
  double worst = 0;
  for (index_t k = 0; k < batch; ++k) worst = std::max(worst, testing::relative_residual(t, xh, k));
  return worst;
}

// n = 700: the sweep method's one warp per system (K = 22, c′ in registers), in blocks of one warp
// per SM's share of the batch, up to 16: one warp (35424 bytes of shared memory: no opt-in) for a
// batch of one system, 3 warps (59040 bytes) for three systems per SM, 16 (212544 bytes) for 3000.
TEST(CudaLaunchState, SweepSolvesAfterSmallerLaunchesAndDeviceReset) {
  if (pscr::cuda::device_count() == 0) GTEST_SKIP() << "no CUDA device";
  int device = 0, sms = 0;
  PSCR_CUDA_CHECK(cudaGetDevice(&device));
  PSCR_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  const index_t n = 700;
  for (index_t batch : {index_t{3000}, index_t{3} * sms, index_t{1}, index_t{3000}})
    EXPECT_LE(sweep_residual(n, batch), 1e-13) << "batch " << batch;
  PSCR_CUDA_CHECK(cudaDeviceReset());
  for (index_t batch : {index_t{3000}, index_t{3} * sms})
    EXPECT_LE(sweep_residual(n, batch), 1e-13) << "batch " << batch << " after the reset";
}

}  // namespace
}  // namespace pscr::tridiag
