#pragma once
/// @file The scalar type the tridiagonal kernels compute in. Real: double. Complex: a plain
/// (re, im) pair with textbook arithmetic, layout-compatible with std::complex<double> and
/// cuda::std::complex<double> (16 bytes, 16-byte aligned: one LDG.128/STS.128 per element).
///
/// Why not cuda::std::complex: its operator* and operator/ follow C99 Annex G (NaN/Inf recovery
/// after every product, logb/scalbn scaling in every quotient). In the partition kernel that made
/// 4096 SASS instructions, 648 DSETP and 612 FSEL of them (nvcc 13, sm_90), against 2424 for the
/// real kernel, and the complex solves ran 4–5× slower per row than the real ones
/// (docs/tridiag-performance.md). The systems here are well scaled (entries of A + s M, pivots of
/// Thomas/PCR), so the quotient uses one real reciprocal of |w|² — valid for |re|, |im| of the
/// divisor below ~1e150, far beyond any PSCR shift. Include only from .cu files.

#include <complex>
#include <cuda/std/complex>

namespace pscr::tridiag::cuda::detail {

/// @brief Complex double with plain arithmetic (no Annex-G special-value handling).
struct alignas(16) Complex {
  double re = 0, im = 0;

  Complex() = default;
  __host__ __device__ Complex(double r) : re(r), im(0) {}  // NOLINT: implicit, as for double
  __host__ __device__ Complex(double r, double i) : re(r), im(i) {}

  __host__ __device__ inline double real() const { return re; }
  __host__ __device__ inline double imag() const { return im; }

