#pragma once
/// @file The dense fast-diagonalization (FD) method of the GPU solver, CPU side: the setup (full
/// generalized eigenvectors of the transformed dimensions) and a plain C++ solve of the same
/// algorithm that the GPU version (pscr/cuda/fd_solver.hpp) is checked against; bench/peers times
/// it as a peer.
///
/// The method, for the operator of pscr/operator.hpp (DESIGN.md §1). With A1 W = M1 W Λ and
/// Wᵀ M1 W = I (plain transpose, also when complex) we have M1 W = W⁻ᵀ, so
/// A1 = M1 W Λ Wᵀ M1 and M1 = M1 W Wᵀ M1. Writing the 2D system in matrix form (U and F of shape
/// n1 × n2, C order, factors symmetric),
///     (A1 + c M1) U M2 + M1 U A2 = F,
/// and substituting U = W Y, then multiplying by Wᵀ from the left, gives
///     (Λ + c I) Y M2 + Y A2 = Wᵀ F,
/// so row l of Y solves [A2 + (λ_l + c) M2] y_l = (Wᵀ F)_l (M2, A2 symmetric). Hence
///     G = Wᵀ F,   y_l = [A2 + (λ_l + c) M2]⁻¹ g_l,   U = W Y:
/// the forward transform is Wᵀ applied to f itself (no M1), the inverse is W. In 3D, with
/// A2 V = M2 V M (eigenvalues μ_m, Vᵀ M2 V = I) too,
///     G = (Wᵀ ⊗ Vᵀ ⊗ I) F,   [A3 + (λ_l + μ_m + c) M3] y_lm = g_lm,   U = (W ⊗ V ⊗ I) Y.

#include <string>
#include <vector>

#include "common/scalar.hpp"
#include "pscr/operator.hpp"

namespace pscr::fd {

/// @brief All generalized eigenpairs of one dimension's pencil: A w_l = λ_l M w_l, Wᵀ M W = I.
template <class Scalar>
struct FullEigen {
  std::vector<Scalar> lambda;  ///< the n eigenvalues
  /// n × n, row-major: W[i·n + l] = w_l(i), component i of eigenvector l.
  std::vector<Scalar> W;
  /// How they were computed: "dstemr" (real, diagonal M: MRRR on M^{-1/2} A M^{-1/2}, O(n²)),
  /// "dsygvd" (real, tridiagonal M) or "zggev" (complex), the last two on the assembled pencil,
  /// O(n³).
  std::string method;

  index_t size() const { return static_cast<index_t>(lambda.size()); }
};

/// @brief The eigenpairs of (factor.A, factor.M), with LAPACK only (independent of eigen_init,
/// whose solver PSCR uses). Real with a diagonal M: dstemr on the scaled symmetric tridiagonal
/// matrix M^{-1/2} A M^{-1/2}, then W = M^{-1/2} Z. Real with a tridiagonal M: dsygvd. Complex
/// symmetric: zggev, then bilinear Gram–Schmidt and wᵀ M w = 1. Eigenvalues ascending (real) or
/// by real, then imaginary part (complex). Throws SolverError when M is not positive definite
/// (real) or singular, the pencil is near-defective (complex), or LAPACK fails.
template <class Scalar>
FullEigen<Scalar> full_eigen(const Factor<Scalar>& factor);

/// @brief Everything the FD solve needs, computed once from the operator (not timed).
template <class Scalar>
struct FdSetup {
  std::vector<index_t> shape;          ///< (n1, n2[, n3])
  std::vector<FullEigen<Scalar>> eig;  ///< dimensions 1..d−1 (one in 2D, two in 3D)
  Factor<Scalar> last;                 ///< A and M of the last dimension (the tridiagonal solves)
  /// One shift per tridiagonal system. 2D: shifts[l] = λ_l + c (n1 systems); 3D:
  /// shifts[l·n2 + m] = λ_l + μ_m + c (n1·n2 systems).
  std::vector<Scalar> shifts;

  int dimension() const { return static_cast<int>(shape.size()); }
  index_t grid_size() const;
  index_t systems() const { return static_cast<index_t>(shifts.size()); }
};

/// @brief Eigen-decompositions of dimensions 1..d−1 of `op` and the shifts.
template <class Scalar>
FdSetup<Scalar> fd_setup(const SeparableOperator<Scalar>& op);

/// @brief Whether full_eigen uses a dense O(n³) eigensolver for `factor` (complex, or real with
/// a non-diagonal M), rather than dstemr (O(n²)).
template <class Scalar>
bool uses_dense_eigensolver(const Factor<Scalar>& factor);

/// @brief The tolerance of certify(), in the units of Certificate.
inline constexpr double kCertifyTolerance = 1e-12;

/// @brief What certify() measured, over the transformed dimensions.
struct Certificate {
  /// max over entries of |Wᵀ M W − I| (plain transpose): the inverse transform is Wᵀ M.
  double orthogonality = 0;
  /// max over eigenpairs of ‖A w − λ M w‖∞ / ((‖A‖∞ + |λ| ‖M‖∞) ‖w‖∞).
  double backward_error = 0;
  /// Shifted systems [A_last + σ M_last] whose LU factorization without pivoting (the Thomas
  /// solve) may be unstable: a zero or non-finite pivot, or a fill |e²/β| above kGrowthLimit
  /// times the row's |d| + |e_{k−1}| + |e_k| (the CPU backend's monitor, lane_thomas.hpp).
  /// Not checked (0) where every system is diagonally dominant: real A_last and M_last
  /// diagonally dominant with non-negative diagonals and every shift σ ≥ 0.
  index_t unstable_systems = 0;
  /// Both measures at most kCertifyTolerance (false when either is NaN) and no unstable system.
  bool passed = false;
};

/// @brief The growth limit of Certificate::unstable_systems (the CPU backend's kGrowthLimit).
inline constexpr double kGrowthLimit = 100.0;

/// @brief Checks the eigen-decompositions of `setup` against the factors of `op` (the operator
/// it was built from): O(n³) per transformed dimension (Wᵀ (M W), upper triangle). With both
/// measures below kCertifyTolerance, W is an M-orthonormal basis of accurate eigenvectors, so the
/// transforms Wᵀ and W are inverse to each other to that accuracy (what FD assumes). It also
/// checks every shifted tridiagonal system for the stability of the Thomas solve without pivoting
/// (thomas.hpp), O(grid size), skipped where all systems are diagonally dominant.
template <class Scalar>
Certificate certify(const FdSetup<Scalar>& setup, const SeparableOperator<Scalar>& op);

/// @brief u = A⁻¹ f by fast diagonalization, plain loops (O(N·(n1 + n2)) arithmetic): the CPU
/// reference of the GPU solve. f and u: one grid each, C order with shape setup.shape; may not
/// alias.
template <class Scalar>
void fd_solve(const FdSetup<Scalar>& setup, const Scalar* f, Scalar* u);

}  // namespace pscr::fd
