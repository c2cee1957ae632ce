#include "pscr/reference/schedule.hpp"

#include <algorithm>

#include "common/error.hpp"

namespace pscr::reference::detail {

namespace {

index_t ceil_div(index_t a, index_t b) {
  return (a + b - 1) / b;
}

/// Builds one level: packs whole blocks into chunks and tasks, splits the blocks that are larger
/// than a task into slices.
LevelSchedule make_level(const Level& level, index_t lanes, index_t target_tasks) {
  LevelSchedule s;
  const index_t nblocks = static_cast<index_t>(level.blocks.size());
  s.block_has_work.assign(nblocks, 0);
  index_t total = 0;
  for (index_t b = 0; b < nblocks; ++b) {
    const Block& block = level.blocks[b];
    s.block_has_work[b] = block.inner_rows.empty() ? 0 : 1;
    if (s.block_has_work[b]) total += block.size();
  }
  // Systems per task: a whole number of chunks, about total / target_tasks.
  const index_t per_task = std::max(lanes, ceil_div(ceil_div(total, target_tasks), lanes) * lanes);

  Task open;  // the task being filled with whole blocks
  open.chunk_begin = 0;
  index_t open_systems = 0;
  auto close_task = [&]() {
    if (open_systems == 0) return;
    open.chunk_end = static_cast<index_t>(s.chunks.size());
    open.slot = -1;
    s.tasks.push_back(open);
    open.chunk_begin = open.chunk_end;
    open_systems = 0;
  };
  // Appends lanes [l_begin, l_end) of block b as new chunks of at most `lanes` systems; a block
  // that fits in a chunk shares the last chunk when there is room.
  auto add_chunks = [&](index_t b, index_t l_begin, index_t l_end, bool may_share) {
    const index_t m = l_end - l_begin;
    // The last chunk can be shared only while it belongs to the open task.
    if (may_share && m <= lanes && static_cast<index_t>(s.chunks.size()) > open.chunk_begin &&
        s.chunks.back().lanes + m <= lanes) {
      s.groups.push_back({b, l_begin, l_end});
      s.chunks.back().group_end = static_cast<index_t>(s.groups.size());
      s.chunks.back().lanes += m;
      return;
    }
    for (index_t l = l_begin; l < l_end; l += lanes) {
      const index_t e = std::min(l_end, l + lanes);
      Chunk c;
      c.group_begin = static_cast<index_t>(s.groups.size());
      s.groups.push_back({b, l, e});
      c.group_end = c.group_begin + 1;
      c.lanes = e - l;
      s.chunks.push_back(c);
    }
  };

  for (index_t b = 0; b < nblocks; ++b) {
    if (!s.block_has_work[b]) continue;
    const index_t m = level.blocks[b].size();
    if (m > per_task) {
      // Split: one task per slice of per_task systems, each writing to its own slot.
      close_task();
      Split split;
      split.block = b;
      split.slot_begin = s.slots;
      for (index_t l = 0; l < m; l += per_task) {
        Task t;
        t.chunk_begin = static_cast<index_t>(s.chunks.size());
        add_chunks(b, l, std::min(m, l + per_task), false);
        t.chunk_end = static_cast<index_t>(s.chunks.size());
        t.slot = s.slots++;
        s.tasks.push_back(t);
      }
      split.slot_count = s.slots - split.slot_begin;
      s.splits.push_back(split);
      open.chunk_begin = static_cast<index_t>(s.chunks.size());
      continue;
    }
    add_chunks(b, 0, m, true);
    open_systems += m;
    if (open_systems >= per_task) close_task();
  }
  close_task();
  s.systems = total;
  return s;
}

}  // namespace

std::vector<LevelSchedule> make_schedule(const Partition& partition, index_t lanes,
                                         index_t target_tasks) {
  if (lanes < 1 || target_tasks < 1)
    PSCR_INPUT_ERROR("schedule: expected lanes >= 1 and target_tasks >= 1, found "
                     << lanes << " and " << target_tasks);
  std::vector<LevelSchedule> levels;
  for (int i = 1; i <= partition.num_levels(); ++i)
    levels.push_back(make_level(partition.level(i), lanes, target_tasks));
  return levels;
}

}  // namespace pscr::reference::detail
