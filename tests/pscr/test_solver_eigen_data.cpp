// Plans from precomputed eigen-data (issue 3: initialize once, solve many times): the CPU solver
// built from another solver's eigen_data(), and from those eigen-data written to a file and read
// back, gives bitwise the solution of the solver that computed them, on every case of
// test_solver_gpu_cases.hpp (2D and 3D, real and complex, edge sizes); eigen-data that do not
// fit the operator are refused with InputError, and so is a file for other factors.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/error.hpp"
#include "eigen_init/eigen_init.hpp"
#include "io/eigen_data_file.hpp"
#include "pscr/reference/solver.hpp"
#include "tests/io/io_test_util.hpp"
#include "tests/pscr/test_solver_gpu_cases.hpp"
#include "tests/support/typed.hpp"

namespace pscr {
namespace {

template <class Scalar>
class SolverEigenDataTest : public ::testing::Test {};
TYPED_TEST_SUITE(SolverEigenDataTest, testing::ScalarTypes);

/// u = A⁻¹ f with `solver` (threads fixed: bitwise comparisons).
template <class Scalar>
std::vector<Scalar> solve(reference::Solver<Scalar>& solver, const std::vector<Scalar>& f) {
  std::vector<Scalar> u(f.size());
  solver.solve(f.data(), u.data());
  return u;
}

/// The first case of the given dimension that runs as Scalar.
template <class Scalar>
Problem<Scalar> first_problem(std::size_t dims) {
  for (const auto& c : testing::gpu_cases())
    if (c.runs_as<Scalar>() && c.spec.dims.size() == dims && c.spec.dims[0].n > 4)
      return testing::make_problem<Scalar>(c);
  throw std::logic_error("no such case");
}

TYPED_TEST(SolverEigenDataTest, BitwiseFromGivenAndFromFile) {
  using Scalar = TypeParam;
  testing::TempDir dir;
  reference::SolverOptions options;
  options.threads = 2;
  int ran = 0;
  for (const auto& c : testing::gpu_cases()) {
    if (!c.runs_as<Scalar>()) continue;
    SCOPED_TRACE(c.name());
    const Problem<Scalar> p = testing::make_problem<Scalar>(c);
    reference::Solver<Scalar> computed(p.op, options);
    ASSERT_EQ(static_cast<int>(computed.eigen_data().size()), p.op.dimension() - 1);
    const std::vector<Scalar> u = solve(computed, p.f);

    reference::Solver<Scalar> given(p.op, computed.eigen_data(), options);
    const std::string path = dir.file("eigen" + std::to_string(ran) + ".h5");
    io::write_eigen_data(path, computed.eigen_data(), reference::plan_eigen_factors(p.op), false);
    reference::Solver<Scalar> loaded(
        p.op, io::read_eigen_data(path, reference::plan_eigen_factors(p.op)), options);
    const std::vector<Scalar> u_given = solve(given, p.f);
    const std::vector<Scalar> u_loaded = solve(loaded, p.f);
    EXPECT_EQ(given.singular(), computed.singular());
    for (std::size_t k = 0; k < u.size(); ++k) {
      ASSERT_EQ(u_given[k], u[k]) << "element " << k << ", eigen-data given in memory";
      ASSERT_EQ(u_loaded[k], u[k]) << "element " << k << ", eigen-data read from " << path;
    }
    ++ran;
  }
  EXPECT_GT(ran, 20);
}

/// Expects InputError from building a solver for op with `eigen`, its message containing `what`.
template <class Scalar>
void expect_refused(const SeparableOperator<Scalar>& op, std::vector<EigenData<Scalar>> eigen,
                    const std::string& what) {
  try {
    reference::Solver<Scalar> solver(op, std::move(eigen), {});
    ADD_FAILURE() << "accepted eigen-data that do not fit (expected: " << what << ")";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
  }
}

TYPED_TEST(SolverEigenDataTest, RefusesEigenDataThatDoNotFit) {
  using Scalar = TypeParam;
  for (std::size_t dims : {2, 3}) {
    SCOPED_TRACE(std::to_string(dims) + "D");
    const Problem<Scalar> p = first_problem<Scalar>(dims);
    const auto good = reference::compute_plan_eigen_data(p.op);
    ASSERT_EQ(good.size(), dims - 1);
    reference::check_plan_eigen_data(p.op, good, "test");

    // Eigen-data of another size: those of a factor one row longer.
    Factor<Scalar> longer = p.op.factor(0);
    longer.A.diag.push_back(longer.A.diag.back());
    longer.A.off.push_back(longer.A.off.empty() ? Scalar(0) : longer.A.off.back());
    longer.M.diag.push_back(longer.M.diag.back());
    longer.M.off.push_back(longer.M.off.empty() ? Scalar(0) : longer.M.off.back());
    auto other_size = good;
    other_size[0] = compute_eigen_data(longer, Partition(longer.size(), 4));
    expect_refused(p.op, other_size, "eigen-data of dimension 1: expected the radix-4 partition");

    // Another radix.
    auto radix2 = good;
    radix2[0].partition = Partition(p.op.factor(0).size(), 2);
    expect_refused(p.op, radix2, "radix 2");

    // Too few or too many dimensions.
    auto fewer = good;
    fewer.pop_back();
    expect_refused(p.op, fewer, "expected eigen-data of " + std::to_string(dims - 1));
    auto more = good;
    more.push_back(good[0]);
    expect_refused(p.op, more, "expected eigen-data of " + std::to_string(dims - 1));

    // Inconsistent with the partition: a level missing, an entry index out of range, an entry
    // of the wrong size, component rows that are not the block's.
    auto levels = good;
    levels.back().block_entry.pop_back();
    expect_refused(p.op, levels, "levels");
    auto index = good;
    index.back().block_entry[0][0] = static_cast<index_t>(index.back().distinct.size());
    expect_refused(p.op, index, "expected an entry index");
    auto size = good;
    size.back().distinct[size.back().block_entry[0][0]].lambda.pop_back();
    expect_refused(p.op, size, "level 1 block 0");
    auto rows = good;
    const int top = rows.back().partition.num_levels();
    rows.back().distinct[rows.back().block_entry[top - 1][0]].rows.back() += 1;
    expect_refused(p.op, rows, "level " + std::to_string(top) + " block 0");
  }
}

TYPED_TEST(SolverEigenDataTest, FileOfOtherFactorsIsRefused) {
  using Scalar = TypeParam;
  testing::TempDir dir;
  for (std::size_t dims : {2, 3}) {
    SCOPED_TRACE(std::to_string(dims) + "D");
    const Problem<Scalar> p = first_problem<Scalar>(dims);
    const std::string path = dir.file("eigen" + std::to_string(dims) + ".h5");
    io::write_eigen_data(path, reference::compute_plan_eigen_data(p.op),
                         reference::plan_eigen_factors(p.op), false);
    // The same sizes, other values: A1 scaled.
    Factor<Scalar> scaled = p.op.factor(0);
    for (auto& x : scaled.A.diag) x *= 2.0;
    auto factors = reference::plan_eigen_factors(p.op);
    factors[0] = &scaled;
    EXPECT_THROW(io::read_eigen_data(path, factors), InputError);
  }
}

}  // namespace
}  // namespace pscr
