#pragma once
/// @file Internal: the complex symmetric pencils PSCR meets (Helmholtz with absorbing ends,
/// myllykoski2018 eq. 35) are real except the diagonal entries of their first and last rows, a
/// rank ≤ 2 correction of a real symmetric-definite pencil; their eigenpairs follow from the real
/// ones by a 2×2 secular equation (eigen_init/boundary_secular.cpp). Not public API.

#include <complex>
#include <vector>

#include "eigen_init/eigen_data.hpp"
#include "pscr/operator.hpp"

namespace pscr::eigen_detail {

/// @brief Whether (A, M) has the boundary form: every off-diagonal entry and every diagonal
/// entry of rows 1 … m−2 real, and some diagonal entry of row 0 or m−1 not real.
bool has_boundary_form(const SymTridiag<std::complex<double>>& A,
                       const SymTridiag<std::complex<double>>& M);

/// @brief Eigen-decomposition of a pencil of the boundary form through its real part.
///
/// (A, M) = (A0, M0) + P (ΔA, ΔM) Pᵀ, P = [e_0, e_{m−1}], ΔA and ΔM diagonal and imaginary, A0
/// and M0 real with M0 positive definite. With A0 V = M0 V Λ0, Vᵀ M0 V = I (real divide and
/// conquer, rows {0, m−1} ∪ `rows` of V) and Z = Pᵀ V, the eigenvalues are the roots of
/// det(I + G(λ) D(λ)), G(λ) = Z (Λ0 − λ)⁻¹ Zᵀ, D(λ) = ΔA − λ ΔM. Root k is found by Newton's
/// method from its pole λ0_k on φ_k(λ) = (λ0_k − λ) det(I + G D), written as
/// −τ det B + z_kᵀ D adj(B) z_k with λ = λ0_k + τ, B = I + G_k D and G_k = G without pole k, so
/// no pole is near the iterate and τ is kept exact relative to the pole (as dlaed4 does). The
/// eigenvector is w = V a: u = adj(B) z_k, a_k = det B, a_j = −z_jᵀ D u / (λ0_j − λ), and
/// wᵀ M w = Σ a_j² + uᵀ ΔM u. Poles with a negligible ‖D z_j‖ are eigenpairs as they are.
///
/// O(m²) work. Returns false, leaving `out` unspecified, when the method does not apply or does
/// not succeed: M0 not positive definite, Newton's and Aberth's methods not converging, a
/// non-finite result, a root found twice, a nearly isotropic eigenvector (|wᵀMw| < 1e-8 Σ|a_j|²),
/// or an eigenpair whose backward error is not bounded by 1e-13. The vectors of close roots can
/// mix (by about eps·κ_a·κ_b·max|λ| / |λ_a − λ_b|, κ the eigenvalue condition numbers, large
/// near an exceptional point): each vector is made bilinear-orthogonal (Gram–Schmidt in the
/// bilinear M-product, twice) to those of the 4 roots before it in the output order wherever
/// their product exceeds 1e-14. On success `out` follows the contract of solve_block_pencil.
bool solve_boundary_pencil(const SymTridiag<std::complex<double>>& A,
                           const SymTridiag<std::complex<double>>& M,
                           const std::vector<index_t>& rows, BlockEigen<std::complex<double>>& out);

}  // namespace pscr::eigen_detail
