#pragma once
/// @file The guiding information of the GPU backend (internal, host C++): for one dimension's
/// radix-4 partition and eigen-data, flat tables that tell every GPU thread which block,
/// eigenvalues, rows and eigenvector components it works on (myllykoski2018 §4.1: "guiding
/// information"). Built once on the CPU, uploaded as plain arrays of these structs.
///
/// Terms (DESIGN.md §2): at level i a *work block* is a block with at least one row of J_{i−1};
/// its m eigenvalues give m shifted systems. The *systems* of a level are those of all its work
/// blocks, block after block, eigenvalue after eigenvalue: system `sys + l` is eigenvalue l of the
/// block whose first system is `sys`. A *chunk* is at most `chunk_lanes` consecutive eigenvalues
/// of one block, the unit of work of one thread column; a block of more eigenvalues is *split*
/// over several chunks, each writing its partial sums to a *slot* of kMaxOutputs rows, and the
/// slots are added in chunk order afterwards (deterministic, no atomics).

#include <vector>

#include "common/scalar.hpp"
#include "eigen_init/eigen_data.hpp"

namespace pscr::cuda::detail {

/// Rows of J_{i−1} ∩ B of a block (radix 4: at most q − 1 = 3).
inline constexpr int kMaxInner = 3;
/// Outputs of a block: its inner rows (back substitution) or first and last rows (reduction).
inline constexpr int kMaxOutputs = 3;

/// @brief One work block of a level. Rows are 0-based rows of the dimension; `*_comp` are indices
/// into the block's stored eigenvector components (BlockEigen::rows).
struct BlockInfo {
  index_t first = 0;
  index_t last = 0;
  index_t m = 0;       ///< eigenvalues (= block size)
  index_t sys = 0;     ///< first system of the block in its level
  index_t lambda = 0;  ///< offset of the block's m eigenvalues in the flat eigenvalue array
  index_t w = 0;       ///< offset of its components (ncomp × m, row-major) in the flat W array
  int ninner = 0;      ///< rows of J_{i−1} ∩ B: sources, and the outputs of back substitution
  int nred = 0;        ///< outputs of the reduction: first (if > 0), last (if < n − 1)
  index_t inner_row[kMaxInner] = {};
  int inner_comp[kMaxInner] = {};
  index_t red_row[2] = {};
  int red_comp[2] = {};
  int comp_first = 0;  ///< component of row `first` (coupling −T_{a,a−1} u_{a−1}, eq. 28)
  int comp_last = 0;   ///< component of row `last` (coupling −T_{b,b+1} u_{b+1})
  int has_left = 0;    ///< first > 0
  int has_right = 0;   ///< last < n − 1
};

/// @brief Eigenvalues [l_begin, l_end) of one work block; `slot` < 0 when the chunk is its
/// block's only one (it writes the outputs directly), else the slot of its partial sums.
struct ChunkInfo {
  index_t block = 0;  ///< index into the level's blocks
  index_t l_begin = 0;
  index_t l_end = 0;
  index_t slot = -1;
};

/// @brief A kept row j ∈ J_i and whether the partial solutions next to it exist (the blocks on
/// either side have work): f^(i+1)_j = f^(i)_j − T_{j,j−1} v_{j−1} − T_{j,j+1} v_{j+1}, eq. (24).
struct KeptInfo {
  index_t row = 0;
  int left = 0;
  int right = 0;
};

/// @brief A split block: its slots [slot_begin, slot_begin + slot_count), in chunk order.
struct SplitInfo {
  index_t block = 0;
  index_t slot_begin = 0;
  index_t slot_count = 0;
};

/// @brief Where level i's entries are in the flat tables (the `*_begin` are offsets into
/// Tables::blocks, chunks, kept, splits), and its sizes.
struct LevelInfo {
  index_t systems = 0;  ///< Σ m over the work blocks
  index_t slots = 0;
  index_t block_begin = 0, block_count = 0;
  index_t chunk_begin = 0, chunk_count = 0;
  index_t kept_begin = 0, kept_count = 0;
  index_t split_begin = 0, split_count = 0;
};

/// @brief The tables of one dimension (size n, k levels) and its flat eigen-data.
template <class Scalar>
struct Tables {
  index_t n = 0;
  int levels = 0;
  /// Eigenvalue of smallest modulus of the whole pencil: its index in the top-level block (the
  /// lane of the null space of a singular problem).
  index_t zero_lane = 0;
  std::vector<LevelInfo> level;  ///< [i − 1]
  std::vector<BlockInfo> blocks;
  std::vector<ChunkInfo> chunks;
  std::vector<KeptInfo> kept;
  std::vector<SplitInfo> splits;
  std::vector<Scalar> lambda;  ///< the distinct blocks' eigenvalues, one after another
  std::vector<Scalar> W;       ///< the distinct blocks' components, one after another
  index_t max_systems = 0;     ///< over the levels
  index_t max_slots = 0;
  index_t max_chunks = 0;
  index_t max_kept = 0;
  index_t max_splits = 0;

  const LevelInfo& at(int i) const { return level[i - 1]; }
  /// The eigenvalues of level i's systems in system order (for shifts and the pivoting check).
  std::vector<Scalar> system_eigenvalues(int i) const;
};

/// @brief Builds the tables of `eigen` (radix 4), chunks of at most `chunk_lanes` eigenvalues.
/// Throws InputError unless the partition has radix 4 and chunk_lanes ≥ 1.
template <class Scalar>
Tables<Scalar> build_tables(const EigenData<Scalar>& eigen, index_t chunk_lanes);

}  // namespace pscr::cuda::detail
