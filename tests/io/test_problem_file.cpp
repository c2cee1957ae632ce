// Problem files: round trips (real/complex, 2D/3D, batched or not, with exact solution and
// generator record), overwrite protection and atomic writes.
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <fstream>
#include <iterator>

#include "io/problem_file.hpp"
#include "problems/generate.hpp"
#include "tests/io/io_test_util.hpp"
#include "tests/support/typed.hpp"

namespace pscr {
namespace {

using testing::random_problem;
using testing::TempDir;

template <class Scalar>
void expect_same(const Problem<Scalar>& a, const Problem<Scalar>& b) {
  ASSERT_EQ(a.op.dimension(), b.op.dimension());
  for (int d = 0; d < a.op.dimension(); ++d) {
    EXPECT_EQ(a.op.factor(d).A.diag, b.op.factor(d).A.diag) << "dimension " << d + 1;
    EXPECT_EQ(a.op.factor(d).A.off, b.op.factor(d).A.off) << "dimension " << d + 1;
    EXPECT_EQ(a.op.factor(d).M.diag, b.op.factor(d).M.diag) << "dimension " << d + 1;
    EXPECT_EQ(a.op.factor(d).M.off, b.op.factor(d).M.off) << "dimension " << d + 1;
  }
  EXPECT_EQ(a.op.c(), b.op.c());
  EXPECT_EQ(a.nrhs, b.nrhs);
  EXPECT_EQ(a.batched, b.batched);
  EXPECT_EQ(a.f, b.f);
  EXPECT_EQ(a.u_exact, b.u_exact);
  ASSERT_EQ(a.generator.has_value(), b.generator.has_value());
  if (a.generator) {
    EXPECT_EQ(a.generator->description, b.generator->description);
    EXPECT_EQ(a.generator->steps, b.generator->steps);
  }
}

template <class Scalar>
class ProblemFileTest : public ::testing::Test {};
TYPED_TEST_SUITE(ProblemFileTest, testing::ScalarTypes);

TYPED_TEST(ProblemFileTest, RoundTrip) {
  using Scalar = TypeParam;
  struct Case {
    std::vector<index_t> shape;
    index_t nrhs;
    bool batched, exact, generator;
  };
  const std::vector<Case> cases = {
      {{1, 1}, 1, false, false, false},   {{2, 3}, 1, false, true, true},
      {{5, 4}, 1, true, false, true},     {{4, 17}, 3, true, true, false},
      {{1, 1, 1}, 1, false, true, false}, {{3, 1, 2}, 1, false, false, true},
      {{5, 4, 3}, 2, true, true, true},   {{16, 2, 5}, 1, true, false, false}};
  TempDir dir;
  std::uint64_t seed = 1;
  for (const auto& c : cases) {
    const auto p = random_problem<Scalar>(c.shape, c.nrhs, c.batched, c.exact, c.generator, seed);
    const std::string path = dir.file("p" + std::to_string(seed++) + ".h5");
    io::write_problem(path, p, false);
    const AnyProblem back = io::read_problem(path);
    ASSERT_TRUE(std::holds_alternative<Problem<Scalar>>(back)) << path;
    expect_same(p, std::get<Problem<Scalar>>(back));
  }
}

TEST(ProblemFile, GeneratedProblemsRoundTrip) {
  // What `pscr generate` writes: Poisson 2D (real) and Helmholtz 3D with absorbing sides
  // (complex), manufactured solutions, random and graded meshes, the generator record.
  using problems::Boundary;
  problems::ProblemSpec poisson;
  poisson.dims = {{7, {problems::MeshKind::random}, Boundary::dirichlet, Boundary::neumann},
                  {5, {problems::MeshKind::graded}, Boundary::dirichlet, Boundary::dirichlet}};
  poisson.rhs = problems::RhsKind::manufactured;
  poisson.nrhs = 2;
  problems::ProblemSpec helmholtz = poisson;
  helmholtz.equation = problems::Equation::helmholtz;
  helmholtz.dims.push_back({4, {}, Boundary::absorbing, Boundary::absorbing});
  helmholtz.dims[0].right = Boundary::absorbing;
  helmholtz.nrhs = 1;
  TempDir dir;
  for (const auto& spec : {poisson, helmholtz}) {
    const AnyProblem p = problems::generate(spec);
    const std::string path = dir.file(problems::to_string(spec.equation) + ".h5");
    io::write_problem(path, p, false);
    const AnyProblem back = io::read_problem(path);
    ASSERT_EQ(back.index(), p.index());
    std::visit(
        [&](const auto& original) {
          using P = std::decay_t<decltype(original)>;
          expect_same(original, std::get<P>(back));
        },
        p);
  }
}

TEST(ProblemFile, GeneratorWithoutSteps) {
  TempDir dir;
  auto p = random_problem<double>({3, 4}, 1, false, false, true, 5);
  p.generator->steps.clear();
  io::write_problem(dir.file("p.h5"), p, false);
  const auto back = std::get<Problem<double>>(io::read_problem(dir.file("p.h5")));
  ASSERT_TRUE(back.generator.has_value());
  EXPECT_EQ(back.generator->description, p.generator->description);
  EXPECT_TRUE(back.generator->steps.empty());
}

TEST(ProblemFile, NoOverwriteWithoutForce) {
  TempDir dir;
  const std::string path = dir.file("p.h5");
  const auto first = random_problem<double>({3, 4}, 1, false, false, false, 1);
  const auto second = random_problem<double>({3, 4}, 1, false, false, false, 2);
  io::write_problem(path, first, false);
  try {
    io::write_problem(path, second, false);
    ADD_FAILURE() << "expected an OutputError";
  } catch (const OutputError& e) {
    EXPECT_NE(std::string(e.what()).find("--force"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
  }
  expect_same(first, std::get<Problem<double>>(io::read_problem(path)));
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"p.h5"});

  io::write_problem(path, second, true);
  expect_same(second, std::get<Problem<double>>(io::read_problem(path)));
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"p.h5"});
}

