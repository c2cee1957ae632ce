// Recognizing the kind of a pscr file, and checking an output path before long work.
#include <gtest/gtest.h>

#include <fstream>

#include "common/error.hpp"
#include "io/file_info.hpp"
#include "io/problem_file.hpp"
#include "io/solution_file.hpp"
#include "tests/io/io_test_util.hpp"

namespace pscr {
namespace {

TEST(FileInfo, RecognizesProblemAndSolutionFiles) {
  testing::TempDir dir;
  const auto problem = testing::random_problem<double>({3, 4}, 1, false, false, false, 5);
  io::write_problem(dir.file("p.h5"), AnyProblem(problem), false);
  EXPECT_EQ(io::file_format(dir.file("p.h5")), io::FileFormat::problem);

  io::Solution<double> s;
  s.shape = {3, 4};
  s.u.assign(12, 1.0);
  s.record.residuals = {1e-15};
  io::write_solution(dir.file("s.h5"), io::AnySolution(s), false);
  EXPECT_EQ(io::file_format(dir.file("s.h5")), io::FileFormat::solution);

  EXPECT_THROW(io::file_format(dir.file("missing.h5")), InputError);
  std::ofstream(dir.file("text.h5")) << "not HDF5";
  EXPECT_THROW(io::file_format(dir.file("text.h5")), InputError);
}

TEST(FileInfo, CheckWritable) {
  testing::TempDir dir;
  EXPECT_NO_THROW(io::check_writable(dir.file("new.h5"), false));
  std::ofstream(dir.file("old.h5")) << "x";
  EXPECT_THROW(io::check_writable(dir.file("old.h5"), false), OutputError);
  EXPECT_NO_THROW(io::check_writable(dir.file("old.h5"), true));
  EXPECT_THROW(io::check_writable(dir.path(), true), OutputError);
  EXPECT_THROW(io::check_writable(dir.file("no/such/dir.h5"), true), OutputError);
  EXPECT_THROW(io::check_writable("", true), OutputError);
}

}  // namespace
}  // namespace pscr
