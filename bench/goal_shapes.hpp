#pragma once
/// @file Issue 5's bandwidth shapes (n, batch), 2^24 rows each: the first shapes of tridiag_bench's
/// default run and solve_host_bench's --goal-shapes (bench/tridiag_goals.py reads them from the
/// CSV).
#include "common/scalar.hpp"

namespace pscr::bench {

struct Shape {
  index_t n, batch;
};

inline constexpr Shape kGoalShapes[] = {{64, 1 << 18},   {512, 1 << 15}, {1024, 1 << 14},
                                        {8192, 1 << 11}, {65536, 256},   {1 << 20, 16}};

}  // namespace pscr::bench
