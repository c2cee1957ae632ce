#pragma once
/// @file Consistency of eigen-data with their own partition, shared by the solvers (eigen-data
/// given by the caller) and the eigen-data file reader: one check, two ways to report it.

#include <optional>
#include <string>
#include <vector>

#include "common/scalar.hpp"
#include "eigen_init/eigen_data.hpp"

namespace pscr {

/// @brief The part of eigen-data an inconsistency is in (the file reader names the dataset).
enum class EigenDataPart {
  levels,            ///< block_entry has not one list per level
  blocks,            ///< a level's list has not one entry index per block
  entry_index,       ///< an entry index outside the distinct entries
  eigenvalue_count,  ///< an entry's size is not its block's size
  component_rows,    ///< an entry's rows are not its block's relative component rows
  components,        ///< an entry's W has not rows × size values
  eigenvalues,       ///< a non-finite eigenvalue
  component_values,  ///< a non-finite component
};

/// @brief One inconsistency: where, and what was expected and found.
struct EigenDataFault {
  EigenDataPart part;
  std::string message;
};

/// @brief The first inconsistency of `data` with its partition: a block_entry list per level
/// with one valid entry index per block; every used entry with its block's size, its
/// block-relative component rows and a W of rows × size values; every value finite. Nothing when
/// consistent.
template <class Scalar>
std::optional<EigenDataFault> find_fault(const EigenData<Scalar>& data) {
  const Partition& p = data.partition;
  const index_t entries = static_cast<index_t>(data.distinct.size());
  auto fault = [](EigenDataPart part, std::string message) {
    return std::optional<EigenDataFault>(EigenDataFault{part, std::move(message)});
  };
  if (static_cast<int>(data.block_entry.size()) != p.num_levels())
    return fault(EigenDataPart::levels,
                 "expected " + std::to_string(p.num_levels()) + " levels (partition of n = " +
                     std::to_string(p.size()) + ", radix " + std::to_string(p.radix()) +
                     "), found " + std::to_string(data.block_entry.size()));
  for (int i = 1; i <= p.num_levels(); ++i) {
    const auto& blocks = p.level(i).blocks;
    const auto& entry_of = data.block_entry[i - 1];
    if (entry_of.size() != blocks.size())
      return fault(EigenDataPart::blocks, "expected " + std::to_string(blocks.size()) +
                                              " blocks at level " + std::to_string(i) + ", found " +
                                              std::to_string(entry_of.size()));
    for (std::size_t b = 0; b < blocks.size(); ++b) {
      const std::string where = "level " + std::to_string(i) + " block " + std::to_string(b);
      const index_t e = entry_of[b];
      if (e < 0 || e >= entries)
        return fault(EigenDataPart::entry_index, "expected an entry index in [0, " +
                                                     std::to_string(entries) + ") for " + where +
                                                     ", found " + std::to_string(e));
      const BlockEigen<Scalar>& entry = data.distinct[e];
      const index_t m = blocks[b].size();
      if (entry.size() != m)
        return fault(EigenDataPart::eigenvalue_count,
                     "expected " + std::to_string(m) + " eigenvalues in entry " +
                         std::to_string(e) + " (used by " + where + " of size " +
                         std::to_string(m) + "), found " + std::to_string(entry.size()));
      std::vector<index_t> rows = blocks[b].component_rows;
      for (index_t& r : rows) r -= blocks[b].first;
      if (entry.rows != rows) {
        std::string want, found;
        for (index_t r : rows) want += (want.empty() ? "" : ", ") + std::to_string(r);
        for (index_t r : entry.rows) found += (found.empty() ? "" : ", ") + std::to_string(r);
        return fault(EigenDataPart::component_rows, "expected rows (" + want + ") in entry " +
                                                        std::to_string(e) + " (used by " + where +
                                                        "), found (" + found + ")");
      }
      if (entry.W.size() != rows.size() * static_cast<std::size_t>(m))
        return fault(EigenDataPart::components, "expected " + std::to_string(rows.size() * m) +
                                                    " components in entry " + std::to_string(e) +
                                                    ", found " + std::to_string(entry.W.size()));
    }
  }
  for (index_t e = 0; e < entries; ++e) {
    for (const Scalar& x : data.distinct[e].lambda)
      if (!is_finite(x))
        return fault(EigenDataPart::eigenvalues, "expected finite eigenvalues, entry " +
                                                     std::to_string(e) + " has a non-finite one");
    for (const Scalar& x : data.distinct[e].W)
      if (!is_finite(x))
        return fault(
            EigenDataPart::component_values,
            "expected finite components, entry " + std::to_string(e) + " has a non-finite one");
  }
  return std::nullopt;
}

}  // namespace pscr
