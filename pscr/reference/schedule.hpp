#pragma once
/// @file How the partial solutions of one level are cut into work (CPU backend, internal).
///
/// Every level i of the partition solves, for each block B with at least one row of J_{i−1},
/// one shifted system per eigenvalue λ_l of B's pencil (DESIGN.md §2). The systems are processed
/// in *chunks* of at most `lanes` systems that are solved together (a batch of tridiagonal
/// solves in 2D, one inner 2D solve per lane in 3D), and chunks are grouped into *tasks*, the
/// unit of parallel work. The cut depends only on the partition, the lane count and the target
/// task count, never on the number of threads, so the floating-point order of every sum, and the
/// result, is the same for any thread count.
///
/// Small blocks are packed whole into chunks and tasks; a block with more eigenvalues than a task
/// holds is split into *slices*, one task each, whose outputs go to private *slots* that are
/// summed in slice order afterwards.

#include <vector>

#include "common/scalar.hpp"
#include "pscr/partition.hpp"

namespace pscr::reference::detail {

/// @brief Eigenvalues [l_begin, l_end) of one block, in consecutive lanes of a chunk.
struct LaneGroup {
  index_t block = 0;
  index_t l_begin = 0;
  index_t l_end = 0;
  index_t lanes() const { return l_end - l_begin; }
};

/// @brief Groups [group_begin, group_end) solved together; `lanes` systems in all.
struct Chunk {
  index_t group_begin = 0;
  index_t group_end = 0;
  index_t lanes = 0;
};

/// @brief Chunks [chunk_begin, chunk_end), run by one thread in order. `slot` < 0: the task owns
/// the outputs of its blocks (it is the only task that touches them); otherwise the task is one
/// slice of a split block and writes to slot `slot`.
struct Task {
  index_t chunk_begin = 0;
  index_t chunk_end = 0;
  index_t slot = -1;
};

/// @brief A block cut into slices: slots [slot_begin, slot_begin + slot_count), in slice order.
struct Split {
  index_t block = 0;
  index_t slot_begin = 0;
  index_t slot_count = 0;
};

/// @brief The work of one level.
struct LevelSchedule {
  std::vector<LaneGroup> groups;
  std::vector<Chunk> chunks;
  std::vector<Task> tasks;
  std::vector<Split> splits;
  index_t slots = 0;                 ///< number of slots the split blocks use
  index_t systems = 0;               ///< shifted systems of the level (lanes of all chunks)
  std::vector<char> block_has_work;  ///< per block: does it hold a row of J_{i−1}?
};

/// @brief The schedules of all levels of a partition.
/// @param lanes         systems per chunk (≥ 1)
/// @param target_tasks  about how many tasks a level should have (≥ 1); blocks are split only
///                      when one block holds more than total_systems / target_tasks systems
std::vector<LevelSchedule> make_schedule(const Partition& partition, index_t lanes,
                                         index_t target_tasks);

}  // namespace pscr::reference::detail
