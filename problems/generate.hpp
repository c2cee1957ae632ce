#pragma once
/// @file Generators of the test problems of myllykoski2018 §5.1 and their variants:
/// Poisson (piecewise-linear FE, lumped mass, eq. 31) with an optional screening term c ≥ 0, and
/// Helmholtz (bilinear/trilinear FE, consistent mass, second-order absorbing boundary condition,
/// eqs. 33–35, c = −ω²), on uniform, graded or randomly perturbed meshes, any boundary condition
/// per side. Everything is reproducible from the seed.

#include <complex>
#include <cstdint>
#include <string>
#include <vector>

#include "problems/problem.hpp"

namespace pscr::problems {

enum class Equation { poisson, helmholtz };
/// Dirichlet: the boundary node is not an unknown. Neumann: natural condition, the boundary node
/// is an unknown. Absorbing: the second-order ABC of eq. (35), Helmholtz only.
enum class Boundary { dirichlet, neumann, absorbing };
enum class MeshKind { uniform, graded, random };
enum class RhsKind { random, manufactured };

/// @brief The mesh of one dimension.
struct MeshSpec {
  MeshKind kind = MeshKind::uniform;
  double length = 1.0;        ///< length of the interval
  double ratio = 10.0;        ///< graded: largest step / smallest step (geometric stretching)
  double perturbation = 0.3;  ///< random: steps h·(1 + p·U(−1, 1)), 0 ≤ p < 1, then rescaled
};

/// @brief One dimension: the number of unknowns, its mesh and its two boundary conditions.
struct DimensionSpec {
  index_t n = 1;
  MeshSpec mesh;
  Boundary left = Boundary::dirichlet;
  Boundary right = Boundary::dirichlet;
};

/// @brief Everything that determines a generated problem.
struct ProblemSpec {
  Equation equation = Equation::poisson;
  std::vector<DimensionSpec> dims;  ///< 2 or 3
  double omega = 10.0;              ///< Helmholtz wave number (c = −ω²)
  double screening = 0.0;           ///< Poisson: c ≥ 0 (−Δu + c u = f)
  RhsKind rhs = RhsKind::random;
  index_t nrhs = 1;
  bool batched = false;  ///< store f as (nrhs, n1, n2[, n3]) even for nrhs = 1
  std::uint64_t seed = 1;
};

/// @brief Mesh steps of one dimension: n − 1 + (number of Dirichlet sides) steps, summing to the
/// length. Throws InputError for impossible specs (e.g. n = 1 with no Dirichlet side).
///
/// Step k joins mesh nodes k and k + 1, nodes numbered from the left end. A Dirichlet end node is
/// not an unknown, so unknown i is node i + 1 when the left side is Dirichlet, node i otherwise.
/// - uniform: every step is length / (number of steps), exactly.
/// - graded: h_k = h_0 · ratio^(k / (m − 1)) for m steps, growing from left to right, so that the
///   largest step is `ratio` times the smallest; rescaled to the length.
/// - random: h_k = h · (1 + p · U(−1, 1)) with h = length / m and U from std::mt19937_64(seed),
///   then rescaled to the length. Uniform and graded meshes ignore the seed.
std::vector<double> mesh_steps(const DimensionSpec& dim, std::uint64_t seed);

/// @brief The factors (A_d, M_d) of one dimension from its steps (see mesh_steps for how steps
/// and unknowns are numbered), Poisson: piecewise-linear elements with lumped mass, eq. (31),
/// myllykoski2018. An unknown between steps h_{l−1} and h_l has A diagonal
/// (h_{l−1} + h_l)/(h_{l−1} h_l) and M diagonal (h_{l−1} + h_l)/2; off-diagonals are A: −1/h,
/// M: 0. A Neumann end node has one adjacent step h: A diagonal 1/h, M diagonal h/2. Throws
/// InputError for an absorbing side, a non-positive step, or steps that leave no unknown.
Factor<double> poisson_factor(const std::vector<double>& steps, Boundary left, Boundary right);

/// @brief The factors (A_d, M_d) of one dimension, Helmholtz: bilinear/trilinear elements with
/// consistent mass and the second-order absorbing boundary condition, eqs. (33)–(35),
/// myllykoski2018 (use with c = −ω²). Interior: A diagonal (h_{l−1} + h_l)/(h_{l−1} h_l),
/// M diagonal (h_{l−1} + h_l)/3; off-diagonals A: −1/h, M: h/6. Neumann end: A 1/h, M h/3.
/// Absorbing end: A 1/h − iω/2, M h/3 + i/(2ω). Dirichlet end: the node is removed. Complex
/// symmetric; the imaginary parts are zero unless a side is absorbing. Throws InputError for
/// ω ≤ 0, a non-positive step, or steps that leave no unknown.
Factor<std::complex<double>> helmholtz_factor(const std::vector<double>& steps, Boundary left,
                                              Boundary right, double omega);

/// @brief The indefinite tridiagonal systems of a 2D Helmholtz solve along one dimension: A + s M
/// of helmholtz_factor (random mesh of n unknowns from `seed`, absorbing ends, ω = 2π(n + 1)/10 as
/// in pscr_gpu_bench), with real shifts s evenly across the pencil's spectrum (shift(): the
/// systems on which solvers without pivoting lose accuracy, the GPU tridiagonal tests) or with
/// the shifts PSCR's top level forms (eigen_shifts(): the systems tridiag_bench --systems
/// helmholtz times guarded solvers on, which do extra work where they find growth).
class HelmholtzPencil {
 public:
  HelmholtzPencil(index_t n, std::uint64_t seed);
  /// Shift j of `count`: λ_max (j + 1/2) / count − ω², λ_max an upper bound of the spectrum of
  /// M⁻¹A (Gershgorin-like: 4 max |A_ii / M_ii|). About a twentieth of them lie below ω² − λ_min,
  /// where the systems are indefinite.
  std::complex<double> shift(index_t j, index_t count) const;
  /// `count` shifts as PSCR's top level forms them in a 2D solve with this pencil along one
  /// dimension and another of the same kind along the other (m unknowns, its random mesh from
  /// `seed`, the same ω and absorbing ends): λ_j − ω², λ_j the other pencil's generalized
  /// eigenvalues (solve_block_pencil) in ascending real part, repeated in that order up to
  /// `count`. About a fifth of them lie below ω² (at m = n = 4095: 806), four times as many
  /// indefinite systems as shift()'s; a guarded solver's guard flagged on eleven times as many
  /// (docs/tridiag-performance.md, section on the cluster kernel for complex systems).
  std::vector<std::complex<double>> eigen_shifts(index_t count, index_t m,
                                                 std::uint64_t seed) const;
  Factor<std::complex<double>> factor;

