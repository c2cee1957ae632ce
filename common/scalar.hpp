#pragma once
/// @file Scalar traits shared by every module: the real type of a scalar, complex detection,
/// the plain (bilinear) transpose helpers and the one list of instantiated scalar types.

#include <cmath>
#include <complex>
#include <cstddef>
#include <limits>
#include <type_traits>

namespace pscr {

/// Index type for sizes and offsets (signed, so that differences are safe).
using index_t = std::ptrdiff_t;

template <class Scalar>
struct scalar_traits {
  using real = Scalar;
  static constexpr bool is_complex = false;
  static constexpr const char* name = "real";
};

template <class Real>
struct scalar_traits<std::complex<Real>> {
  using real = Real;
  static constexpr bool is_complex = true;
  static constexpr const char* name = "complex";
};

/// @brief Real type of a scalar: `real_t<std::complex<double>>` is `double`.
template <class Scalar>
using real_t = typename scalar_traits<Scalar>::real;

/// @brief True for `std::complex<T>`.
template <class Scalar>
inline constexpr bool is_complex_v = scalar_traits<Scalar>::is_complex;

/// @brief Machine epsilon of the scalar's real type; tolerances derive from it.
template <class Scalar>
constexpr real_t<Scalar> eps() {
  return std::numeric_limits<real_t<Scalar>>::epsilon();
}

/// @brief |x|^2 without a square root, for real and complex scalars.
template <class Scalar>
inline real_t<Scalar> abs2(const Scalar& x) {
  if constexpr (is_complex_v<Scalar>) {
    return std::norm(x);
  } else {
    return x * x;
  }
}

/// @brief True when the value (both parts, if complex) is finite.
template <class Scalar>
inline bool is_finite(const Scalar& x) {
  if constexpr (is_complex_v<Scalar>) {
    return std::isfinite(x.real()) && std::isfinite(x.imag());
  } else {
    return std::isfinite(x);
  }
}

/// @brief Bilinear product `xᵀ y` (plain transpose, no conjugation): complex symmetric
/// algebra (DESIGN.md §1) never conjugates.
template <class Scalar>
inline Scalar dot_t(const Scalar* x, const Scalar* y, index_t n) {
  Scalar s{};
  for (index_t k = 0; k < n; ++k) s += x[k] * y[k];
  return s;
}

/// @brief Sesquilinear product `xᴴ y` (conjugates x); for norms, never for the symmetric algebra.
template <class Scalar>
inline Scalar dot_h(const Scalar* x, const Scalar* y, index_t n) {
  Scalar s{};
  for (index_t k = 0; k < n; ++k) {
    if constexpr (is_complex_v<Scalar>) {
      s += std::conj(x[k]) * y[k];
    } else {
      s += x[k] * y[k];
    }
  }
  return s;
}

/// @brief The scalar types every template is instantiated for; `M(T)` is expanded once each.
#define PSCR_FOR_EACH_SCALAR(M) \
  M(double)                     \
  M(std::complex<double>)

}  // namespace pscr
