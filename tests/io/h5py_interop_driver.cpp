// Driver of the h5py interoperability test (h5py_interop.py): reads a problem written by plain
// h5py, applies the operator to every right-hand side and writes the result as a solution
// (u = A f, residual = relative residual of u_exact when the file has one, else 0), then writes
// the problem back with write_problem so that the script can compare it with what it wrote, and
// the eigen-data of dimension 1 (radix 4) with write_eigen_data.
//
// Usage: h5py_interop_driver <problem in> <solution out> <problem copy out> <eigen-data out>
#include <cstdio>
#include <exception>

#include "common/version.hpp"
#include "eigen_init/eigen_init.hpp"
#include "io/eigen_data_file.hpp"
#include "io/problem_file.hpp"
#include "io/solution_file.hpp"

namespace {

template <class Scalar>
pscr::io::Solution<Scalar> apply_operator(const pscr::Problem<Scalar>& p, const char* path) {
  const pscr::index_t grid = p.op.grid_size();
  pscr::io::Solution<Scalar> s;
  s.shape = p.op.shape();
  if (p.batched) s.shape.insert(s.shape.begin(), p.nrhs);
  s.u.resize(p.f.size());
  s.record = {"h5py-interop-test", pscr::version, path, 1, 0.0, 0.0, 0.0, {}};
  for (pscr::index_t k = 0; k < p.nrhs; ++k) {
    p.op.apply(p.rhs(k), s.u.data() + k * grid);
    s.record.residuals.push_back(
        p.u_exact.empty() ? 0.0 : p.op.relative_residual(p.u_exact.data() + k * grid, p.rhs(k)));
  }
  return s;
}

template <class Scalar>
void write_eigen_data_of_dimension_1(const pscr::Problem<Scalar>& p, const char* path) {
  const pscr::Factor<Scalar>& factor = p.op.factor(0);
  pscr::io::write_eigen_data<Scalar>(
      path, {pscr::compute_eigen_data(factor, pscr::Partition(factor.size()))}, {&factor}, false);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 5) {
    std::fprintf(stderr,
                 "usage: %s <problem in> <solution out> <problem copy out> <eigen-data out>\n",
                 argv[0]);
    return 2;
  }
  try {
    const pscr::AnyProblem problem = pscr::io::read_problem(argv[1]);
    const pscr::io::AnySolution solution = std::visit(
        [&](const auto& p) -> pscr::io::AnySolution { return apply_operator(p, argv[1]); },
        problem);
    pscr::io::write_solution(argv[2], solution, false);
    pscr::io::write_problem(argv[3], problem, false);
    std::visit([&](const auto& p) { write_eigen_data_of_dimension_1(p, argv[4]); }, problem);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "h5py_interop_driver: %s\n", e.what());
    return 1;
  }
  return 0;
}
