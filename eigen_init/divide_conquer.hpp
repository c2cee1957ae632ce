#pragma once
/// @file Internal: divide and conquer for the real symmetric tridiagonal eigenproblem that
/// tracks a few linear functionals of the eigenvectors instead of the whole eigenvector matrix.
/// Not public API.

#include <vector>

#include "common/scalar.hpp"

namespace pscr::eigen_detail {

/// @brief Eigen-decomposition C = Q Λ Qᵀ of the real symmetric tridiagonal C of size m
/// (`d`: diagonal, `e`: m entries, e[k] = C(k, k+1), e[m−1] ignored), returning F·Q only.
///
/// On return `d` holds the eigenvalues in ascending order and `F` (nf × m, row-major: nf linear
/// functionals of length m on entry) holds F·Q, column l for eigenvalue l. Cuppen's tearing,
/// Gu and Eisenstat's recomputed secular vector (so Q is orthogonal to working accuracy however
/// close the eigenvalues are) and the deflation of LAPACK's dlaed2; secular roots by the
/// "middle way" iteration of LAPACK's dlaed4.
/// Each merge costs O(m·(nf + iterations)) per eigenvalue, O(m²) in all; the two children of a
/// large node are parallel OpenMP tasks (tasks.hpp) when called inside a parallel region.
/// Throws SolverError when a secular equation is not solved.
void divide_conquer(std::vector<double>& d, const std::vector<double>& e, std::vector<double>& F,
                    index_t nf);

}  // namespace pscr::eigen_detail
