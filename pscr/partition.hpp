#pragma once
/// @file The radix-q partition of DESIGN.md §2 for any n ≥ 1: levels i = 1..k with
/// k = floor(log_q n) + 1, kept sets J_i = { j : q^i divides j } (1-based j), and the blocks of
/// each level, the maximal runs of rows not in J_i. Both backends and eigen_init use it.
///
/// Rows here are 0-based: row r is the paper's j = r + 1, so r ∈ J_i ⇔ (r + 1) mod q^i = 0.

#include <vector>

#include "common/scalar.hpp"

namespace pscr {

/// @brief One block B = [first, last] of a level (0-based, inclusive).
struct Block {
  index_t first = 0;
  index_t last = 0;
  /// Rows of J_{i−1} ∩ B, ascending: where the right-hand side g is non-zero in the reduction,
  /// and the rows solved in back substitution (all rows of B at level 1). May be empty.
  std::vector<index_t> inner_rows;
  /// {first, last} ∪ inner_rows, ascending, without repeats: the rows whose eigenvector
  /// components the partial solution uses (at most q + 1).
  std::vector<index_t> component_rows;

  index_t size() const { return last - first + 1; }
};

/// @brief The blocks of one level and its kept set J_i.
struct Level {
  std::vector<Block> blocks;  ///< ascending
  std::vector<index_t> kept;  ///< J_i, ascending
};

/// @brief The partition of rows 0..n−1 into levels and blocks.
class Partition {
 public:
  /// Throws InputError unless n ≥ 1 and radix ≥ 2.
  explicit Partition(index_t n, int radix = 4);

  index_t size() const { return n_; }
  int radix() const { return radix_; }
  /// k = floor(log_q n) + 1.
  int num_levels() const { return static_cast<int>(levels_.size()); }
  /// Level i = 1..k.
  const Level& level(int i) const { return levels_[i - 1]; }

 private:
  index_t n_;
  int radix_;
  std::vector<Level> levels_;
};

}  // namespace pscr
