// Solution files: round trips of u, residuals and the solve record, real and complex, and
// overwrite protection.
#include <gtest/gtest.h>

#include "io/solution_file.hpp"
#include "tests/io/io_test_util.hpp"
#include "tests/support/typed.hpp"

namespace pscr {
namespace {

template <class Scalar>
class SolutionFileTest : public ::testing::Test {};
TYPED_TEST_SUITE(SolutionFileTest, testing::ScalarTypes);

TYPED_TEST(SolutionFileTest, RoundTrip) {
  using Scalar = TypeParam;
  const std::vector<std::vector<index_t>> shapes = {{1, 1}, {3, 4}, {2, 3, 4}, {3, 5, 1, 2}};
  testing::TempDir dir;
  std::uint64_t seed = 11;
  for (const auto& shape : shapes) {
    io::Solution<Scalar> s;
    s.shape = shape;
    index_t count = 1;
    for (index_t n : shape) count *= n;
    s.u = testing::random_vector<Scalar>(count, seed);
    const std::size_t nrhs = shape.size() == 4 ? shape[0] : 1;
    s.record = {"cpu", "0.1.0", "some dir/problem ü.h5",         7, 0.25,
                1.5,   1e-3,    std::vector<double>(nrhs, 3e-15)};
    const std::string path = dir.file("s" + std::to_string(seed++) + ".h5");
    io::write_solution(path, s, false);
    const io::AnySolution any = io::read_solution(path);
    ASSERT_TRUE(std::holds_alternative<io::Solution<Scalar>>(any));
    const auto& back = std::get<io::Solution<Scalar>>(any);
    EXPECT_EQ(back.shape, s.shape);
    EXPECT_EQ(back.u, s.u);
    EXPECT_EQ(back.record.backend, s.record.backend);
    EXPECT_EQ(back.record.pscr_version, s.record.pscr_version);
    EXPECT_EQ(back.record.problem_file, s.record.problem_file);
    EXPECT_EQ(back.record.threads, s.record.threads);
    EXPECT_EQ(back.record.init_seconds, s.record.init_seconds);
    EXPECT_EQ(back.record.solve_seconds, s.record.solve_seconds);
    EXPECT_EQ(back.record.transfer_seconds, s.record.transfer_seconds);
    EXPECT_EQ(back.record.residuals, s.record.residuals);
  }
}

TEST(SolutionFile, NoOverwriteWithoutForce) {
  testing::TempDir dir;
  io::Solution<double> s{{2, 2}, {1, 2, 3, 4}, {"cpu", "0.1.0", "p.h5", 1, 0, 0, 0, {0.0}}};
  io::write_solution(dir.file("s.h5"), s, false);
  EXPECT_THROW(io::write_solution(dir.file("s.h5"), s, false), OutputError);
  s.u[0] = 9;
  io::write_solution(dir.file("s.h5"), s, true);
  EXPECT_EQ(std::get<io::Solution<double>>(io::read_solution(dir.file("s.h5"))).u[0], 9.0);
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"s.h5"});
}

TEST(SolutionFile, InconsistentSolutionIsRejectedBeforeWriting) {
  testing::TempDir dir;
  io::Solution<double> s{{2, 2}, {1, 2, 3}, {"cpu", "0.1.0", "p.h5", 1, 0, 0, 0, {0.0}}};
  EXPECT_THROW(io::write_solution(dir.file("a.h5"), s, false), InputError);  // 3 != 2·2
  s.u.push_back(4);
  s.record.residuals = {0.0, 0.0};  // 2 residuals for one 2D grid
  EXPECT_THROW(io::write_solution(dir.file("b.h5"), s, false), InputError);
  EXPECT_TRUE(dir.entries().empty());
}

}  // namespace
}  // namespace pscr
