#include "pscr/partition.hpp"

#include <algorithm>

#include "common/error.hpp"

namespace pscr {

Partition::Partition(index_t n, int radix) : n_(n), radix_(radix) {
  if (n < 1) PSCR_INPUT_ERROR("partition: expected a size n >= 1, found " << n);
  if (radix < 2) PSCR_INPUT_ERROR("partition: expected a radix >= 2, found " << radix);
  // k = floor(log_q n) + 1: the smallest k with q^k > n.
  int k = 1;
  for (index_t p = radix; p <= n; p *= radix) ++k;

  index_t step_prev = 1;  // q^{i-1}
  for (int i = 1; i <= k; ++i) {
    const index_t step = step_prev * radix;  // q^i
    Level level;
    for (index_t r = step - 1; r < n; r += step) level.kept.push_back(r);
    // Blocks: the runs between consecutive kept rows (and the ends).
    index_t first = 0;
    auto close_block = [&](index_t last) {
      if (last < first) return;
      Block b;
      b.first = first;
      b.last = last;
      // J_{i-1} ∩ B: rows with (r + 1) divisible by q^{i-1} (every row when i = 1).
      for (index_t r = first; r <= last; ++r)
        if ((r + 1) % step_prev == 0) b.inner_rows.push_back(r);
      b.component_rows = b.inner_rows;
      b.component_rows.push_back(first);
      b.component_rows.push_back(last);
      std::sort(b.component_rows.begin(), b.component_rows.end());
      b.component_rows.erase(std::unique(b.component_rows.begin(), b.component_rows.end()),
                             b.component_rows.end());
      level.blocks.push_back(std::move(b));
    };
    for (index_t r : level.kept) {
      close_block(r - 1);
      first = r + 1;
    }
    close_block(n - 1);
    levels_.push_back(std::move(level));
    step_prev = step;
  }
}

}  // namespace pscr
