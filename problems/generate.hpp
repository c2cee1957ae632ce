#pragma once
/// @file Generators of the test problems of myllykoski2018 §5.1 and their variants:
/// Poisson (piecewise-linear FE, lumped mass, eq. 31) with an optional screening term c ≥ 0, and
/// Helmholtz (bilinear/trilinear FE, consistent mass, second-order absorbing boundary condition,
/// eqs. 33–35, c = −ω²), on uniform, graded or randomly perturbed meshes, any boundary condition
/// per side. Everything is reproducible from the seed.

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
std::vector<double> mesh_steps(const DimensionSpec& dim, std::uint64_t seed);

/// @brief The factors (A_d, M_d) of one dimension from its steps (eqs. 31, 33–35).
Factor<double> poisson_factor(const std::vector<double>& steps, Boundary left, Boundary right);
Factor<std::complex<double>> helmholtz_factor(const std::vector<double>& steps, Boundary left,
                                              Boundary right, double omega);

/// @brief Builds the problem; real unless it has an absorbing side. Throws InputError on a bad
/// spec (what was expected, what was found).
AnyProblem generate(const ProblemSpec& spec);

/// @brief The spec as `key=value` text, stored in files so the problem can be regenerated.
std::string describe(const ProblemSpec& spec);

}  // namespace pscr::problems
