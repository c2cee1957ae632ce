// The internal pieces of the CPU PSCR backend: the lane-parallel Thomas kernel against
// tridiag::reference, the lane sums against plain loops, and the invariants of the schedule.
#include <gtest/gtest.h>

#include <complex>
#include <set>
#include <vector>

#include "pscr/partition.hpp"
#include "pscr/reference/kernels.hpp"
#include "pscr/reference/lane_sums.hpp"
#include "pscr/reference/lane_thomas.hpp"
#include "pscr/reference/schedule.hpp"
#include "tests/support/random.hpp"
#include "tests/support/tolerance.hpp"
#include "tests/support/typed.hpp"
#include "tridiag/reference/solve.hpp"

namespace pscr {
namespace {

constexpr int kL = 8;

template <class Scalar>
class LaneKernels : public ::testing::Test {};
TYPED_TEST_SUITE(LaneKernels, testing::ScalarTypes);

/// A, M diagonally dominant (2 + U on the diagonal, U/2 off it).
template <class Scalar>
SymTridiag<Scalar> dominant(index_t n, std::uint64_t seed) {
  SymTridiag<Scalar> t;
  t.diag = testing::random_vector<Scalar>(n, seed);
  t.off = testing::random_vector<Scalar>(n - 1, seed + 1);
  for (auto& d : t.diag) d += Scalar(3);
  for (auto& o : t.off) o *= 0.5;
  return t;
}

TYPED_TEST(LaneKernels, ThomasMatchesReference) {
  using Scalar = TypeParam;
  for (index_t n : {1, 2, 3, 17, 64, 65}) {
    for (int lanes : {1, 3, 8}) {
      const auto A = dominant<Scalar>(n, 10 + n);
      const auto M = dominant<Scalar>(n, 20 + n);
      // Shifts in [0, 2): every system diagonally dominant.
      auto shifts = testing::random_vector<Scalar>(kL, 30 + n);
      for (auto& s : shifts) s = Scalar(1) + s;
      for (int j = lanes; j < kL; ++j) shifts[j] = shifts[0];
      const auto x = testing::random_vector<Scalar>(n * kL, 40 + n);  // interleaved
      std::vector<Scalar> y(n * kL, Scalar(std::nan(""))), cp(n * kL);
      for (bool monitor : {false, true}) {
        const auto mask = reference::detail::lane_thomas<kL>(
            n, A.diag.data(), A.off.data(), M.diag.data(), M.off.data(), lanes, shifts.data(),
            x.data(), y.data(), cp.data(), monitor, 100.0);
        EXPECT_EQ(mask, 0u);
        std::vector<Scalar> work(n), ref(n * kL);
        tridiag::reference::solve_shifted(A, M, shifts.data(), lanes, x.data(),
                                          tridiag::BatchLayout::interleaved(kL), ref.data(),
                                          tridiag::BatchLayout::interleaved(kL), work.data(), n);
        for (index_t k = 0; k < n; ++k)
          for (int j = 0; j < lanes; ++j)
            EXPECT_NEAR(std::abs(y[k * kL + j] - ref[k * kL + j]), 0.0,
                        testing::tolerance<Scalar>(100) * (1 + std::abs(ref[k * kL + j])))
                << "n " << n << " lane " << j << " row " << k;
      }
    }
  }
}

TYPED_TEST(LaneKernels, MonitorFlagsLanesThatNeedPivoting) {
  using Scalar = TypeParam;
  // A = tridiag(1, ε, 1), M = I: the first pivot of lane 0 (shift 0) is ε, its fill 1/ε; lane 1
  // (shift 3) is diagonally dominant; lane 2 (shift −ε) has a zero first pivot.
  const index_t n = 6;
  const double small = 1e-9;
  SymTridiag<Scalar> A{std::vector<Scalar>(n, Scalar(small)), std::vector<Scalar>(n - 1, 1.0)};
  SymTridiag<Scalar> M{std::vector<Scalar>(n, Scalar(1)), std::vector<Scalar>(n - 1, 0.0)};
  std::vector<Scalar> shifts(kL, Scalar(3));
  shifts[0] = 0;
  shifts[2] = -small;
  const auto x = testing::random_vector<Scalar>(n * kL, 5);
  std::vector<Scalar> y(n * kL), cp(n * kL);
  const auto mask = reference::detail::lane_thomas<kL>(
      n, A.diag.data(), A.off.data(), M.diag.data(), M.off.data(), 3, shifts.data(), x.data(),
      y.data(), cp.data(), true, 100.0);
  EXPECT_EQ(mask, 0b101u);
}

TYPED_TEST(LaneKernels, SumsMatchPlainLoops) {
  using Scalar = TypeParam;
  using reference::detail::LaneWeights;
  const index_t n = 13;
  const int ns = 4;
  std::vector<std::vector<Scalar>> v;
  for (int e = 0; e < ns; ++e) v.push_back(testing::random_vector<Scalar>(n, 60 + e));
  const Scalar* vp[ns] = {v[0].data(), v[1].data(), v[2].data(), v[3].data()};
  const auto w = testing::random_vector<Scalar>(ns * kL, 70);
  LaneWeights<kL, 7> lw{};
  for (int e = 0; e < ns; ++e)
    for (int j = 0; j < kL; ++j) {
      lw.re[e][j] = std::real(w[e * kL + j]);
      lw.im[e][j] = std::imag(w[e * kL + j]);
    }
  // Lanes [2, 7) only; the others must stay untouched.
  std::vector<Scalar> x(n * kL, Scalar(42));
  reference::detail::form_lanes<Scalar, kL>(n, 2, 7, ns, vp, lw, x.data());
  for (index_t q = 0; q < n; ++q)
    for (int j = 0; j < kL; ++j) {
      Scalar expect(42);
      if (j >= 2 && j < 7) {
        expect = Scalar(0);
        for (int e = 0; e < ns; ++e) expect += w[e * kL + j] * v[e][q];
      }
      EXPECT_NEAR(std::abs(x[q * kL + j] - expect), 0.0, testing::tolerance<Scalar>(10));
    }
  std::vector<Scalar> out(n, Scalar(1));
  reference::detail::gather_lanes<Scalar, kL>(n, 2, 7, 1, lw, x.data(), out.data());
  for (index_t q = 0; q < n; ++q) {
    Scalar expect(1);
    for (int j = 2; j < 7; ++j) expect += w[1 * kL + j] * x[q * kL + j];
    EXPECT_NEAR(std::abs(out[q] - expect), 0.0, testing::tolerance<Scalar>(100));
  }
}

/// The dispatched kernels (AVX2+FMA on machines that have it) agree with the baseline ones.
TYPED_TEST(LaneKernels, DispatchedMatchBaseline) {
  using Scalar = TypeParam;
  using reference::detail::LaneWeights;
  const auto& base = reference::detail::baseline_kernels<Scalar>();
  const auto& chosen = reference::detail::lane_kernels<Scalar>();
  const auto* avx2 = reference::detail::avx2_kernels<Scalar>();
  if (avx2 != nullptr) EXPECT_STREQ(avx2->isa, "avx2+fma");
  this->RecordProperty("isa", chosen.isa);
  const index_t n = 37;
  const auto A = dominant<Scalar>(n, 1);
  const auto M = dominant<Scalar>(n, 2);
  auto shifts = testing::random_vector<Scalar>(kL, 3);
  const auto x = testing::random_vector<Scalar>(n * kL, 4);
  std::vector<Scalar> y1(n * kL), y2(n * kL), cp(n * kL);
  base.thomas(n, A.diag.data(), A.off.data(), M.diag.data(), M.off.data(), 6, shifts.data(),
              x.data(), y1.data(), cp.data(), true, 100.0);
  chosen.thomas(n, A.diag.data(), A.off.data(), M.diag.data(), M.off.data(), 6, shifts.data(),
                x.data(), y2.data(), cp.data(), true, 100.0);
  for (index_t k = 0; k < n * kL; ++k)
    if (k % kL < 6)
      EXPECT_NEAR(std::abs(y1[k] - y2[k]), 0.0,
                  testing::tolerance<Scalar>(100) * (1 + std::abs(y1[k])));
  const auto v0 = testing::random_vector<Scalar>(n, 5), v1 = testing::random_vector<Scalar>(n, 6);
  const Scalar* vp[2] = {v0.data(), v1.data()};
  const auto w = testing::random_vector<Scalar>(2 * kL, 7);
  LaneWeights<kL, reference::detail::kMaxSources> ws{};
  LaneWeights<kL, reference::detail::kMaxOutputs> wo{};
  for (int e = 0; e < 2; ++e)
    for (int j = 0; j < kL; ++j) {
      ws.re[e][j] = wo.re[e][j] = std::real(w[e * kL + j]);
      ws.im[e][j] = wo.im[e][j] = std::imag(w[e * kL + j]);
    }
  std::vector<Scalar> x1(n * kL, Scalar(1)), x2(n * kL, Scalar(1));
  base.form(n, 1, 6, 2, vp, ws, x1.data());
  chosen.form(n, 1, 6, 2, vp, ws, x2.data());
  std::vector<Scalar> o1(n, Scalar(0)), o2(n, Scalar(0));
  base.gather(n, 1, 6, 1, wo, x1.data(), o1.data());
  chosen.gather(n, 1, 6, 1, wo, x2.data(), o2.data());
  for (index_t k = 0; k < n * kL; ++k)
    EXPECT_NEAR(std::abs(x1[k] - x2[k]), 0.0, testing::tolerance<Scalar>(10));
  for (index_t q = 0; q < n; ++q)
    EXPECT_NEAR(std::abs(o1[q] - o2[q]), 0.0, testing::tolerance<Scalar>(100));
}

TEST(Schedule, CoversEverySystemOnce) {
  for (index_t n : {1, 2, 3, 4, 5, 15, 16, 17, 63, 64, 65, 255, 1000, 4096}) {
    const Partition part(n);
    for (index_t lanes : {1, 8}) {
      for (index_t target : {1, 7, 64}) {
        const auto levels = reference::detail::make_schedule(part, lanes, target);
        ASSERT_EQ(static_cast<int>(levels.size()), part.num_levels());
        for (int i = 1; i <= part.num_levels(); ++i) {
          const auto& ls = levels[i - 1];
          const auto& blocks = part.level(i).blocks;
          std::set<std::pair<index_t, index_t>> seen;
          index_t expected = 0;
          for (std::size_t b = 0; b < blocks.size(); ++b)
            if (!blocks[b].inner_rows.empty()) expected += blocks[b].size();
          EXPECT_EQ(ls.systems, expected);
          index_t next_chunk = 0;
          std::set<index_t> slots;
          for (const auto& task : ls.tasks) {
            EXPECT_EQ(task.chunk_begin, next_chunk);  // tasks cover the chunks in order
            EXPECT_LT(task.chunk_begin, task.chunk_end);
            next_chunk = task.chunk_end;
            if (task.slot >= 0) EXPECT_TRUE(slots.insert(task.slot).second);
            for (index_t c = task.chunk_begin; c < task.chunk_end; ++c) {
              const auto& chunk = ls.chunks[c];
              EXPECT_LE(chunk.lanes, lanes);
              index_t lanes_sum = 0;
              for (index_t g = chunk.group_begin; g < chunk.group_end; ++g) {
                const auto& group = ls.groups[g];
                EXPECT_TRUE(ls.block_has_work[group.block]);
                if (task.slot >= 0) {
                  // A slice writes only to its slot: one block.
                  EXPECT_EQ(group.block, ls.groups[ls.chunks[task.chunk_begin].group_begin].block);
                }
                for (index_t l = group.l_begin; l < group.l_end; ++l)
                  EXPECT_TRUE(seen.insert({group.block, l}).second);
                lanes_sum += group.lanes();
              }
              EXPECT_EQ(lanes_sum, chunk.lanes);
            }
          }
          EXPECT_EQ(next_chunk, static_cast<index_t>(ls.chunks.size()));
          EXPECT_EQ(static_cast<index_t>(seen.size()), expected);
          EXPECT_EQ(static_cast<index_t>(slots.size()), ls.slots);
          if (target == 1) EXPECT_EQ(ls.slots, 0);
          // Blocks owned by a task appear in no other task.
          std::vector<int> owner(blocks.size(), -1);
          for (std::size_t t = 0; t < ls.tasks.size(); ++t) {
            if (ls.tasks[t].slot >= 0) continue;
            for (index_t c = ls.tasks[t].chunk_begin; c < ls.tasks[t].chunk_end; ++c)
              for (index_t g = ls.chunks[c].group_begin; g < ls.chunks[c].group_end; ++g) {
                const index_t b = ls.groups[g].block;
                EXPECT_TRUE(owner[b] == -1 || owner[b] == static_cast<int>(t));
                owner[b] = static_cast<int>(t);
              }
          }
        }
      }
    }
  }
}

}  // namespace
}  // namespace pscr
