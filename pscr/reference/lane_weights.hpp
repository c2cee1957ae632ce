#pragma once
/// @file Weights of the lanes of one chunk (internal): the eigenvector components W_{s,l} that the
/// weighted sums of the partial solution use (lane_sums.hpp), and the most sources and outputs
/// a block has.

namespace pscr::reference::detail {

/// The most outputs of a block (radix 4): the rows of J_{i−1} ∩ B in back substitution, at most
/// q − 1 = 3, or its first and last rows in the reduction.
inline constexpr int kMaxOutputs = 3;
/// The most sources of a block (radix 4): the rows of J_{i−1} ∩ B plus two coupling rows.
inline constexpr int kMaxSources = 5;

/// @brief Weights of one chunk, split into real and imaginary parts: w[e][j] for source or
/// output e and lane j (imaginary parts zero for real scalars).
template <int L, int E>
struct LaneWeights {
  double re[E][L];
  double im[E][L];
};

}  // namespace pscr::reference::detail
