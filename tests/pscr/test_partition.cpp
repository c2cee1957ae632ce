// The radix-4 partition on sizes a person can check by hand, and its invariants on all n ≤ 300.
#include <gtest/gtest.h>

#include "common/error.hpp"
#include "pscr/partition.hpp"

namespace pscr {
namespace {

TEST(Partition, SeventeenRowsByHand) {
  // n = 17 (1-based j): J_1 = {4, 8, 12, 16}, J_2 = {16}, k = 3 (4^2 = 16 ≤ 17 < 64).
  const Partition p(17);
  ASSERT_EQ(p.num_levels(), 3);
  EXPECT_EQ(p.level(1).kept, (std::vector<index_t>{3, 7, 11, 15}));
  ASSERT_EQ(p.level(1).blocks.size(), 5u);
  EXPECT_EQ(p.level(1).blocks[0].first, 0);
  EXPECT_EQ(p.level(1).blocks[0].last, 2);
  EXPECT_EQ(p.level(1).blocks[0].inner_rows, (std::vector<index_t>{0, 1, 2}));
  EXPECT_EQ(p.level(1).blocks[4].first, 16);  // the short last block [17, 17]
  EXPECT_EQ(p.level(1).blocks[4].last, 16);
  // Level 2: blocks [1, 15] and [17, 17]; the latter holds no row of J_1 (DESIGN.md §2).
  ASSERT_EQ(p.level(2).blocks.size(), 2u);
  EXPECT_EQ(p.level(2).blocks[0].inner_rows, (std::vector<index_t>{3, 7, 11}));
  EXPECT_EQ(p.level(2).blocks[0].component_rows, (std::vector<index_t>{0, 3, 7, 11, 14}));
  EXPECT_TRUE(p.level(2).blocks[1].inner_rows.empty());
  EXPECT_EQ(p.level(2).blocks[1].component_rows, (std::vector<index_t>{16}));
  // Level 3: one block, all rows; J_2 ∩ B = {16}.
  ASSERT_EQ(p.level(3).blocks.size(), 1u);
  EXPECT_EQ(p.level(3).blocks[0].size(), 17);
  EXPECT_EQ(p.level(3).blocks[0].inner_rows, (std::vector<index_t>{15}));
  EXPECT_TRUE(p.level(3).kept.empty());
}

TEST(Partition, InvariantsForEverySize) {
  for (index_t n = 1; n <= 300; ++n) {
    const Partition p(n);
    index_t qk = 1;
    for (int i = 0; i < p.num_levels(); ++i) qk *= 4;
    EXPECT_GT(qk, n);
    EXPECT_LE(qk / 4, n);
    EXPECT_TRUE(p.level(p.num_levels()).kept.empty()) << n;
    index_t qi = 1;
    for (int i = 1; i <= p.num_levels(); ++i) {
      qi *= 4;
      const Level& level = p.level(i);
      // Blocks and kept rows tile 0..n−1 exactly once.
      std::vector<int> seen(n, 0);
      for (index_t r : level.kept) seen[r]++;
      for (const Block& b : level.blocks) {
        EXPECT_LE(b.size(), qi - 1);
        EXPECT_LE(b.component_rows.size(), 5u);
        for (index_t r = b.first; r <= b.last; ++r) seen[r]++;
      }
      for (index_t r = 0; r < n; ++r) EXPECT_EQ(seen[r], 1) << "n " << n << " level " << i;
    }
  }
}

TEST(Partition, RejectsBadSizes) {
  EXPECT_THROW(Partition(0), InputError);
  EXPECT_THROW(Partition(5, 1), InputError);
}

}  // namespace
}  // namespace pscr
