// The GPU operator against the CPU one (which is tested against the assembled matrix).
#include <gtest/gtest.h>

#include "common/cuda/check.hpp"
#include "pscr/cuda/operator.hpp"
#include "tests/support/random.hpp"
#include "tests/support/tolerance.hpp"
#include "tests/support/typed.hpp"

namespace pscr {
namespace {

template <class Scalar>
class OperatorGpuTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (cuda::device_count() == 0) GTEST_SKIP() << "no CUDA device";
  }
};
TYPED_TEST_SUITE(OperatorGpuTest, testing::ScalarTypes);

TYPED_TEST(OperatorGpuTest, MatchesCpuOperator) {
  using Scalar = TypeParam;
  const std::vector<std::vector<index_t>> shapes = {{1, 1},    {1, 33},      {33, 1},
                                                    {17, 65},  {255, 257},   {1, 1, 1},
                                                    {5, 7, 3}, {31, 32, 33}, {64, 1, 65}};
  std::uint64_t seed = 1;
  for (const auto& shape : shapes) {
    std::vector<Factor<Scalar>> factors;
    for (index_t n : shape) {
      SymTridiag<Scalar> a{testing::random_vector<Scalar>(n, seed),
                           testing::random_vector<Scalar>(n - 1, seed + 1)};
      SymTridiag<Scalar> m{testing::random_vector<Scalar>(n, seed + 2),
                           testing::random_vector<Scalar>(n - 1, seed + 3)};
      factors.push_back({a, m});
      seed += 4;
    }
    const SeparableOperator<Scalar> op(factors, testing::random_vector<Scalar>(1, seed++)[0]);
    const index_t n = op.grid_size();
    const auto u = testing::random_vector<Scalar>(n, seed++);
    std::vector<Scalar> expected(n);
    op.apply(u.data(), expected.data());

    cuda::DeviceOperator<Scalar> dop(op);
    cuda::DeviceBuffer<Scalar> d_u(n), d_y(n);
    d_u.copy_from_host(u.data());
    // Poison the output so that an unwritten element fails.
    std::vector<Scalar> got(n, Scalar(std::numeric_limits<double>::quiet_NaN()));
    d_y.copy_from_host(got.data());
    dop.apply(nullptr, d_u.data(), d_y.data());
    PSCR_CUDA_CHECK(cudaDeviceSynchronize());
    d_y.copy_to_host(got.data());
    real_t<Scalar> err = 0;
    for (index_t k = 0; k < n; ++k) {
      ASSERT_FALSE(std::isnan(std::abs(got[k]))) << "element " << k << " not written";
      err = std::max(err, std::abs(got[k] - expected[k]));
    }
    // Same sums in another order (FMA on the device): a few ulps of the O(10) entries.
    EXPECT_LE(err, testing::tolerance<Scalar>(200)) << "grid of " << n;
  }
}

}  // namespace
}  // namespace pscr