 private:
  double omega_ = 0, lambda_max_ = 0;
};

/// @brief A seed for one independent random stream of a problem, mixed (splitmix64) from the
/// problem's seed and the stream number. generate() uses stream 0 for the right-hand sides (or
/// the manufactured solutions) and stream 1 + d for the random mesh of dimension d (0-based).
std::uint64_t stream_seed(std::uint64_t seed, std::uint64_t stream);

/// @brief Builds the problem; real unless it has an absorbing side. Throws InputError on a bad
/// spec (what was expected, what was found).
///
/// Poisson: c = screening ≥ 0 (c = 0 with Neumann on every side is singular, and allowed).
/// Helmholtz: c = −ω², ω > 0. Right-hand sides, nrhs grids one after another (C order, shape
/// (nrhs, n1, n2[, n3])): `random` draws f from U(−1, 1) (both parts when complex);
/// `manufactured` draws u* the same way, keeps it in u_exact and sets f = A u*. The problem is
/// batched when spec.batched is set or nrhs > 1. Problem::generator records describe(spec) and
/// the mesh steps of every dimension.
AnyProblem generate(const ProblemSpec& spec);

/// @brief The spec as `key=value` text, stored in files so the problem can be regenerated:
/// one line of space-separated pairs, dimension keys suffixed with the 1-based dimension
/// (`n1=`, `mesh1=`, `left1=` …), numbers written so that they read back exactly.
std::string describe(const ProblemSpec& spec);

/// @brief Lower-case names used on the command line and in describe(): poisson, helmholtz;
/// dirichlet, neumann, absorbing; uniform, graded, random; random, manufactured.
std::string to_string(Equation equation);
std::string to_string(Boundary boundary);
std::string to_string(MeshKind kind);
std::string to_string(RhsKind kind);

/// @brief The inverse of to_string; throws InputError listing the valid names when `text` is not
/// one of them.
Equation parse_equation(const std::string& text);
Boundary parse_boundary(const std::string& text);
MeshKind parse_mesh_kind(const std::string& text);
RhsKind parse_rhs_kind(const std::string& text);

}  // namespace pscr::problems
