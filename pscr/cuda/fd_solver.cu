#include <algorithm>
#include <complex>

#include "common/cuda/scalar.cuh"
#include "pscr/cuda/fd_solver.hpp"
#include "pscr/fd/thomas.hpp"

namespace pscr::cuda {

namespace {

using fd::FdArray;
using fd::FdOp;
using fd::GemmCall;
using fd::thomas_shifted;

cublasOperation_t op(FdOp o) {
  return o == FdOp::n ? CUBLAS_OP_N : CUBLAS_OP_T;
}

// One GemmCall (pscr/fd/calls.hpp) with cuBLAS: a plain GEMM for one batch, strided-batched
// otherwise.
void gemm(cublasHandle_t h, const GemmCall& g, const double* a, const double* b, double* c) {
  const double one = 1.0, zero = 0.0;
  if (g.batch == 1) {
    PSCR_CUBLAS_CHECK(cublasDgemm(h, op(g.ta), op(g.tb), g.m, g.n, g.k, &one, a, g.lda, b, g.ldb,
                                  &zero, c, g.ldc));
  } else {
    PSCR_CUBLAS_CHECK(cublasDgemmStridedBatched(h, op(g.ta), op(g.tb), g.m, g.n, g.k, &one, a,
                                                g.lda, g.sa, b, g.ldb, g.sb, &zero, c, g.ldc, g.sc,
                                                g.batch));
  }
}

void gemm(cublasHandle_t h, const GemmCall& g, const std::complex<double>* a,
          const std::complex<double>* b, std::complex<double>* c) {
  const cuDoubleComplex one = make_cuDoubleComplex(1.0, 0.0);
  const cuDoubleComplex zero = make_cuDoubleComplex(0.0, 0.0);
  const auto* za = reinterpret_cast<const cuDoubleComplex*>(a);
  const auto* zb = reinterpret_cast<const cuDoubleComplex*>(b);
  auto* zc = reinterpret_cast<cuDoubleComplex*>(c);
  if (g.batch == 1) {
    PSCR_CUBLAS_CHECK(cublasZgemm(h, op(g.ta), op(g.tb), g.m, g.n, g.k, &one, za, g.lda, zb, g.ldb,
                                  &zero, zc, g.ldc));
  } else {
    PSCR_CUBLAS_CHECK(cublasZgemmStridedBatched(h, op(g.ta), op(g.tb), g.m, g.n, g.k, &one, za,
                                                g.lda, g.sa, zb, g.ldb, g.sb, &zero, zc, g.ldc,
                                                g.sc, g.batch));
  }
}

/// One thread per system s < systems: [A + shifts[s] M] x_s = d_s, row r of system s at
/// d[s + r·systems] (interleaved: consecutive threads touch consecutive addresses). cp: scratch
/// with d's layout. The factors are read by every thread at the same r (broadcast).
template <class T>
__global__ void thomas_kernel(index_t systems, index_t n, const T* a_diag, const T* a_off,
                              const T* m_diag, const T* m_off, const T* shifts, T* d, T* cp) {
  const index_t s = blockIdx.x * static_cast<index_t>(blockDim.x) + threadIdx.x;
  if (s >= systems) return;
  thomas_shifted<T, index_t>(n, a_diag, a_off, m_diag, m_off, shifts[s], d + s, cp + s, systems);
}

__device__ inline bool is_finite(double x) {
  return isfinite(x);
}
template <class T>
__device__ inline bool is_finite(const T& z) {
  return isfinite(z.real()) && isfinite(z.imag());
}

/// flag = 1 when one of the n values of u is not finite (grid-stride loop).
template <class T>
__global__ void finite_kernel(index_t n, const T* u, int* flag) {
  for (index_t i = blockIdx.x * static_cast<index_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<index_t>(gridDim.x) * blockDim.x)
    if (!is_finite(u[i])) {
      atomicExch(flag, 1);
      return;
    }
}

/// r = f − r (grid-stride loop): r holds A u on entry.
template <class T>
__global__ void subtract_from_kernel(index_t n, const T* f, T* r) {
  for (index_t i = blockIdx.x * static_cast<index_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<index_t>(gridDim.x) * blockDim.x)
    r[i] = f[i] - r[i];
}

double nrm2(cublasHandle_t h, index_t n, const double* x) {
  double r = 0;
  PSCR_CUBLAS_CHECK(cublasDnrm2_64(h, n, x, 1, &r));
  return r;
}
double nrm2(cublasHandle_t h, index_t n, const std::complex<double>* x) {
  double r = 0;
  PSCR_CUBLAS_CHECK(cublasDznrm2_64(h, n, reinterpret_cast<const cuDoubleComplex*>(x), 1, &r));
  return r;
}

void axpy(cublasHandle_t h, index_t n, double alpha, const double* x, double* y) {
  PSCR_CUBLAS_CHECK(cublasDaxpy_64(h, n, &alpha, x, 1, y, 1));
}
void axpy(cublasHandle_t h, index_t n, double alpha, const std::complex<double>* x,
          std::complex<double>* y) {
  const cuDoubleComplex a = make_cuDoubleComplex(alpha, 0.0);
  PSCR_CUBLAS_CHECK(cublasZaxpy_64(h, n, &a, reinterpret_cast<const cuDoubleComplex*>(x), 1,
                                   reinterpret_cast<cuDoubleComplex*>(y), 1));
}

template <class Scalar>
cuda::DeviceBuffer<Scalar> upload(const std::vector<Scalar>& host, std::size_t spare = 0) {
  // `spare` extra elements keep a valid pointer for empty off-diagonals (n = 1).
  cuda::DeviceBuffer<Scalar> d(host.size() + spare);
  d.copy_from_host(host.data(), host.size());
  return d;
}

}  // namespace

template <class Scalar>
FdGpuSolver<Scalar>::FdGpuSolver(const fd::FdSetup<Scalar>& setup)
    : shape_(setup.shape), grid_size_(setup.grid_size()), calls_(fd::fd_calls(setup.shape)) {
  for (const auto& e : setup.eig) wt_.push_back(upload(e.W));
  a_diag_ = upload(setup.last.A.diag);
  a_off_ = upload(setup.last.A.off, 1);
  m_diag_ = upload(setup.last.M.diag);
  m_off_ = upload(setup.last.M.off, 1);
  shifts_ = upload(setup.shifts);
  work_ = cuda::DeviceBuffer<Scalar>(grid_size_);
  tmp_ = cuda::DeviceBuffer<Scalar>(grid_size_);
  workspace_ = cuda::DeviceBuffer<char>(fd::kCublasWorkspaceBytes);
  flag_ = cuda::DeviceBuffer<int>(1);
}

template <class Scalar>
std::size_t FdGpuSolver<Scalar>::device_bytes(const std::vector<index_t>& shape) {
  return fd::fd_device_bytes(shape, sizeof(Scalar), 0);
}

template <class Scalar>
void FdGpuSolver<Scalar>::run(cublasHandle_t h, const GemmCall& call, const Scalar* d_f,
                              Scalar* d_u) {
  auto out = [&](FdArray a) -> Scalar* {
    switch (a) {
      case FdArray::u:
        return d_u;
      case FdArray::work:
        return work_.data();
      case FdArray::tmp:
        return tmp_.data();
      case FdArray::wt1:
        return wt_[0].data();
      case FdArray::wt2:
        return wt_[1].data();
      case FdArray::f:  // f is never written (pscr/fd/calls.hpp; checked by tests/bench)
        break;
    }
    return nullptr;
  };
  auto in = [&](FdArray a) -> const Scalar* { return a == FdArray::f ? d_f : out(a); };
  gemm(h, call, in(call.a), in(call.b), out(call.c));
}

template <class Scalar>
void FdGpuSolver<Scalar>::solve(cudaStream_t stream, const Scalar* d_f, Scalar* d_u,
                                cuda::Event* after_transform, cuda::Event* after_tridiag) {
  using T = cuda::device_scalar_t<Scalar>;
  cublasHandle_t h = handle_on(stream);
  // G = (Wᵀ [⊗ Vᵀ] ⊗ I) F into work (pscr/fd/setup.hpp for the algebra, pscr/fd/calls.hpp for
  // layouts).
  for (const GemmCall& call : calls_.forward) run(h, call, d_f, d_u);
  if (after_transform != nullptr) after_transform->record(stream);

  // Shifted tridiagonal solves along the last dimension, in place in work; tmp is the scratch.
  const int threads = 128;
  const index_t blocks = (calls_.systems + threads - 1) / threads;
  thomas_kernel<<<static_cast<unsigned>(blocks), threads, 0, stream>>>(
      calls_.systems, calls_.rows, cuda::as_device(a_diag_.data()), cuda::as_device(a_off_.data()),
      cuda::as_device(m_diag_.data()), cuda::as_device(m_off_.data()),
      cuda::as_device(shifts_.data()), reinterpret_cast<T*>(work_.data()),
      reinterpret_cast<T*>(tmp_.data()));
  PSCR_CUDA_CHECK_LAUNCH();
  if (after_tridiag != nullptr) after_tridiag->record(stream);

  // U = (W [⊗ V] ⊗ I) Y from work.
  for (const GemmCall& call : calls_.inverse) run(h, call, d_f, d_u);
}

template <class Scalar>
cublasHandle_t FdGpuSolver<Scalar>::handle_on(cudaStream_t stream) {
  cublasHandle_t h = blas_.get();
  PSCR_CUBLAS_CHECK(cublasSetStream(h, stream));
  // cublasSetStream resets the workspace to cuBLAS's own pool, which may allocate: use ours.
  PSCR_CUBLAS_CHECK(cublasSetWorkspace(h, workspace_.data(), fd::kCublasWorkspaceBytes));
  return h;
}

template <class Scalar>
double FdGpuSolver<Scalar>::residual(cudaStream_t stream, DeviceOperator<Scalar>& op,
                                     const Scalar* d_f, const Scalar* d_u, Scalar* d_r) {
  using T = cuda::device_scalar_t<Scalar>;
  op.apply(stream, d_u, d_r);
  const int threads = 256;
  const index_t blocks = std::min<index_t>((grid_size_ + threads - 1) / threads, 4096);
  subtract_from_kernel<<<static_cast<unsigned>(blocks), threads, 0, stream>>>(
      grid_size_, reinterpret_cast<const T*>(d_f), reinterpret_cast<T*>(d_r));
  PSCR_CUDA_CHECK_LAUNCH();
  // Host pointer mode: the norms wait for the stream.
  cublasHandle_t h = handle_on(stream);
  const double r = nrm2(h, grid_size_, d_r);
  const double f = nrm2(h, grid_size_, d_f);
  return f > 0 ? r / f : r;
}

template <class Scalar>
void FdGpuSolver<Scalar>::axpy(cudaStream_t stream, double alpha, const Scalar* d_x, Scalar* d_y) {
  cuda::axpy(handle_on(stream), grid_size_, alpha, d_x, d_y);
}

template <class Scalar>
bool FdGpuSolver<Scalar>::finite(cudaStream_t stream, const Scalar* d_u) {
  using T = cuda::device_scalar_t<Scalar>;
  PSCR_CUDA_CHECK(cudaMemsetAsync(flag_.data(), 0, sizeof(int), stream));
  const int threads = 256;
  const index_t blocks = std::min<index_t>((grid_size_ + threads - 1) / threads, 4096);
  finite_kernel<<<static_cast<unsigned>(blocks), threads, 0, stream>>>(
      grid_size_, reinterpret_cast<const T*>(d_u), flag_.data());
  PSCR_CUDA_CHECK_LAUNCH();
  int flag = 0;
  PSCR_CUDA_CHECK(
      cudaMemcpyAsync(&flag, flag_.data(), sizeof(int), cudaMemcpyDeviceToHost, stream));
  PSCR_CUDA_CHECK(cudaStreamSynchronize(stream));
  return flag == 0;
}

template <class Scalar>
fd::CostModel FdGpuSolver<Scalar>::cost() const {
  const double size = static_cast<double>(grid_size_);
  const double n1 = static_cast<double>(shape_[0]);
  const double scale = is_complex_v<Scalar> ? 4.0 : 1.0;  // real flops of a complex multiply-add
  fd::CostModel c;
  if (shape_.size() == 2) {
    c.flops = scale * 2.0 * (2.0 * n1 * size);  // two n1 × n1 by n1 × n2 products
    c.bytes = (2.0 * n1 * n1 + 10.0 * size) * sizeof(Scalar);
  } else {
    const double n2 = static_cast<double>(shape_[1]);
    c.flops = scale * 2.0 * (2.0 * n1 * size + 2.0 * n2 * size);
    c.bytes = (2.0 * n1 * n1 + 2.0 * n2 * n2 + 14.0 * size) * sizeof(Scalar);
  }
  return c;
}

template class FdGpuSolver<double>;
template class FdGpuSolver<std::complex<double>>;

}  // namespace pscr::cuda
