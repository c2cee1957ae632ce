#pragma once
/// @file The independent oracle of DESIGN.md §5, for tests only: the operator assembled as an
/// Eigen sparse matrix (entry by entry from the Kronecker definition, sharing no code with
/// SeparableOperator::apply) and solved by SparseLU.

#include <Eigen/SparseCore>
#include <vector>

#include "pscr/operator.hpp"

namespace pscr::testing {

/// @brief A as an N×N sparse matrix, rows and columns in the C order of the grid.
template <class Scalar>
Eigen::SparseMatrix<Scalar> assemble(const SeparableOperator<Scalar>& op);

/// @brief u = A⁻¹ f by SparseLU on the assembled matrix; throws SolverError if it is singular.
template <class Scalar>
std::vector<Scalar> sparse_lu_solve(const SeparableOperator<Scalar>& op, const Scalar* f);

}  // namespace pscr::testing
