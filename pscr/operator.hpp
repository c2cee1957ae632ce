#pragma once
/// @file The separable operator of DESIGN.md §1,
///   2D: A = A1⊗M2 + M1⊗A2 + c·M1⊗M2,
///   3D: A = A1⊗M2⊗M3 + M1⊗A2⊗M3 + M1⊗M2⊗A3 + c·M1⊗M2⊗M3,
/// with symmetric tridiagonal factors, applied through its Kronecker structure in O(N).
///
/// Layout of every grid array: C order, shape (n1, n2[, n3]), the last index fastest, so block
/// u_j (all entries with first index j) is contiguous. Several right-hand sides are stored one
/// grid after another: shape (nrhs, n1, n2[, n3]).

#include <array>
#include <optional>
#include <vector>

#include "common/scalar.hpp"

namespace pscr {

/// @brief A symmetric tridiagonal matrix (plain symmetric: Tᵀ = T, also when complex).
/// `diag` has n entries, `off` has n−1: off[k] = T(k, k+1) = T(k+1, k).
template <class Scalar>
struct SymTridiag {
  std::vector<Scalar> diag;
  std::vector<Scalar> off;

  index_t size() const { return static_cast<index_t>(diag.size()); }
  /// Entry (r, s), zero outside the three diagonals.
  Scalar operator()(index_t r, index_t s) const;
  /// The principal submatrix of rows/columns [first, last] (inclusive).
  SymTridiag submatrix(index_t first, index_t last) const;
  /// ‖T‖∞, the largest absolute row sum.
  double infinity_norm() const;
  /// y = T x, or y += T x where `accumulate`; x and y hold size() entries and do not overlap.
  void apply(const Scalar* x, Scalar* y, bool accumulate = false) const {
    const index_t n = size();
    for (index_t k = 0; k < n; ++k) {
      Scalar v = diag[k] * x[k];
      if (k > 0) v += off[k - 1] * x[k - 1];
      if (k + 1 < n) v += off[k] * x[k + 1];
      y[k] = accumulate ? y[k] + v : v;
    }
  }
  /// Throws InputError unless off.size() == diag.size() − 1 ≥ 0 and every entry is finite;
  /// `what` names the matrix in the message.
  void validate(const char* what) const;
};

/// @brief The two tridiagonal factors of one dimension: stiffness-like A and mass-like M.
template <class Scalar>
struct Factor {
  SymTridiag<Scalar> A;
  SymTridiag<Scalar> M;
  index_t size() const { return A.size(); }
};

/// @brief The separable operator: factors of dimensions 1..d (d = 2 or 3) and the shift c.
template <class Scalar>
class SeparableOperator {
 public:
  /// Validates sizes and entries: throws InputError naming the factor and what was found.
  SeparableOperator(std::vector<Factor<Scalar>> factors, Scalar c);

  int dimension() const { return static_cast<int>(factors_.size()); }
  const Factor<Scalar>& factor(int d) const { return factors_[d]; }  ///< d = 0-based dimension
  const std::vector<Factor<Scalar>>& factors() const { return factors_; }
  Scalar c() const { return c_; }
  /// Grid sizes (n1, n2[, n3]).
  std::vector<index_t> shape() const;
  /// Number of unknowns n1·n2[·n3].
  index_t grid_size() const;

  /// @brief Bound of ‖A‖∞ through the Kronecker structure:
  /// Σ_s ‖A_s‖∞ Π_{d≠s} ‖M_d‖∞ + |c| Π_d ‖M_d‖∞ (scales the rounding floor of a residual).
  double infinity_norm_bound() const;

  /// @brief y = A u for one grid (C order, shape()). O(N), OpenMP-parallel.
  void apply(const Scalar* u, Scalar* y) const;

  /// @brief ‖A u − f‖₂ / ‖f‖₂ for one grid; ‖A u‖₂ when f = 0.
  real_t<Scalar> relative_residual(const Scalar* u, const Scalar* f) const;

  /// @brief The relative residual that rounding alone leaves, kResidualFloor·eps·‖A‖∞‖u‖₂/‖f‖₂
  /// (‖f‖₂ taken as 1 when zero), given ‖u‖₂ and ‖f‖₂: computing A u commits about
  /// eps·‖A‖‖u‖, so a backward-stable solve's relative residual is of this order: it grows with
  /// ‖A‖‖u‖/‖f‖ (with the grid and the mesh), not a constant. Refinement stops below it.
  double residual_rounding_floor(double norm_u, double norm_f) const;
  static constexpr double kResidualFloor = 32.0;

 private:
  std::vector<Factor<Scalar>> factors_;
  Scalar c_;
};

/// @brief The null vector of a singular symmetric tridiagonal A (pure Neumann factors): z_0 = 1
/// and rows 0..n−2 of A z = 0 give z_1..z_{n−1} (three-term recurrence, needs non-zero
/// off-diagonals); A is singular when its last row then holds to rounding. Returns false (z
/// meaningless) otherwise; on success z has max-norm 1.
template <class Scalar>
bool null_vector(const SymTridiag<Scalar>& A, std::vector<Scalar>& z);

/// @brief The null space of a pure Neumann operator (c = 0, every A_d singular), factor by
/// factor: its null vector z = z_1⊗…⊗z_d, M z = M_1 z_1⊗…⊗M_d z_d and zᵀ M z (plain transposes).
/// The solvers project f onto range(A) with it and return the u with zᵀ M u = 0.
template <class Scalar>
struct KroneckerNullSpace {
  std::vector<std::vector<Scalar>> z;   ///< z_d, per dimension (null_vector)
  std::vector<std::vector<Scalar>> mz;  ///< M_d z_d
  Scalar z_m_z = Scalar(1);             ///< zᵀ M z = Π_d z_dᵀ M_d z_d
};

/// @brief op's null space when c = 0 and null_vector finds one for every A_d, else none (the
/// solvers also check their plan's eigenvalues before they treat op as singular).
template <class Scalar>
std::optional<KroneckerNullSpace<Scalar>> kronecker_null_space(const SeparableOperator<Scalar>& op);

/// @brief xᵀ (a_1⊗a_2[⊗a_3]) for a grid x of `shape` (plain transpose).
template <class Scalar>
Scalar kron_dot(const std::vector<index_t>& shape, const std::vector<std::vector<Scalar>>& a,
                const Scalar* x);

/// @brief x −= μ (a_1⊗a_2[⊗a_3]) for a grid x of `shape`.
template <class Scalar>
void kron_axpy(const std::vector<index_t>& shape, Scalar mu,
               const std::vector<std::vector<Scalar>>& a, Scalar* x);

/// @brief Euclidean norm of n entries.
template <class Scalar>
real_t<Scalar> norm2(const Scalar* x, index_t n);

/// @brief y = (T_1 ⊗ T_2 ⊗ … ⊗ T_d) x for a grid of shape (T_1.size(), …, T_d.size()),
/// one tridiagonal factor per dimension (nullptr = identity in that dimension). O(N·d).
template <class Scalar>
void apply_kronecker(const std::vector<const SymTridiag<Scalar>*>& factors, const Scalar* x,
                     Scalar* y);

}  // namespace pscr