  __host__ __device__ inline Complex& operator+=(const Complex& o) {
    re += o.re;
    im += o.im;
    return *this;
  }
  __host__ __device__ inline Complex& operator-=(const Complex& o) {
    re -= o.re;
    im -= o.im;
    return *this;
  }
};

__host__ __device__ inline Complex operator-(const Complex& a) {
  return {-a.re, -a.im};
}
__host__ __device__ inline Complex operator+(const Complex& a, const Complex& b) {
  return {a.re + b.re, a.im + b.im};
}
__host__ __device__ inline Complex operator-(const Complex& a, const Complex& b) {
  return {a.re - b.re, a.im - b.im};
}
/// a·b, not yet rounded to a Complex: what operator* of two Complex returns. Taken by c + a·b or
/// c − a·b (also +=, −=), it is four fused multiply-adds into c, re = fma(∓a.re, b.re,
/// fma(±a.im, b.im, c.re)) and likewise im; the product rounded first and then added costs two
/// DMUL, two DFMA and two DADD, three dependent FP64 operations against two. The lane steps are
/// chains of c − a·b (Thomas: b − a c′, d − a d′; the rows' diagonal ad + s md), and Nsight Compute
/// found the complex kernels bound by their FP64 instructions' issue and latency (the complex
/// cluster sweep: 62% of its FP64 instructions unfused, 31% of its stall samples waiting on a
/// fixed-latency dependency). Anywhere else it converts to a Complex as the product always did.
struct ComplexProduct {
  Complex a, b;
  __host__ __device__ inline operator Complex() const {
    return {a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re};
  }
};

/// c + s·a·b: the fused sum of ComplexProduct, s = ±1.
__host__ __device__ inline Complex fused_add(const Complex& c, const ComplexProduct& p, double s) {
  return {fma(s * p.a.re, p.b.re, fma(-s * p.a.im, p.b.im, c.re)),
          fma(s * p.a.re, p.b.im, fma(s * p.a.im, p.b.re, c.im))};
}

__host__ __device__ inline ComplexProduct operator*(const Complex& a, const Complex& b) {
  return {a, b};
}
__host__ __device__ inline ComplexProduct operator*(const ComplexProduct& p, const Complex& b) {
  return {Complex(p), b};
}
__host__ __device__ inline ComplexProduct operator*(const Complex& a, const ComplexProduct& p) {
  return {a, Complex(p)};
}
__host__ __device__ inline ComplexProduct operator*(const ComplexProduct& p,
                                                    const ComplexProduct& q) {
  return {Complex(p), Complex(q)};
}
__host__ __device__ inline ComplexProduct operator-(const ComplexProduct& p) {
  return {-p.a, p.b};
}
__host__ __device__ inline Complex operator+(const Complex& c, const ComplexProduct& p) {
  return fused_add(c, p, 1.0);
}
__host__ __device__ inline Complex operator+(const ComplexProduct& p, const Complex& c) {
  return fused_add(c, p, 1.0);
}
__host__ __device__ inline Complex operator-(const Complex& c, const ComplexProduct& p) {
  return fused_add(c, p, -1.0);
}
__host__ __device__ inline Complex operator-(const ComplexProduct& p, const Complex& c) {
  return fused_add(-c, p, 1.0);
}
__host__ __device__ inline Complex operator+(const ComplexProduct& p, const ComplexProduct& q) {
  return fused_add(Complex(p), q, 1.0);
}
__host__ __device__ inline Complex operator-(const ComplexProduct& p, const ComplexProduct& q) {
  return fused_add(Complex(p), q, -1.0);
}
__host__ __device__ inline Complex& operator+=(Complex& c, const ComplexProduct& p) {
  return c = fused_add(c, p, 1.0);
}
__host__ __device__ inline Complex& operator-=(Complex& c, const ComplexProduct& p) {
  return c = fused_add(c, p, -1.0);
}
/// 1 / x to about one ulp, for the pivots of the register and partition kernels. Device: the
/// hardware estimate (MUFU.RCP64H, relative error below 2^-22) and one third-order Newton step,
/// r (1 + e + e²) with e = 1 − x r (error e³ < 2^-66 before rounding): three dependent DFMA.
/// The correctly rounded `1.0 / x` takes five plus a range check and a branch to a slow path
/// (nvcc 13, sm_90); the segment kernels are bound by their instruction count
/// (docs/tridiag-performance.md). A zero pivot gives NaN (1 / 0 gives inf: the solve is lost
/// either way); subnormal pivots (never met: the rows are entries of A + s M) are flushed to
/// zero. Host: 1.0 / x. The real p-Thomas kernel keeps `1 / x`: it is bound by memory, and with
/// recip it measured 21–23% slower (n = 361, 511 interleaved, H200), nvcc scheduling its chunk
/// loop differently.
__host__ __device__ inline double recip(double x) {
#ifdef __CUDA_ARCH__
  double r;
  asm("rcp.approx.ftz.f64 %0, %1;" : "=d"(r) : "d"(x));
  const double e = fma(-x, r, 1.0);
  return fma(r, fma(e, e, e), r);
#else
  return 1.0 / x;
#endif
}

/// a / b = a conj(b) / |b|²: one real reciprocal (see the file comment for the range).
__host__ __device__ inline Complex operator/(const Complex& a, const Complex& b) {
  const double inv = recip(b.re * b.re + b.im * b.im);
  return {(a.re * b.re + a.im * b.im) * inv, (a.im * b.re - a.re * b.im) * inv};
}

/// 1 / z = conj(z) / |z|².
__host__ __device__ inline Complex recip(const Complex& z) {
  const double inv = recip(z.re * z.re + z.im * z.im);
  return {z.re * inv, -z.im * inv};
}
__host__ __device__ inline bool operator==(const Complex& a, const Complex& b) {
  return a.re == b.re && a.im == b.im;
}
__host__ __device__ inline bool operator!=(const Complex& a, const Complex& b) {
  return !(a == b);
}

static_assert(sizeof(Complex) == sizeof(std::complex<double>));
static_assert(alignof(Complex) == 16);

/// @brief The kernel scalar of a host scalar: double → double, std::complex<double> → Complex.
template <class Scalar>
struct kernel_scalar {
  using type = Scalar;
};
template <>
struct kernel_scalar<std::complex<double>> {
  using type = Complex;
};
template <class Scalar>
using kernel_scalar_t = typename kernel_scalar<Scalar>::type;

/// @brief Reinterprets a host-typed device (or host) pointer as the kernel scalar type.
template <class Scalar>
inline kernel_scalar_t<Scalar>* as_kernel(Scalar* p) {
  return reinterpret_cast<kernel_scalar_t<Scalar>*>(p);
}
template <class Scalar>
inline const kernel_scalar_t<Scalar>* as_kernel(const Scalar* p) {
  return reinterpret_cast<const kernel_scalar_t<Scalar>*>(p);
}

}  // namespace pscr::tridiag::cuda::detail
