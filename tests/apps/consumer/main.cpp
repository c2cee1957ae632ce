// A program outside the project that uses the installed library: builds a 2D Poisson operator,
// applies it, and checks one entry by hand. Exit code 0 when the installed package works.
#include <cmath>
#include <cstdio>

#include "common/version.hpp"
#include "problems/generate.hpp"

int main() {
  pscr::problems::ProblemSpec spec;
  spec.dims.resize(2);
  spec.dims[0].n = 3;
  spec.dims[1].n = 3;
  const auto problem = std::get<pscr::Problem<double>>(pscr::problems::generate(spec));
  // Uniform h = 1/4, Dirichlet: A = tridiag(-4, 8, -4), M = diag(1/4); u = 1 at the centre only.
  std::vector<double> u(9, 0.0), y(9);
  u[4] = 1.0;
  problem.op.apply(u.data(), y.data());
  const double expected = 2 * 8 * 0.25;  // (A1⊗M2 + M1⊗A2) at the centre
  std::printf("pscr %s: centre entry %g (expected %g)\n", pscr::version, y[4], expected);
  return std::abs(y[4] - expected) < 1e-12 ? 0 : 1;
}
