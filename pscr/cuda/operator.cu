#include "common/cuda/check.hpp"
#include "common/cuda/scalar.cuh"
#include "pscr/cuda/operator.hpp"

namespace pscr::cuda {

namespace {

/// y[o, r, i] (+)= off[r−1] x[o, r−1, i] + diag[r] x[o, r, i] + off[r] x[o, r+1, i] along one
/// dimension of a C-order grid: `inner` is the stride of that dimension, `outer` the product of
/// the sizes before it. Consecutive threads take consecutive i: coalesced for any dimension.
template <class T>
__global__ void apply_along_kernel(index_t outer, index_t n, index_t inner, const T* diag,
                                   const T* off, const T* x, T* y, bool accumulate) {
  const index_t total = outer * n * inner;
  for (index_t k = blockIdx.x * static_cast<index_t>(blockDim.x) + threadIdx.x; k < total;
       k += static_cast<index_t>(gridDim.x) * blockDim.x) {
    const index_t r = (k / inner) % n;
    T v = diag[r] * x[k];
    if (r > 0) v += off[r - 1] * x[k - inner];
    if (r + 1 < n) v += off[r] * x[k + inner];
    y[k] = accumulate ? y[k] + v : v;
  }
}

template <class Scalar>
void apply_along(cudaStream_t stream, index_t outer, index_t n, index_t inner, const Scalar* diag,
                 const Scalar* off, const Scalar* x, Scalar* y, bool accumulate) {
  const index_t total = outer * n * inner;
  const int threads = 256;
  const index_t blocks = std::min<index_t>((total + threads - 1) / threads, 65535 * 8);
  apply_along_kernel<<<static_cast<unsigned>(blocks), threads, 0, stream>>>(
      outer, n, inner, as_device(diag), as_device(off), as_device(x), as_device(y), accumulate);
  PSCR_CUDA_CHECK_LAUNCH();
}

}  // namespace

template <class Scalar>
typename DeviceOperator<Scalar>::DeviceTridiag DeviceOperator<Scalar>::upload(
    const SymTridiag<Scalar>& t) {
  DeviceTridiag d;
  d.n = t.size();
  d.diag = DeviceBuffer<Scalar>(t.diag.size());
  d.diag.copy_from_host(t.diag.data());
  // One spare element so that a 1×1 factor still has a valid (unused) off pointer.
  d.off = DeviceBuffer<Scalar>(t.off.size() + 1);
  d.off.copy_from_host(t.off.data(), t.off.size());
  return d;
}

template <class Scalar>
DeviceOperator<Scalar>::DeviceOperator(const SeparableOperator<Scalar>& op)
    : shape_(op.shape()), grid_size_(op.grid_size()) {
  const int dim = op.dimension();
  SymTridiag<Scalar> shifted = op.factor(0).A;
  for (std::size_t k = 0; k < shifted.diag.size(); ++k)
    shifted.diag[k] += op.c() * op.factor(0).M.diag[k];
  for (std::size_t k = 0; k < shifted.off.size(); ++k)
    shifted.off[k] += op.c() * op.factor(0).M.off[k];
  // factors_: [0] A1 + c M1, [1] M1, then (M_d, A_d) for d = 2..dim; reserved so pointers stay.
  factors_.reserve(2 + 2 * (dim - 1));
  factors_.push_back(upload(shifted));
  factors_.push_back(upload(op.factor(0).M));
  for (int d = 1; d < dim; ++d) {
    factors_.push_back(upload(op.factor(d).M));
    factors_.push_back(upload(op.factor(d).A));
  }
  auto mass = [&](int d) { return &factors_[d == 0 ? 1 : 2 * d]; };
  auto stiff = [&](int d) { return &factors_[d == 0 ? 0 : 2 * d + 1]; };
  // Term 0: (A1 + c M1) ⊗ M2 [⊗ M3]; term s ≥ 1: M1 ⊗ … ⊗ A_{s+1} ⊗ … (DESIGN.md §1).
  for (int s = 0; s < dim; ++s) {
    std::vector<const DeviceTridiag*> term;
    for (int d = 0; d < dim; ++d) term.push_back(d == s ? stiff(d) : mass(d));
    terms_.push_back(term);
  }
  work_a_ = DeviceBuffer<Scalar>(grid_size_);
  work_b_ = DeviceBuffer<Scalar>(grid_size_);
}

template <class Scalar>
void DeviceOperator<Scalar>::apply(cudaStream_t stream, const Scalar* d_u, Scalar* d_y) {
  const int dim = static_cast<int>(shape_.size());
  for (std::size_t t = 0; t < terms_.size(); ++t) {
    // Apply dimensions dim−1 .. 1 into the work arrays, then dimension 0 into (or onto) d_y.
    const Scalar* src = d_u;
    Scalar* bufs[2] = {work_a_.data(), work_b_.data()};
    index_t inner = 1;
    for (int d = dim - 1; d >= 1; --d) {
      const index_t n = shape_[d];
      const index_t outer = grid_size_ / (n * inner);
      Scalar* dst = bufs[d % 2];
      apply_along(stream, outer, n, inner, terms_[t][d]->diag.data(), terms_[t][d]->off.data(), src,
                  dst, false);
      src = dst;
      inner *= n;
    }
    apply_along(stream, index_t{1}, shape_[0], inner, terms_[t][0]->diag.data(),
                terms_[t][0]->off.data(), src, d_y, t > 0);
  }
}

#define PSCR_INSTANTIATE_DEVICE_OPERATOR(S) template class DeviceOperator<S>;
PSCR_FOR_EACH_SCALAR(PSCR_INSTANTIATE_DEVICE_OPERATOR)

}  // namespace pscr::cuda
