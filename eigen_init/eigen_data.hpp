#pragma once
/// @file The eigen-data of the partial solution (DESIGN.md §2, myllykoski2018 eqs. 18–23): for
/// every block B of every level of a dimension's partition, the generalized eigenvalues of
/// (A)_B w = λ (M)_B w and only the eigenvector components that PSCR uses, with Wᵀ (M)_B W = I
/// (plain transpose, also when complex). Identical blocks share one entry.

#include <vector>

#include "common/scalar.hpp"
#include "pscr/operator.hpp"
#include "pscr/partition.hpp"

namespace pscr {

/// @brief Eigenvalues and selected eigenvector components of one block pencil of size m.
template <class Scalar>
struct BlockEigen {
  std::vector<Scalar> lambda;  ///< the m eigenvalues
  /// Block-relative rows whose components are stored: rows[k] = component_rows[k] − first of
  /// every Block that maps to this entry (same order, ascending).
  std::vector<index_t> rows;
  /// rows.size() × m, row-major: W[k·m + l] = w_l(rows[k]), eigenvectors normalized so that
  /// Wᵀ (M)_B W = I.
  std::vector<Scalar> W;

  index_t size() const { return static_cast<index_t>(lambda.size()); }
  /// Pointer to the m components of stored row k.
  const Scalar* row(index_t k) const { return W.data() + k * size(); }
};

/// @brief The eigen-data of one dimension: its partition, the distinct block pencils, and for
/// every block of every level the index of its entry.
template <class Scalar>
struct EigenData {
  Partition partition{1};
  std::vector<BlockEigen<Scalar>> distinct;
  std::vector<std::vector<index_t>> block_entry;  ///< [level − 1][block] → index into distinct

  const BlockEigen<Scalar>& block(int level, index_t b) const {
    return distinct[block_entry[level - 1][b]];
  }
};

}  // namespace pscr
