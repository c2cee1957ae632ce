#pragma once
/// @file The one trait that converts host scalars (std::complex<T>) to device scalars
/// (cuda::std::complex<T>, same layout) at the .cu boundary. Include only from .cu files.

#include <complex>
#include <cuda/std/complex>

namespace pscr::cuda {

template <class Scalar>
struct device_scalar {
  using type = Scalar;
};
template <class Real>
struct device_scalar<std::complex<Real>> {
  using type = ::cuda::std::complex<Real>;
};
/// @brief The device type of a host scalar: double → double,
/// std::complex<double> → cuda::std::complex<double>.
template <class Scalar>
using device_scalar_t = typename device_scalar<Scalar>::type;

static_assert(sizeof(device_scalar_t<std::complex<double>>) == sizeof(std::complex<double>));

/// @brief Reinterprets a host-typed device pointer as the device scalar type.
template <class Scalar>
inline device_scalar_t<Scalar>* as_device(Scalar* p) {
  return reinterpret_cast<device_scalar_t<Scalar>*>(p);
}
template <class Scalar>
inline const device_scalar_t<Scalar>* as_device(const Scalar* p) {
  return reinterpret_cast<const device_scalar_t<Scalar>*>(p);
}

}  // namespace pscr::cuda
