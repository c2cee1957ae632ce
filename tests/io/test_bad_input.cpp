// Every kind of bad problem or solution file is an InputError naming the file, the dataset or
// attribute, what was expected and what was found. The bad files are made by editing a good one
// with the plain HDF5 C API (tests/io/h5_edit.hpp).
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>

#include "io/problem_file.hpp"
#include "io/solution_file.hpp"
#include "tests/io/h5_edit.hpp"
#include "tests/io/io_test_util.hpp"

namespace pscr {
namespace {

using testing::expect_input_error;
using testing::H5Edit;

/// A good 2D real problem file (n1 = 4, n2 = 5, f and u_exact of shape (4, 5), generator group
/// with steps) in a fresh directory; each test breaks it one way.
class BadProblem : public ::testing::Test {
 protected:
  void SetUp() override {
    io::write_problem(path_, testing::random_problem<double>({4, 5}, 1, false, true, true, 7),
                      false);
  }
  /// Expects read_problem to fail with a message containing the path and every fragment.
  void expect_rejected(std::vector<std::string> fragments) {
    fragments.push_back(path_);
    expect_input_error([&] { io::read_problem(path_); }, fragments);
  }
  testing::TempDir dir_;
  std::string path_ = dir_.file("problem.h5");
};

TEST_F(BadProblem, GoodFileIsAccepted) {
  EXPECT_NO_THROW(io::read_problem(path_));
}

TEST_F(BadProblem, MissingFile) {
  expect_input_error([&] { io::read_problem(dir_.file("nope.h5")); },
                     {dir_.file("nope.h5"), "No such file"});
}

TEST_F(BadProblem, Directory) {
  expect_input_error([&] { io::read_problem(dir_.path()); }, {dir_.path(), "directory"});
}

TEST_F(BadProblem, NotHdf5) {
  std::ofstream(path_, std::ios::trunc) << "n1 n2\n4 5\n";
  expect_rejected({"not HDF5"});
}

TEST_F(BadProblem, TruncatedFile) {
  const auto size = std::filesystem::file_size(path_);
  std::filesystem::resize_file(path_, size / 2);
  expect_rejected({"cannot read"});
}

TEST_F(BadProblem, MissingFormatVersion) {
  H5Edit(path_).remove_attribute("/", "format_version");
  expect_rejected({"`format_version`", "missing", "expected the integer 1"});
}

TEST_F(BadProblem, UnknownFormatVersion) {
  H5Edit(path_).put_int_attribute("/", "format_version", 2);
  expect_rejected({"`format_version`", "unknown format version 2", "reads version 1"});
}

TEST_F(BadProblem, FormatVersionNotAnInteger) {
  H5Edit(path_).put_string_attribute("/", "format_version", "1");
  expect_rejected({"`format_version`", "expected an integer", "found string"});
}

TEST_F(BadProblem, WrongFormatName) {
  H5Edit(path_).put_string_attribute("/", "format", "pscr-solution");
  expect_rejected({"`format`", "expected \"pscr-problem\"", "found \"pscr-solution\""});
}

TEST_F(BadProblem, MissingFormatNameIsAccepted) {
  // Files written by hand with h5py need not carry `format`; `format_version` is required.
  H5Edit(path_).remove_attribute("/", "format");
  EXPECT_NO_THROW(io::read_problem(path_));
}

TEST_F(BadProblem, MissingDataset) {
  H5Edit(path_).remove("A2_off");
  expect_rejected({"`A2_off`", "missing"});
}

TEST_F(BadProblem, MissingRightHandSide) {
  H5Edit(path_).remove("f");
  expect_rejected({"`f`", "missing"});
}

TEST_F(BadProblem, IncompleteThirdDimension) {
  H5Edit(path_).put_doubles("A3_diag", {2}, {1, 2});
  expect_rejected({"`A3_off`", "missing", "3D problem"});
}

TEST_F(BadProblem, FourthDimension) {
  H5Edit(path_).put_doubles("M4_diag", {2}, {1, 2});
  expect_rejected({"`M4_diag`", "expected 2 or 3 dimensions"});
}

TEST_F(BadProblem, WrongRank) {
  H5Edit(path_).put_doubles("A1_diag", {2, 2}, {1, 2, 3, 4});
  expect_rejected({"`A1_diag`", "expected a one-dimensional array", "found shape (2, 2)"});
}

TEST_F(BadProblem, EmptyDimension) {
  H5Edit(path_).put_doubles("A1_diag", {0}, {});
  expect_rejected({"`A1_diag`", "expected at least 1 entry", "found 0"});
}

TEST_F(BadProblem, OffDiagonalLength) {
  H5Edit(path_).put_doubles("A1_off", {4}, {1, 2, 3, 4});
  expect_rejected({"`A1_off`", "expected length 3", "n1 = 4", "found 4"});
}

TEST_F(BadProblem, MassSizeDiffersFromStiffness) {
  H5Edit(path_).put_doubles("M2_diag", {6}, {1, 2, 3, 4, 5, 6});
  expect_rejected({"`M2_diag`", "expected length 5", "found 6"});
}

TEST_F(BadProblem, RightHandSideShape) {
  H5Edit(path_).put_doubles("f", {4, 6}, std::vector<double>(24, 1.0));
  expect_rejected({"`f`", "expected shape (4, 5) or (nrhs, 4, 5)", "found shape (4, 6)"});
}

TEST_F(BadProblem, RightHandSideRank) {
  H5Edit(path_).put_doubles("f", {20}, std::vector<double>(20, 1.0));
  expect_rejected({"`f`", "expected shape (4, 5)", "found shape (20,)"});
}

TEST_F(BadProblem, EmptyBatch) {
  H5Edit(path_).put_doubles("f", {0, 4, 5}, {});
  H5Edit(path_).remove("u_exact");
  expect_rejected({"`f`", "nrhs >= 1", "found shape (0, 4, 5)"});
}

TEST_F(BadProblem, ExactSolutionShape) {
  H5Edit(path_).put_doubles("u_exact", {1, 4, 5}, std::vector<double>(20, 1.0));
  expect_rejected({"`u_exact`", "expected the shape of f, (4, 5)", "found (1, 4, 5)"});
}

TEST_F(BadProblem, ShiftNotScalar) {
  H5Edit(path_).put_doubles("c", {2}, {1, 2});
  expect_rejected({"`c`", "expected a scalar", "found shape (2,)"});
}

TEST_F(BadProblem, StringDataset) {
  H5Edit(path_).put_strings("f", {4, 5}, std::vector<std::string>(20, "x"));
  expect_rejected({"`f`", "expected numbers", "found string values"});
}

TEST_F(BadProblem, BoolDataset) {
  H5Edit(path_).put_bools("c", {}, {1});
  expect_rejected({"`c`", "expected numbers", "found enum"});
}

TEST_F(BadProblem, CompoundWithoutRealImaginary) {
  H5Edit(path_).put_complex("A1_diag", {4}, std::vector<double>(8, 1.0), "re", "im");
  expect_rejected({"`A1_diag`", "compound {r, i}", "found a compound with members (re, im)"});
}

TEST_F(BadProblem, NullDataspace) {
  H5Edit(path_).put_null("c");
  expect_rejected({"`c`", "expected numbers", "null"});
}

TEST_F(BadProblem, GroupInsteadOfDataset) {
  H5Edit(path_).put_group("f");
  expect_rejected({"`f`", "expected a dataset", "found a group"});
}

TEST_F(BadProblem, NotANumber) {
  H5Edit(path_).put_doubles("A1_diag", {4}, {1, 2, std::nan(""), 4});
  expect_rejected({"`A1_diag`", "expected finite values", "entry [2] = nan"});
}

TEST_F(BadProblem, InfiniteRightHandSide) {
  std::vector<double> f(20, 1.0);
  f[7] = std::numeric_limits<double>::infinity();
  H5Edit(path_).put_doubles("f", {4, 5}, f);
  expect_rejected({"`f`", "expected finite values", "entry [1, 2] = inf"});
}

TEST_F(BadProblem, ComplexNotANumber) {
  std::vector<double> ri(8, 1.0);
  ri[5] = std::nan("");  // imaginary part of entry 2
  H5Edit(path_).put_complex("M1_diag", {4}, ri);
  expect_rejected({"`M1_diag`", "expected finite values", "entry [2]"});
}

TEST_F(BadProblem, GeneratorWithoutDescription) {
  H5Edit(path_).remove_attribute("generator", "description");
  expect_rejected({"`description` of `generator`", "missing", "expected a string"});
}

TEST_F(BadProblem, GeneratorStepsIncomplete) {
  H5Edit(path_).remove("generator/h2");
  expect_rejected({"`generator/h2`", "missing"});
}

TEST_F(BadProblem, GeneratorStepNotPositive) {
  H5Edit(path_).put_doubles("generator/h1", {3}, {0.5, 0.0, 0.5});
  expect_rejected({"`generator/h1`", "expected positive mesh steps", "entry [1]"});
}

TEST_F(BadProblem, OtherNumericTypesAreConverted) {
  // Integers, float32 and a fixed-length string `format` are accepted and converted.
  {
    H5Edit e(path_);
    e.put_doubles("A1_diag", {4}, {1, 2, 3, 4}, H5T_STD_I32LE);
    e.put_doubles("M1_diag", {4}, {0.5, 0.25, 2, 4}, H5T_IEEE_F32BE);
    e.put_doubles("c", {1}, {-3}, H5T_STD_I8LE);
    e.put_fixed_string_attribute("/", "format", "pscr-problem");
  }
  const auto p = std::get<Problem<double>>(io::read_problem(path_));
  EXPECT_EQ(p.op.factor(0).A.diag, (std::vector<double>{1, 2, 3, 4}));
  EXPECT_EQ(p.op.factor(0).M.diag, (std::vector<double>{0.5, 0.25, 2, 4}));
  EXPECT_EQ(p.op.c(), -3.0);
}

TEST_F(BadProblem, OneComplexDatasetMakesTheProblemComplex) {
  H5Edit(path_).put_complex("c", {}, {-1.0, 0.5});
  const AnyProblem p = io::read_problem(path_);
  ASSERT_TRUE(std::holds_alternative<Problem<std::complex<double>>>(p));
  EXPECT_EQ(std::get<Problem<std::complex<double>>>(p).op.c(), std::complex<double>(-1.0, 0.5));
}

/// A good solution file (u of shape (2, 4, 5), two residuals); each test breaks it one way.
class BadSolution : public ::testing::Test {
 protected:
  void SetUp() override {
    io::Solution<double> s;
    s.shape = {2, 4, 5};
    s.u.assign(40, 0.5);
    s.record = {"cpu", "0.1.0", "problem.h5", 2, 0.1, 0.2, 0.0, {1e-15, 2e-15}};
    io::write_solution(path_, s, false);
  }
  void expect_rejected(std::vector<std::string> fragments) {
    fragments.push_back(path_);
    expect_input_error([&] { io::read_solution(path_); }, fragments);
  }
  testing::TempDir dir_;
  std::string path_ = dir_.file("solution.h5");
};

TEST_F(BadSolution, GoodFileIsAccepted) {
  EXPECT_NO_THROW(io::read_solution(path_));
}

TEST_F(BadSolution, ProblemFileIsNotASolution) {
  io::write_problem(dir_.file("p.h5"),
                    testing::random_problem<double>({2, 2}, 1, false, false, false, 1), false);
  expect_input_error([&] { io::read_solution(dir_.file("p.h5")); },
                     {"`format`", "expected \"pscr-solution\"", "found \"pscr-problem\""});
}

TEST_F(BadSolution, MissingSolution) {
  H5Edit(path_).remove("u");
  expect_rejected({"`u`", "missing"});
}

TEST_F(BadSolution, SolutionRank) {
  H5Edit(path_).put_doubles("u", {40}, std::vector<double>(40, 1.0));
  expect_rejected({"`u`", "expected shape (n1, n2[, n3])", "found (40,)"});
}

TEST_F(BadSolution, ResidualCount) {
  H5Edit(path_).put_doubles("residual", {3}, {0, 0, 0});
  expect_rejected({"`residual`", "expected shape (1,) or (2,)", "found (3,)"});
}

TEST_F(BadSolution, ComplexResidual) {
  H5Edit(path_).put_complex("residual", {2}, {0, 0, 0, 0});
  expect_rejected({"`residual`", "expected float64", "found complex"});
}

TEST_F(BadSolution, MissingRecordAttribute) {
  H5Edit(path_).remove_attribute("/", "backend");
  expect_rejected({"`backend`", "missing", "expected a string"});
}

TEST_F(BadSolution, TimingNotANumber) {
  H5Edit(path_).put_string_attribute("/", "solve_seconds", "fast");
  expect_rejected({"`solve_seconds`", "expected a number", "found string"});
}

TEST_F(BadSolution, NonFiniteSolution) {
  std::vector<double> u(40, 1.0);
  u[39] = -std::numeric_limits<double>::infinity();
  H5Edit(path_).put_doubles("u", {2, 4, 5}, u);
  expect_rejected({"`u`", "expected finite values", "entry [1, 3, 4] = -inf"});
}

}  // namespace
}  // namespace pscr
