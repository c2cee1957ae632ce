#pragma once
/// @file Initialization of the partial solution (DESIGN.md §2, myllykoski2018 §3.3–3.4, §4.2):
/// the generalized eigenproblems (A)_B w = λ (M)_B w of every block B of every level, CPU only.

#include <vector>

#include "eigen_init/eigen_data.hpp"
#include "pscr/operator.hpp"
#include "pscr/partition.hpp"

namespace pscr {

/// @brief Eigenvalues and selected eigenvector components of one tridiagonal pencil (A, M).
///
/// Real: A symmetric, M symmetric positive definite. Complex: A and M complex symmetric
/// (Aᵀ = A, no conjugation) and the pencil diagonalizable. Returns all m eigenvalues and, for each
/// row in `rows` (0-based, ascending, in [0, m)), the components of every eigenvector:
/// W is rows.size() × m, row-major, W[k·m + l] = w_l(rows[k]), with Wᵀ M W = I for the full
/// vectors (plain transpose). Eigenvalues are ascending (real) or ordered by real part, then
/// imaginary part (complex). The sign of each vector is fixed by the algorithm, deterministically
/// and independently of `rows`, so asking for more rows returns the same components.
///
/// O(m²) work and O(rows.size()·m) memory. Real pencils: Crawford's reduction and divide and
/// conquer, applied to the asked-for rows only (M-orthonormal to working accuracy however close
/// the eigenvalues are). Complex pencils that are real but for the diagonal entries of their
/// first and last rows (Helmholtz with absorbing ends): through the real part, a rank ≤ 2
/// secular equation with measured reorthogonalization and an a-posteriori backward-error check
/// (boundary_secular.hpp); where that refuses, and for other complex pencils: Crawford's
/// reduction and implicit QL for the
/// eigenvalues, inverse iteration on the pencil for the vectors, Gram–Schmidt in clusters of
/// close eigenvalues (whole blocks up to 256 rows; for larger blocks the O(m²) budget can leave
/// pairs at a distance δ with |w_iᵀ M w_j| ≈ eps·‖M⁻¹A‖/δ). A complex pencil with only real
/// entries is solved as a real one; a persymmetric pencil (uniform mesh, m ≥ 64) as two halves
/// (its symmetric and antisymmetric eigenvectors).
///
/// Throws InputError for mismatched sizes or rows out of range, SolverError when the method
/// fails (M not positive definite, no convergence, a near-defective complex pencil).
template <class Scalar>
BlockEigen<Scalar> solve_block_pencil(const SymTridiag<Scalar>& A, const SymTridiag<Scalar>& M,
                                      const std::vector<index_t>& rows);

/// @brief The eigen-data of one dimension: for every block B of every level of `partition`,
/// solve_block_pencil((A)_B, (M)_B, component_rows − B.first). Identical blocks (same size, same
/// entries of A and M, same relative component rows) are solved once and share one entry.
///
/// Throws InputError unless factor.size() == partition.size(); SolverError as above.
template <class Scalar>
EigenData<Scalar> compute_eigen_data(const Factor<Scalar>& factor, const Partition& partition);

}  // namespace pscr
