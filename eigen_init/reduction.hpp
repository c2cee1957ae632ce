#pragma once
/// @file Internal stages of the block eigensolver (eigen_init/block_pencil.cpp): Crawford's
/// reduction of a tridiagonal pencil to a standard tridiagonal matrix and the implicit QL
/// algorithm, both applying their transformations to a few tracked rows only. Not public API.

#include <vector>

#include "common/scalar.hpp"
#include "pscr/operator.hpp"

namespace pscr::eigen_detail {

/// @brief Crawford's reduction: C = Xᵀ A X symmetric tridiagonal with Xᵀ M X = I, where
/// X = U⁻ᵀ G₁ G₂ ⋯ from the reversed Cholesky factorization M = U Uᵀ (U upper bidiagonal),
/// applied one column at a time from the bottom, and rotations that chase each bulge down to
/// the last row. The rotations act where M is already the identity, so it stays the identity.
/// A diagonal M makes no bulge: X = M^{-1/2}.
///
/// On return `d` (m) and `e` (m; e[k] = C(k, k+1), e[m−1] = 0 is workspace) hold C, and `Z`
/// (rows.size() × m, row-major) holds the rows `rows` of X. Throws SolverError unless M has the
/// factorization (real: M positive definite), or when a complex orthogonal rotation would be
/// ill-conditioned.
template <class Scalar>
void crawford_reduce(const SymTridiag<Scalar>& A, const SymTridiag<Scalar>& M,
                     const std::vector<index_t>& rows, std::vector<Scalar>& d,
                     std::vector<Scalar>& e, std::vector<Scalar>& Z);

/// @brief Implicit QL with Wilkinson shifts on the symmetric tridiagonal (d, e) of size m
/// (e[k] = C(k, k+1), e[m−1] workspace): on return d holds the eigenvalues, unordered, and
/// Z (nz × m, row-major) has been multiplied from the right by the orthogonal (complex:
/// complex orthogonal) eigenvector matrix Q. Throws SolverError when it does not converge.
template <class Scalar>
void implicit_ql(std::vector<Scalar>& d, std::vector<Scalar>& e, std::vector<Scalar>& Z,
                 index_t nz);

}  // namespace pscr::eigen_detail
