#pragma once
/// @file The CPU backend of radix-4 PSCR (DESIGN.md §2, myllykoski2018 §3): a solver object that
/// owns its plan (partitions, eigen-data, work arrays), built once and used for many right-hand
/// sides, for the 2D and 3D separable operators of pscr/operator.hpp, real and complex.
///
/// Layout of f and u: C order, shape (n1, n2[, n3]), the last index fastest (block u_j
/// contiguous); several right-hand sides one grid after another, shape (nrhs, n1, n2[, n3]).
///
/// Parallel with OpenMP over independent blocks, eigenvalues and systems. The work is cut into
/// tasks independently of the thread count and every sum runs in a fixed order, so the result is
/// bitwise the same for any number of threads.
///
/// Singular problems. When c = 0 and every A_d is singular (pure Neumann Poisson), A has the null
/// vector e = z1⊗z2[⊗z3] (A_d z_d = 0; z_d = (1, …, 1) for Neumann Laplacians) and the solver
/// returns the *mean-zero* solution: with M = M1⊗M2[⊗M3] and μ = eᵀ f / eᵀ M e,
///   f̂ = f − μ M e            (f projected onto range(A) = e^⊥ along M e, i.e. the source minus
///                             its mean value: M e is the load vector of the constant μ),
///   u  solves A u = f̂ with eᵀ M u = 0   (u M-orthogonal to the null space: zero mean).
/// For a consistent f (eᵀ f = 0) this is the exact solution of mean zero. Any other singular
/// system (a shift c hitting −(λ1 + λ2 [+ λ3])) is reported as SolverError when a shifted
/// tridiagonal system has a zero pivot or the solution is not finite.

#include <memory>
#include <vector>

#include "common/scalar.hpp"
#include "eigen_init/eigen_data.hpp"
#include "pscr/operator.hpp"

namespace pscr::reference {

/// @brief How the shifted tridiagonal systems (A + s M) x = d are solved.
enum class Pivoting {
  automatic,  ///< Thomas where it is stable, scaled partial pivoting where it may not be
  never,      ///< always Thomas (LU without pivoting)
  always,     ///< always scaled partial pivoting
};

/// @brief Options of the CPU solver.
struct SolverOptions {
  int threads = 0;  ///< OpenMP threads; 0: omp_get_max_threads()
  Pivoting pivoting = Pivoting::automatic;
  /// Iterative refinement: after the PSCR solve, while the relative residual ‖f − A u‖/‖f‖
  /// exceeds `refine_tolerance` and the rounding floor of a residual (~eps·‖A‖‖u‖/‖f‖), at most
  /// `max_refinements` times and while each step at least halves it, u += PSCR(f − A u).
  /// PSCR is not backward stable when a block of the partition is close to resonance (indefinite
  /// Helmholtz: the projected block systems P A P of myllykoski2018 §3.2 are near-singular while
  /// A is not); one step then restores a residual near eps. Each solve computes its residual
  /// (one operator application, ~5% of a 2D solve) unless max_refinements = 0.
  int max_refinements = 2;
  double refine_tolerance = 1e-10;
};

/// @brief What one solve() or solve_many() did.
struct SolveStats {
  double seconds = 0;       ///< wall time
  double flops = 0;         ///< real flops counted (a complex multiply-add counts as 8)
  index_t pivoted = 0;      ///< shifted tridiagonal systems solved with pivoting
  index_t refinements = 0;  ///< refinement steps, summed over right-hand sides
  /// Largest relative residual ‖f − A u‖₂/‖f‖₂ over the right-hand sides (of f̂ in the singular
  /// case), before the final mean-zero projection; NaN when not computed (max_refinements = 0).
  double residual = 0;
  /// The same before refinement: the residual of PSCR alone.
  double initial_residual = 0;
  index_t right_hand_sides = 0;
};

/// @brief The eigen-data a solver for `op` needs, computed by eigen_init: those of dimension 1,
/// then (3D) of dimension 2, each on the radix-4 partition of its factor. Both backends use this
/// order, and so do io::write_eigen_data and io::read_eigen_data (given the same factors).
/// Throws InputError for an operator of dimension other than 2 or 3, SolverError when the
/// eigen-data cannot be computed.
template <class Scalar>
std::vector<EigenData<Scalar>> compute_plan_eigen_data(const SeparableOperator<Scalar>& op);

/// @brief The factors the plan's eigen-data are computed from, in their order (every dimension
/// but the last): the `factors` argument of io::write_eigen_data and io::read_eigen_data.
template <class Scalar>
std::vector<const Factor<Scalar>*> plan_eigen_factors(const SeparableOperator<Scalar>& op);

/// @brief Checks that precomputed eigen-data fit `op` (the order of compute_plan_eigen_data):
/// one entry per dimension but the last, each on the radix-4 partition of its factor's size, with
/// one entry index per block of every level and entries of the blocks' sizes and component rows.
/// Throws InputError naming `who`, the dimension, what was expected and what was found. The
/// values are not checked against the factors (io::read_eigen_data does that by checksum).
template <class Scalar>
void check_plan_eigen_data(const SeparableOperator<Scalar>& op,
                           const std::vector<EigenData<Scalar>>& eigen, const char* who);

/// @brief Radix-4 PSCR on the CPU for a SeparableOperator (2D or 3D), Scalar = double or
/// std::complex<double>.
template <class Scalar>
class Solver {
 public:
  /// @brief Builds the plan: partitions, eigen-data of dimension 1 (and 2 in 3D), work arrays.
  /// Throws InputError for options out of range, SolverError when the eigen-data cannot be
  /// computed (e.g. M1 not positive definite).
  explicit Solver(const SeparableOperator<Scalar>& op, SolverOptions options = {});
  /// @brief Builds the plan from precomputed eigen-data (compute_plan_eigen_data's order, e.g.
  /// from io::read_eigen_data or another solver's eigen_data()), so that nothing is recomputed.
  /// The solutions are bitwise those of the constructor that computes them. Throws InputError
  /// when the eigen-data do not fit op (check_plan_eigen_data) or for options out of range.
  /// (`options` has no default, so that `Solver(op, {})` stays the constructor above.)
  Solver(const SeparableOperator<Scalar>& op, std::vector<EigenData<Scalar>> eigen_data,
         SolverOptions options);
  ~Solver();
  Solver(Solver&&) noexcept;
  Solver& operator=(Solver&&) noexcept;
  Solver(const Solver&) = delete;
  Solver& operator=(const Solver&) = delete;

  /// @brief u = A⁻¹ f for one grid (see the file comment for the singular case). f and u hold
  /// op.grid_size() values each; u may alias f. Throws SolverError when a shifted system is
  /// singular or the result is not finite.
  void solve(const Scalar* f, Scalar* u);

  /// @brief solve() for nrhs grids stored one after another.
  void solve_many(index_t nrhs, const Scalar* f, Scalar* u);

  /// @brief Seconds spent building the plan (eigen-data included when computed).
  double init_seconds() const;
  /// @brief The eigen-data of the plan, dimension 1 first, then 2 in 3D (the order of
  /// io::write_eigen_data), to save them for later solvers.
  const std::vector<EigenData<Scalar>>& eigen_data() const;
  /// @brief Statistics of the last solve() or solve_many().
  const SolveStats& last_solve() const;
  /// @brief True when the operator is singular and solve() returns the mean-zero solution.
  bool singular() const;
  /// @brief Number of threads the solver runs on.
  int threads() const;
  /// @brief The instruction set of the hot loops chosen for this CPU: "avx2+fma" or "baseline".
  const char* kernels() const;
  const SeparableOperator<Scalar>& op() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace pscr::reference
