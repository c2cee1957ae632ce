// Radix-4 PSCR on the CPU against the SparseLU oracle on small problems.
#include <gtest/gtest.h>

#include "problems/generate.hpp"
#include "pscr/reference/solver.hpp"
#include "tests/support/oracle.hpp"
#include "tests/support/random.hpp"
#include "tests/support/tolerance.hpp"
#include "tests/support/typed.hpp"

namespace pscr {
namespace {

TEST(SolverSmoke, Poisson2d) {
  for (index_t n1 : {1, 2, 3, 4, 5, 15, 16, 17, 63, 64, 65}) {
    for (index_t n2 : {1, 3, 17}) {
      problems::ProblemSpec spec;
      spec.dims = {{n1}, {n2}};
      auto any = problems::generate(spec);
      auto& p = std::get<Problem<double>>(any);
      reference::Solver<double> solver(p.op);
      std::vector<double> u(p.f.size());
      solver.solve(p.f.data(), u.data());
      auto ref = testing::sparse_lu_solve(p.op, p.f.data());
      double err = 0, nrm = 0;
      for (size_t k = 0; k < u.size(); ++k) {
        err = std::max(err, std::abs(u[k] - ref[k]));
        nrm = std::max(nrm, std::abs(ref[k]));
      }
      EXPECT_LE(err / nrm, 1e-12) << n1 << " " << n2;
      EXPECT_LE(p.op.relative_residual(u.data(), p.f.data()), 1e-12) << n1 << " " << n2;
    }
  }
}

template <class Scalar>
void check(const problems::ProblemSpec& spec, double tol) {
  auto any = problems::generate(spec);
  auto& p = std::get<Problem<Scalar>>(any);
  reference::Solver<Scalar> solver(p.op);
  std::vector<Scalar> u(p.f.size());
  solver.solve(p.f.data(), u.data());
  auto ref = testing::sparse_lu_solve(p.op, p.f.data());
  double err = 0, nrm = 0;
  for (size_t k = 0; k < u.size(); ++k) {
    err = std::max(err, (double)std::abs(u[k] - ref[k]));
    nrm = std::max(nrm, (double)std::abs(ref[k]));
  }
  EXPECT_LE(err / nrm, tol);
  EXPECT_LE(p.op.relative_residual(u.data(), p.f.data()), tol);
}

TEST(SolverSmoke, Poisson3d) {
  for (index_t n1 : {1, 2, 5, 17})
    for (index_t n2 : {1, 4, 15})
      for (index_t n3 : {1, 3, 16}) {
        problems::ProblemSpec spec;
        spec.dims = {{n1}, {n2}, {n3}};
        SCOPED_TRACE(std::to_string(n1) + " " + std::to_string(n2) + " " + std::to_string(n3));
        check<double>(spec, 1e-12);
      }
}

TEST(SolverSmoke, Helmholtz) {
  using B = problems::Boundary;
  for (index_t n1 : {2, 5, 17, 64})
    for (index_t n2 : {2, 4, 15, 33}) {
      problems::ProblemSpec spec;
      spec.equation = problems::Equation::helmholtz;
      spec.omega = 20;
      spec.dims = {{n1, {}, B::absorbing, B::absorbing}, {n2, {}, B::absorbing, B::absorbing}};
      SCOPED_TRACE(std::to_string(n1) + " " + std::to_string(n2));
      check<std::complex<double>>(spec, 1e-10);
      spec.dims.push_back({7, {}, B::absorbing, B::absorbing});
      check<std::complex<double>>(spec, 1e-10);
    }
}

TEST(SolverSmoke, Neumann) {
  using B = problems::Boundary;
  for (index_t n1 : {2, 5, 17, 64})
    for (index_t n2 : {2, 4, 15, 33}) {
      problems::ProblemSpec spec;
      spec.dims = {{n1, {}, B::neumann, B::neumann}, {n2, {}, B::neumann, B::neumann}};
      SCOPED_TRACE(std::to_string(n1) + " " + std::to_string(n2));
      auto any = problems::generate(spec);
      auto& p = std::get<Problem<double>>(any);
      reference::Solver<double> solver(p.op);
      EXPECT_TRUE(solver.singular());
      std::vector<double> u(p.f.size());
      solver.solve(p.f.data(), u.data());
      // f̂ = f − μ M e with e = ones.
      std::vector<double> ones(p.f.size(), 1.0), me(p.f.size());
      p.op.factor(0);
      std::vector<const SymTridiag<double>*> ms = {&p.op.factor(0).M, &p.op.factor(1).M};
      apply_kronecker(ms, ones.data(), me.data());
      double ef = 0, eme = 0, emu = 0;
      for (size_t k = 0; k < u.size(); ++k) {
        ef += p.f[k];
        eme += me[k];
        emu += me[k] * u[k];
      }
      std::vector<double> fh(p.f);
      for (size_t k = 0; k < u.size(); ++k) fh[k] -= ef / eme * me[k];
      std::printf("%ld %ld resid %g mean %g\n", (long)n1, (long)n2,
                  p.op.relative_residual(u.data(), fh.data()), emu);
    }
}

}  // namespace
}  // namespace pscr
