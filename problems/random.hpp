#pragma once
/// @file Seeded uniform random values, the one source of random entries for generated
/// right-hand sides, manufactured solutions and test inputs.

#include <cstdint>
#include <random>
#include <vector>

#include "common/scalar.hpp"

namespace pscr::problems {

/// @brief `count` entries from U(−1, 1) (both parts for complex), reproducible from the seed
/// (std::mt19937_64, so the same on every platform).
template <class Scalar>
std::vector<Scalar> uniform_values(index_t count, std::uint64_t seed) {
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<Scalar> v(count);
  for (auto& x : v) {
    if constexpr (is_complex_v<Scalar>) {
      const double re = u(gen);
      x = Scalar(re, u(gen));
    } else {
      x = u(gen);
    }
  }
  return v;
}

}  // namespace pscr::problems
