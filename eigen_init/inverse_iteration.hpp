#pragma once
/// @file Internal: eigenvectors of a complex symmetric tridiagonal pencil by inverse iteration on
/// the pencil itself (LU with partial pivoting, so every vector is backward stable), bilinear
/// Gram–Schmidt inside clusters of close eigenvalues, and the normalization wᵀ M w = 1. Not
/// public API.

#include <complex>
#include <vector>

#include "common/scalar.hpp"
#include "pscr/operator.hpp"

namespace pscr::eigen_detail {

/// @brief Refines the approximate eigenvalues `lambda` (m, ascending by real part, then
/// imaginary part) of the pencil (A, M) and returns the components of the eigenvectors at
/// `rows`: W (rows.size() × m, row-major), Wᵀ M W = I (plain transpose).
///
/// Each eigenvalue becomes the Rayleigh quotient wᵀAw / wᵀMw of its vector, and `lambda` is
/// sorted again. Neighbouring eigenvalues (in that order) whose distance is below
/// 1e-2·‖M⁻¹A‖ form clusters, as far as a budget of O(m²) Gram–Schmidt work allows (closest
/// pairs first); vectors of a cluster are made bilinear-orthogonal to each other while they
/// iterate. Throws SolverError when inverse iteration does not converge (backward error above
/// 1e-12) or an eigenvector is nearly isotropic (|wᵀMw| < 1e-8·‖M‖‖w‖²: a near-defective
/// pencil). OpenMP threads over clusters when called outside a parallel region.
void inverse_iteration(const SymTridiag<std::complex<double>>& A,
                       const SymTridiag<std::complex<double>>& M,
                       std::vector<std::complex<double>>& lambda, const std::vector<index_t>& rows,
                       std::vector<std::complex<double>>& W);

}  // namespace pscr::eigen_detail
