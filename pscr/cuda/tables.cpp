#include "pscr/cuda/tables.hpp"

#include <algorithm>
#include <cmath>
#include <complex>

#include "common/error.hpp"

namespace pscr::cuda::detail {

namespace {

/// Index of `row` in the block's component rows (present by construction of the partition).
int component_of(const Block& block, index_t row) {
  const auto& rows = block.component_rows;
  const auto it = std::lower_bound(rows.begin(), rows.end(), row);
  if (it == rows.end() || *it != row)
    throw SolverError("GPU tables: row " + std::to_string(row) +
                      " is not a component row of its block (inconsistent eigen-data)");
  return static_cast<int>(it - rows.begin());
}

}  // namespace

template <class Scalar>
std::vector<Scalar> Tables<Scalar>::system_eigenvalues(int i) const {
  const LevelInfo& lv = at(i);
  std::vector<Scalar> out;
  out.reserve(lv.systems);
  for (index_t b = 0; b < lv.block_count; ++b) {
    const BlockInfo& blk = blocks[lv.block_begin + b];
    for (index_t l = 0; l < blk.m; ++l) out.push_back(lambda[blk.lambda + l]);
  }
  return out;
}

template <class Scalar>
Tables<Scalar> build_tables(const EigenData<Scalar>& eigen, index_t chunk_lanes) {
  const Partition& part = eigen.partition;
  if (part.radix() != 4)
    PSCR_INPUT_ERROR("GPU tables: expected a radix-4 partition, found radix " << part.radix());
  if (chunk_lanes < 1)
    PSCR_INPUT_ERROR("GPU tables: chunk_lanes must be >= 1, got " << chunk_lanes);
  Tables<Scalar> t;
  t.n = part.size();
  t.levels = part.num_levels();

  // Flat eigen-data: every distinct block pencil once.
  std::vector<index_t> lambda_offset, w_offset;
  for (const auto& d : eigen.distinct) {
    lambda_offset.push_back(static_cast<index_t>(t.lambda.size()));
    w_offset.push_back(static_cast<index_t>(t.W.size()));
    t.lambda.insert(t.lambda.end(), d.lambda.begin(), d.lambda.end());
    t.W.insert(t.W.end(), d.W.begin(), d.W.end());
  }

  for (int i = 1; i <= t.levels; ++i) {
    const Level& level = part.level(i);
    LevelInfo lv;
    lv.block_begin = static_cast<index_t>(t.blocks.size());
    lv.chunk_begin = static_cast<index_t>(t.chunks.size());
    lv.kept_begin = static_cast<index_t>(t.kept.size());
    lv.split_begin = static_cast<index_t>(t.splits.size());
    const index_t nblocks = static_cast<index_t>(level.blocks.size());
    // Index of each partition block among the work blocks (−1: no work).
    std::vector<index_t> work_index(nblocks, -1);
    for (index_t b = 0; b < nblocks; ++b) {
      const Block& block = level.blocks[b];
      if (block.inner_rows.empty()) continue;
      if (static_cast<int>(block.inner_rows.size()) > kMaxInner)
        throw SolverError("GPU tables: a block holds more than 3 rows of J_{i-1}");
      const index_t entry = eigen.block_entry[i - 1][b];
      const BlockEigen<Scalar>& be = eigen.distinct[entry];
      if (be.size() != block.size() || be.rows.size() != block.component_rows.size())
        throw SolverError("GPU tables: eigen-data do not match the partition");
      BlockInfo info;
      info.first = block.first;
      info.last = block.last;
      info.m = block.size();
      info.sys = lv.systems;
      info.lambda = lambda_offset[entry];
      info.w = w_offset[entry];
      info.ninner = static_cast<int>(block.inner_rows.size());
      for (int e = 0; e < info.ninner; ++e) {
        info.inner_row[e] = block.inner_rows[e];
        info.inner_comp[e] = component_of(block, block.inner_rows[e]);
      }
      // Reduction outputs, eq. (24): the rows next to kept rows.
      if (block.first > 0) {
        info.red_row[info.nred] = block.first;
        info.red_comp[info.nred++] = component_of(block, block.first);
      }
      if (block.last < t.n - 1 && !(info.nred > 0 && info.red_row[0] == block.last)) {
        info.red_row[info.nred] = block.last;
        info.red_comp[info.nred++] = component_of(block, block.last);
      }
      info.comp_first = component_of(block, block.first);
      info.comp_last = component_of(block, block.last);
      info.has_left = block.first > 0 ? 1 : 0;
      info.has_right = block.last < t.n - 1 ? 1 : 0;

      work_index[b] = lv.block_count;
      const index_t local = lv.block_count++;
      t.blocks.push_back(info);
      lv.systems += info.m;

      // Chunks of at most chunk_lanes eigenvalues; a block of several chunks gets slots.
      const index_t nchunks = (info.m + chunk_lanes - 1) / chunk_lanes;
      SplitInfo split;
      split.block = local;
      split.slot_begin = lv.slots;
      split.slot_count = nchunks > 1 ? nchunks : 0;
      for (index_t c = 0; c < nchunks; ++c) {
        ChunkInfo chunk;
        chunk.block = local;
        chunk.l_begin = c * chunk_lanes;
        chunk.l_end = std::min(info.m, chunk.l_begin + chunk_lanes);
        chunk.slot = nchunks > 1 ? lv.slots++ : -1;
        t.chunks.push_back(chunk);
        ++lv.chunk_count;
      }
      if (nchunks > 1) {
        t.splits.push_back(split);
        ++lv.split_count;
      }
    }
    // Kept rows J_i: kept[k] lies between partition blocks k and k + 1.
    for (index_t k = 0; k < static_cast<index_t>(level.kept.size()); ++k) {
      KeptInfo kept;
      kept.row = level.kept[k];
      kept.left = work_index[k] >= 0 ? 1 : 0;
      kept.right = (kept.row + 1 < t.n && k + 1 < nblocks && work_index[k + 1] >= 0) ? 1 : 0;
      t.kept.push_back(kept);
      ++lv.kept_count;
    }
    t.max_systems = std::max(t.max_systems, lv.systems);
    t.max_slots = std::max(t.max_slots, lv.slots);
    t.max_chunks = std::max(t.max_chunks, lv.chunk_count);
    t.max_kept = std::max(t.max_kept, lv.kept_count);
    t.max_splits = std::max(t.max_splits, lv.split_count);
    t.level.push_back(lv);
  }

  // The lane of the eigenvalue of smallest modulus in the top level's single block (the CPU
  // backend's choice: first of the smallest).
  const LevelInfo& top = t.level.back();
  if (top.block_count != 1 || t.blocks[top.block_begin].m != t.n)
    throw SolverError("GPU tables: the top level must be one block of all rows");
  const BlockInfo& tb = t.blocks[top.block_begin];
  t.zero_lane = 0;
  for (index_t l = 1; l < tb.m; ++l)
    if (std::abs(t.lambda[tb.lambda + l]) < std::abs(t.lambda[tb.lambda + t.zero_lane]))
      t.zero_lane = l;
  return t;
}

#define PSCR_INSTANTIATE_TABLES(Scalar) \
  template struct Tables<Scalar>;       \
  template Tables<Scalar> build_tables<Scalar>(const EigenData<Scalar>&, index_t);
PSCR_FOR_EACH_SCALAR(PSCR_INSTANTIATE_TABLES)
#undef PSCR_INSTANTIATE_TABLES

}  // namespace pscr::cuda::detail