TEST(ProblemFile, FailedWriteLeavesNothing) {
  TempDir dir;
  // A file size limit below the problem's size makes HDF5's writes fail half way.
  const auto big = random_problem<double>({64, 256}, 1, false, false, false, 3);
  struct rlimit old_limit;
  ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &old_limit), 0);
  auto old_handler = std::signal(SIGXFSZ, SIG_IGN);
  struct rlimit small = old_limit;
  small.rlim_cur = 16 * 1024;
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &small), 0);
  bool threw = false;
  try {
    io::write_problem(dir.file("big.h5"), big, false);
  } catch (const OutputError& e) {
    threw = true;
    EXPECT_NE(std::string(e.what()).find("big.h5"), std::string::npos) << e.what();
    // The reason, as the system gives it.
    EXPECT_NE(std::string(e.what()).find(std::strerror(EFBIG)), std::string::npos) << e.what();
  }
  ::setrlimit(RLIMIT_FSIZE, &old_limit);
  std::signal(SIGXFSZ, old_handler);
  EXPECT_TRUE(threw) << "the write should fail under a 16 KiB file size limit";
  EXPECT_TRUE(dir.entries().empty()) << "left behind: " << dir.entries().front();

  // The same write without the limit succeeds and leaves exactly the one file.
  io::write_problem(dir.file("big.h5"), big, false);
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"big.h5"});
}

TEST(ProblemFile, MissingDirectoryIsOutputError) {
  TempDir dir;
  const auto p = random_problem<double>({2, 2}, 1, false, false, false, 1);
  EXPECT_THROW(io::write_problem(dir.file("no/such/dir/p.h5"), p, false), OutputError);
  EXPECT_TRUE(dir.entries().empty());
}

TEST(ProblemFile, InconsistentProblemIsRejectedBeforeWriting) {
  TempDir dir;
  auto p = random_problem<double>({2, 3}, 2, true, false, false, 1);
  p.f.pop_back();
  EXPECT_THROW(io::write_problem(dir.file("p.h5"), p, false), InputError);
  auto q = random_problem<double>({2, 3}, 2, false, false, false, 1);  // nrhs 2, not batched
  EXPECT_THROW(io::write_problem(dir.file("q.h5"), q, false), InputError);
  EXPECT_TRUE(dir.entries().empty());
}

TEST(ProblemFile, ReadingDoesNotModifyTheFile) {
  TempDir dir;
  const std::string path = dir.file("p.h5");
  io::write_problem(path, random_problem<double>({3, 5}, 1, false, true, true, 4), false);
  auto bytes = [&] {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  const std::string before = bytes();
  const auto mtime = std::filesystem::last_write_time(path);
  std::filesystem::permissions(path, std::filesystem::perms::owner_read);
  io::read_problem(path);
  EXPECT_EQ(bytes(), before);
  EXPECT_EQ(std::filesystem::last_write_time(path), mtime);
}

}  // namespace
}  // namespace pscr
