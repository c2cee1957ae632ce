#pragma once
/// @file Seeded random inputs for tests, and the sizes every size sweep includes.

#include <cstdint>
#include <vector>

#include "common/scalar.hpp"
#include "problems/random.hpp"

namespace pscr::testing {

/// @brief Uniform(−1, 1) entries (both parts for complex), reproducible from the seed.
template <class Scalar>
std::vector<Scalar> random_vector(index_t n, std::uint64_t seed) {
  return problems::uniform_values<Scalar>(n, seed);
}

/// @brief The edge sizes of CONVENTIONS.md: 1, 2, 3, 4^k − 1, 4^k, 4^k + 1 for k = 1..3.
inline std::vector<index_t> edge_sizes() {
  return {1, 2, 3, 4, 5, 15, 16, 17, 63, 64, 65};
}

}  // namespace pscr::testing
