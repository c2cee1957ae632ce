// The Kronecker-structured operator against the entry-by-entry assembled matrix.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "common/error.hpp"
#include "pscr/operator.hpp"
#include "tests/support/oracle.hpp"
#include "tests/support/random.hpp"
#include "tests/support/tolerance.hpp"
#include "tests/support/typed.hpp"

namespace pscr {
namespace {

template <class Scalar>
SymTridiag<Scalar> random_tridiag(index_t n, std::uint64_t seed) {
  SymTridiag<Scalar> t;
  t.diag = testing::random_vector<Scalar>(n, seed);
  t.off = testing::random_vector<Scalar>(n - 1, seed + 1);
  return t;
}

template <class Scalar>
SeparableOperator<Scalar> random_operator(const std::vector<index_t>& shape, std::uint64_t seed) {
  std::vector<Factor<Scalar>> factors;
  for (std::size_t d = 0; d < shape.size(); ++d)
    factors.push_back({random_tridiag<Scalar>(shape[d], seed + 10 * d),
                       random_tridiag<Scalar>(shape[d], seed + 10 * d + 5)});
  return SeparableOperator<Scalar>(std::move(factors), testing::random_vector<Scalar>(1, seed)[0]);
}

template <class Scalar>
class OperatorTest : public ::testing::Test {};
TYPED_TEST_SUITE(OperatorTest, testing::ScalarTypes);

// SymTridiag::apply, y = T x and y += T x, entry by entry through T(r, s), n = 1 to 33.
TYPED_TEST(OperatorTest, TridiagonalApplyMatchesEntries) {
  using Scalar = TypeParam;
  for (index_t n : {1, 2, 3, 33}) {
    const auto t = random_tridiag<Scalar>(n, 7 + n);
    const auto x = testing::random_vector<Scalar>(n, 11 + n);
    const auto y0 = testing::random_vector<Scalar>(n, 13 + n);
    std::vector<Scalar> y(n), y_sum = y0;
    t.apply(x.data(), y.data());
    t.apply(x.data(), y_sum.data(), true);
    for (index_t r = 0; r < n; ++r) {
      Scalar expected(0);
      for (index_t s = 0; s < n; ++s) expected += t(r, s) * x[s];
      EXPECT_LE(std::abs(y[r] - expected), testing::tolerance<Scalar>(10)) << "n " << n;
      EXPECT_LE(std::abs(y_sum[r] - (y0[r] + expected)), testing::tolerance<Scalar>(10))
          << "n " << n;
    }
  }
}

TYPED_TEST(OperatorTest, MatchesAssembledMatrix) {
  using Scalar = TypeParam;
  const std::vector<std::vector<index_t>> shapes = {{1, 1},    {1, 5},     {7, 1},     {2, 3},
                                                    {17, 9},   {33, 65},   {1, 1, 1},  {3, 1, 2},
                                                    {5, 7, 3}, {9, 4, 17}, {16, 15, 1}};
  std::uint64_t seed = 100;
  for (const auto& shape : shapes) {
    const auto op = random_operator<Scalar>(shape, seed++);
    const index_t n = op.grid_size();
    const auto u = testing::random_vector<Scalar>(n, seed++);
    std::vector<Scalar> y(n);
    op.apply(u.data(), y.data());

    const auto a = testing::assemble(op);
    Eigen::Map<const Eigen::Matrix<Scalar, Eigen::Dynamic, 1>> uv(u.data(), n);
    const Eigen::Matrix<Scalar, Eigen::Dynamic, 1> ref = a * uv;
    real_t<Scalar> err = 0;
    for (index_t k = 0; k < n; ++k) err = std::max(err, std::abs(y[k] - ref[k]));
    // Each entry sums at most 3^d · (d + 1) products of O(1) numbers.
    EXPECT_LE(err, testing::tolerance<Scalar>(100)) << "shape size " << shape.size() << ", n " << n;
  }
}

TYPED_TEST(OperatorTest, ResidualOfExactSolveIsTiny) {
  using Scalar = TypeParam;
  auto op = random_operator<Scalar>({6, 11}, 7);
  const auto f = testing::random_vector<Scalar>(op.grid_size(), 8);
  const auto u = testing::sparse_lu_solve(op, f.data());
  // Random factors can be ill-conditioned: allow a generous growth factor.
  EXPECT_LE(op.relative_residual(u.data(), f.data()), testing::tolerance<Scalar>(1e6));
  std::vector<Scalar> zero(op.grid_size(), Scalar(0));
  EXPECT_DOUBLE_EQ(op.relative_residual(zero.data(), f.data()), 1.0);
}

TYPED_TEST(OperatorTest, NormBoundAndRoundingFloor) {
  using Scalar = TypeParam;
  for (const std::vector<index_t>& shape : {std::vector<index_t>{9, 14}, {4, 7, 5}}) {
    const auto op = random_operator<Scalar>(shape, 31);
    const auto a = testing::assemble(op);
    // ‖A‖∞ of the assembled matrix is at most the Kronecker bound (triangle inequality on the
    // terms, ‖X⊗Y‖∞ = ‖X‖∞‖Y‖∞), and not far below it for random factors.
    std::vector<double> row_sums(op.grid_size(), 0.0);
    for (int k = 0; k < a.outerSize(); ++k)
      for (typename decltype(a)::InnerIterator it(a, k); it; ++it)
        row_sums[it.row()] += static_cast<double>(std::abs(it.value()));
    const double exact = *std::max_element(row_sums.begin(), row_sums.end());
    const double bound = op.infinity_norm_bound();
    EXPECT_LE(exact, bound * (1 + 1e-14));
    EXPECT_GE(exact, 0.1 * bound);
    const double e = static_cast<double>(eps<Scalar>());
    EXPECT_DOUBLE_EQ(op.residual_rounding_floor(3.0, 2.0),
                     SeparableOperator<Scalar>::kResidualFloor * e * bound * 1.5);
    EXPECT_DOUBLE_EQ(op.residual_rounding_floor(3.0, 0.0),
                     SeparableOperator<Scalar>::kResidualFloor * e * bound * 3.0);
  }
}

TEST(OperatorValidation, RejectsMismatchedFactors) {
  SymTridiag<double> a{{2, 2, 2}, {-1, -1}};
  SymTridiag<double> bad_off{{2, 2, 2}, {-1}};
  SymTridiag<double> m2{{1, 1}, {0}};
  EXPECT_THROW(SeparableOperator<double>({{a, bad_off}, {a, a}}, 0.0), InputError);
  EXPECT_THROW(SeparableOperator<double>({{a, m2}, {a, a}}, 0.0), InputError);
  EXPECT_THROW(SeparableOperator<double>({{a, a}}, 0.0), InputError);
  SymTridiag<double> nan_diag{{2, std::nan(""), 2}, {-1, -1}};
  EXPECT_THROW(SeparableOperator<double>({{a, a}, {nan_diag, a}}, 0.0), InputError);
  try {
    SeparableOperator<double>({{a, bad_off}, {a, a}}, 0.0);
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("M1"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("found 1"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace pscr
