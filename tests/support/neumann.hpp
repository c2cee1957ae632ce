#pragma once
/// @file Pure Neumann operators in the tests: the null vector e of their Laplacians is constant
/// (ones), and the solvers return the solution of A u = f̂ with eᵀ M u = 0 (DESIGN.md §1), f̂ the
/// right-hand side projected onto the range of A. Independent of pscr/operator's null space.

#include <cmath>
#include <vector>

#include "pscr/operator.hpp"

namespace pscr::testing {

/// M e for e = ones, M = M1⊗M2[⊗M3] the operator's mass factors.
template <class Scalar>
std::vector<Scalar> mass_of_ones(const SeparableOperator<Scalar>& op) {
  const index_t n = op.grid_size();
  std::vector<Scalar> ones(n, Scalar(1)), me(n);
  std::vector<const SymTridiag<Scalar>*> masses;
  for (const auto& factor : op.factors()) masses.push_back(&factor.M);
  apply_kronecker(masses, ones.data(), me.data());
  return me;
}

/// The consistent right-hand side f̂ = f − (eᵀ f / eᵀ M e) M e, eᵀ f̂ = 0.
template <class Scalar>
std::vector<Scalar> project_neumann(const SeparableOperator<Scalar>& op, const Scalar* f) {
  const auto me = mass_of_ones(op);
  Scalar ef(0), eme(0);
  for (std::size_t k = 0; k < me.size(); ++k) {
    ef += f[k];
    eme += me[k];
  }
  std::vector<Scalar> fh(f, f + me.size());
  for (std::size_t k = 0; k < me.size(); ++k) fh[k] -= ef / eme * me[k];
  return fh;
}

/// |eᵀ M u| / (‖M e‖ ‖u‖): zero for the mean-zero solution, rounding's size otherwise.
template <class Scalar>
double neumann_mean(const SeparableOperator<Scalar>& op, const Scalar* u) {
  const auto me = mass_of_ones(op);
  const auto n = static_cast<index_t>(me.size());
  Scalar s(0);
  for (index_t k = 0; k < n; ++k) s += me[k] * u[k];
  return std::abs(s) / (norm2(me.data(), n) * norm2(u, n));
}

}  // namespace pscr::testing
