#pragma once
/// @file The one tolerance helper of the test suite: k · eps(real_t) · growth.

#include <cmath>

#include "common/scalar.hpp"

namespace pscr::testing {

/// @brief Tolerance `k · eps · growth` for a result in Scalar's precision. `growth` is the
/// expected error growth of the algorithm (e.g. a condition-number estimate or log n).
template <class Scalar>
real_t<Scalar> tolerance(double k, double growth = 1.0) {
  return static_cast<real_t<Scalar>>(k * growth) * eps<Scalar>();
}

}  // namespace pscr::testing
