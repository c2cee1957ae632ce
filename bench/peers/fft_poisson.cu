#include <algorithm>
#include <cmath>

#include "bench/peers/fft_poisson.hpp"

namespace pscr::peers {

namespace {

/// The extensions of one step (fft_plan.hpp): one thread per element of the extension array,
/// consecutive threads on consecutive addresses; the input is f (real_src) or −Im/2 of the
/// previous spectrum (cplx_src), read coalesced along the input's fastest index. With `lead`
/// given, divides by the eigenvalues (the inverse pass's first step).
template <bool ComplexSource>
__global__ void extend_kernel(DstStep step, DstSource src, const double* real_src,
                              const cufftDoubleComplex* cplx_src, const double* lead,
                              const double* last, double c, double factor, double* ext) {
  const index_t total = 2 * (step.n + 1) * step.outer * step.inner;
  for (index_t t = blockIdx.x * static_cast<index_t>(blockDim.x) + threadIdx.x; t < total;
       t += static_cast<index_t>(gridDim.x) * blockDim.x) {
    const ExtendSlot slot = extend_slot(step, src, t);
    double v = 0.0;
    if (!slot.zero) {
      if constexpr (ComplexSource) {
        v = -0.5 * cplx_src[slot.at].y;
      } else {
        v = real_src[slot.at];
      }
      if (lead != nullptr) v = dst_scale(v, lead, last, c, factor, slot.o, slot.r);
      if (slot.negative) v = -v;
    }
    ext[t] = v;
  }
}

/// u[t] = −Im(spec[offset + t])/2: the last DST's coefficients, already in C order.
__global__ void extract_kernel(index_t size, index_t offset, const cufftDoubleComplex* spec,
                               double* u) {
  for (index_t t = blockIdx.x * static_cast<index_t>(blockDim.x) + threadIdx.x; t < size;
       t += static_cast<index_t>(gridDim.x) * blockDim.x)
    u[t] = -0.5 * spec[offset + t].y;
}

unsigned grid_for(index_t total, int threads) {
  return static_cast<unsigned>(
      std::min<index_t>((total + threads - 1) / threads, index_t{1} << 20));
}

}  // namespace

FftPoissonSolver::FftPoissonSolver(const SeparableOperator<double>& op)
    : shape_(op.shape()),
      grid_size_(op.grid_size()),
      pipeline_(dst_pipeline(op.shape())),
      scaling_(dst_scaling(op)) {
  for (const DstStep& s : pipeline_.steps)
    plans_.push_back(CufftPlan::d2z(s.len, s.batch, s.istride, s.idist, s.ostride, s.odist));
  ext_ = cuda::DeviceBuffer<double>(pipeline_.ext_size);
  spec_ = cuda::DeviceBuffer<cufftDoubleComplex>(pipeline_.spec_size);
  lead_ = cuda::DeviceBuffer<double>(scaling_.lead.size());
  lead_.copy_from_host(scaling_.lead.data());
  last_ = cuda::DeviceBuffer<double>(scaling_.last.size());
  last_.copy_from_host(scaling_.last.data());
}

std::size_t FftPoissonSolver::device_bytes(const std::vector<index_t>& shape) {
  const DstPipeline p = dst_pipeline(shape);
  return static_cast<std::size_t>(p.ext_size) * sizeof(double) +
         static_cast<std::size_t>(p.spec_size) * sizeof(cufftDoubleComplex);
}

void FftPoissonSolver::run_step(cudaStream_t stream, std::size_t k, const double* d_f,
                                bool inverse) {
  const DstStep& step = pipeline_.steps[k];
  const index_t total = 2 * (step.n + 1) * step.outer * step.inner;
  const int threads = 256;
  const unsigned blocks = grid_for(total, threads);
  if (k == 0 && !inverse) {
    extend_kernel<false><<<blocks, threads, 0, stream>>>(step, pipeline_.from_f, d_f, nullptr,
                                                         nullptr, nullptr, 0.0, 1.0, ext_.data());
  } else {
    const bool scale = k == 0;  // the inverse pass's first step
    extend_kernel<true><<<blocks, threads, 0, stream>>>(
        step, scale ? pipeline_.from_spectrum : step.source, nullptr, spec_.data(),
        scale ? lead_.data() : nullptr, last_.data(), scaling_.c, scaling_.factor, ext_.data());
  }
  PSCR_CUDA_CHECK_LAUNCH();
  // The extend kernel reads spec_ and the FFT then overwrites it: stream order separates them.
  PSCR_CUFFT_CHECK(cufftSetStream(plans_[k].get(), stream));
  PSCR_CUFFT_CHECK(cufftExecD2Z(plans_[k].get(), ext_.data(), spec_.data()));
}

void FftPoissonSolver::solve(cudaStream_t stream, const double* d_f, double* d_u) {
  for (int pass = 0; pass < 2; ++pass)
    for (std::size_t k = 0; k < pipeline_.steps.size(); ++k) run_step(stream, k, d_f, pass == 1);
  const int threads = 256;
  extract_kernel<<<grid_for(grid_size_, threads), threads, 0, stream>>>(
      grid_size_, pipeline_.extract_offset, spec_.data(), d_u);
  PSCR_CUDA_CHECK_LAUNCH();
}

CostModel FftPoissonSolver::cost() const {
  CostModel c;
  for (int pass = 0; pass < 2; ++pass)
    for (std::size_t k = 0; k < pipeline_.steps.size(); ++k) {
      const DstStep& s = pipeline_.steps[k];
      const double lines = static_cast<double>(s.outer * s.inner);
      const double len = s.len;
      const double in_bytes = (pass == 0 && k == 0) ? sizeof(double) : sizeof(cufftDoubleComplex);
      c.bytes += lines * s.n * in_bytes + lines * len * sizeof(double);  // extend
      c.bytes +=
          lines * len * sizeof(double) + lines * (s.n + 2) * sizeof(cufftDoubleComplex);  // D2Z
      c.flops += lines * 2.5 * len * std::log2(len);
    }
  c.bytes += static_cast<double>(grid_size_) * (sizeof(cufftDoubleComplex) + sizeof(double));
  return c;
}

}  // namespace pscr::peers
