#pragma once
// The problems both GPU-solver tests run (the emulation on the CPU and the real one on the GPU):
// 2D/3D × real/complex × Poisson/Helmholtz × meshes × boundary conditions, the edge sizes
// 1, 2, 3, 4, 5, 15, 16, 17, 63, 64, 65 sampled in every dimension, and the norms they compare.

#include <complex>
#include <sstream>
#include <string>
#include <vector>

#include "problems/generate.hpp"
#include "tests/support/neumann.hpp"
#include "tests/support/random.hpp"

namespace pscr::testing {

/// @brief One test problem: a generator spec and what it exercises.
struct GpuCase {
  problems::ProblemSpec spec;
  bool complex_poisson = false;  ///< run a real Poisson problem as a complex one

  bool helmholtz() const { return spec.equation == problems::Equation::helmholtz; }
  /// Whether it runs for this scalar type (Helmholtz with an absorbing side is complex only,
  /// without one real only; Poisson is real, or complex when complex_poisson).
  template <class Scalar>
  bool runs_as() const {
    bool absorbing = false;
    for (const auto& d : spec.dims)
      absorbing = absorbing || d.left == problems::Boundary::absorbing ||
                  d.right == problems::Boundary::absorbing;
    const bool is_complex = absorbing || complex_poisson;
    return is_complex == is_complex_v<Scalar>;
  }
  std::string name() const {
    std::ostringstream s;
    s << problems::describe(spec) << (complex_poisson ? " (as complex)" : "");
    return s.str();
  }
};

/// @brief Generates the case's problem as Scalar (a real Poisson problem promoted when needed).
template <class Scalar>
Problem<Scalar> make_problem(const GpuCase& c) {
  auto any = problems::generate(c.spec);
  if constexpr (is_complex_v<Scalar>) {
    if (auto* p = std::get_if<Problem<std::complex<double>>>(&any)) return *p;
    const auto& r = std::get<Problem<double>>(any);
    auto promote = [](const std::vector<double>& v) {
      return std::vector<std::complex<double>>(v.begin(), v.end());
    };
    std::vector<Factor<std::complex<double>>> factors;
    for (const auto& f : r.op.factors())
      factors.push_back(
          {{promote(f.A.diag), promote(f.A.off)}, {promote(f.M.diag), promote(f.M.off)}});
    Problem<std::complex<double>> p{SeparableOperator<std::complex<double>>(factors, r.op.c()),
                                    r.nrhs,
                                    r.batched,
                                    promote(r.f),
                                    promote(r.u_exact),
                                    r.generator};
    return p;
  } else {
    return std::get<Problem<double>>(any);
  }
}

/// @brief The cases. `full`: every size pair of the sample; otherwise a smaller subset (quicker).
inline std::vector<GpuCase> gpu_cases() {
  using problems::Boundary;
  using problems::Equation;
  using problems::MeshKind;
  const std::vector<index_t> sizes = edge_sizes();  // 1 … 65
  const index_t ns = static_cast<index_t>(sizes.size());
  const MeshKind meshes[] = {MeshKind::uniform, MeshKind::graded, MeshKind::random};
  std::vector<GpuCase> cases;
  std::uint64_t seed = 11;
  auto dim = [&](index_t n, int k, Boundary l, Boundary r) {
    problems::DimensionSpec d;
    d.n = n;
    d.mesh.kind = meshes[k % 3];
    // A single unknown needs a Dirichlet side (mesh_steps).
    d.left = n == 1 ? Boundary::dirichlet : l;
    d.right = r;
    return d;
  };
  auto add = [&](Equation eq, std::vector<problems::DimensionSpec> dims, bool as_complex) {
    GpuCase c;
    c.spec.equation = eq;
    c.spec.dims = std::move(dims);
    c.spec.seed = seed++;
    c.spec.omega = 10.0;
    c.complex_poisson = as_complex;
    cases.push_back(c);
  };
  const Boundary D = Boundary::dirichlet, N = Boundary::neumann, A = Boundary::absorbing;

  // 2D Poisson, Dirichlet: every n1 with three n2, every n2 with three n1 (edge sizes both ways).
  for (index_t i = 0; i < ns; ++i)
    for (index_t j : {i, (i + 4) % ns, (i + 7) % ns})
      add(Equation::poisson, {dim(sizes[i], i, D, D), dim(sizes[j], j + 1, D, D)}, (i + j) % 2);
  // 2D Poisson, mixed Dirichlet/Neumann sides.
  for (index_t i = 1; i < ns; i += 2)
    add(Equation::poisson, {dim(sizes[i], i, N, D), dim(sizes[(i + 3) % ns], i, D, N)}, i % 3 == 0);
  // 2D pure Neumann (singular: mean-zero solution).
  for (index_t i : {1, 4, 7, 10})
    add(Equation::poisson, {dim(sizes[i], i, N, N), dim(sizes[(i + 5) % ns] + 1, i + 2, N, N)},
        i == 4);
  // 2D Helmholtz, absorbing (complex) and Dirichlet (real, indefinite shifts).
  for (index_t i = 0; i < ns; i += 2) {
    const index_t j = (i + 5) % ns;
    add(Equation::helmholtz, {dim(sizes[i], i, A, A), dim(sizes[j], j, A, D)}, false);
    add(Equation::helmholtz, {dim(sizes[j], j, D, D), dim(sizes[i], i, D, D)}, false);
  }
  // 2D Helmholtz near resonance (ω = 30): PSCR alone leaves residuals of 6e-10 and 4e-9 there
  // (measured), which one step of iterative refinement removes.
  for (const auto& [n1, n2] : {std::pair<index_t, index_t>{64, 17}, {16, 15}}) {
    GpuCase c;
    c.spec.equation = Equation::helmholtz;
    c.spec.omega = 30.0;
    c.spec.seed = 1;
    problems::DimensionSpec a, b;
    a.n = n1;
    a.mesh.kind = MeshKind::random;
    a.left = a.right = A;
    b.n = n2;
    c.spec.dims = {a, b};
    cases.push_back(c);
  }
  // 3D Poisson: Dirichlet and mixed, sizes sampled per dimension.
  const index_t triples[][3] = {{0, 0, 0}, {1, 4, 2}, {7, 3, 5}, {5, 7, 1}, {2, 6, 7}, {4, 2, 6},
                                {6, 1, 3}, {3, 5, 4}, {8, 0, 2}, {0, 8, 1}, {1, 2, 8}};
  for (const auto& t : triples) {
    const bool mixed = (t[0] + t[1]) % 2 == 1;
    add(Equation::poisson,
        {dim(sizes[t[0]], t[0], mixed ? N : D, D), dim(sizes[t[1]], t[1], D, D),
         dim(sizes[t[2]], t[2], D, mixed ? N : D)},
        t[2] % 2 == 1);
  }
  // 3D pure Neumann (singular).
  add(Equation::poisson, {dim(5, 0, N, N), dim(4, 1, N, N), dim(6, 2, N, N)}, false);
  add(Equation::poisson, {dim(17, 2, N, N), dim(3, 0, N, N), dim(16, 1, N, N)}, true);
  // 3D Helmholtz: absorbing (complex) and Dirichlet (real).
  add(Equation::helmholtz, {dim(5, 0, A, A), dim(16, 1, A, D), dim(15, 2, A, A)}, false);
  add(Equation::helmholtz, {dim(17, 1, D, A), dim(4, 2, A, A), dim(3, 0, A, D)}, false);
  add(Equation::helmholtz, {dim(15, 2, D, D), dim(5, 0, D, D), dim(17, 1, D, D)}, false);
  return cases;
}

/// @brief Problems whose tridiagonal dimension (n2 in 2D, n3 in 3D) is long enough for the
/// segment stage (pscr/cuda/segment_stage.cuh, from 2047 rows with StageFusion::always): 8 to 33
/// segments (256 rows real, 128 complex), split top-level blocks (n1 > 16), a singular problem,
/// Helmholtz shifts, and the inner problems of 3D.
inline std::vector<GpuCase> long_system_cases() {
  using problems::Boundary;
  using problems::Equation;
  const Boundary D = Boundary::dirichlet, N = Boundary::neumann, A = Boundary::absorbing;
  std::vector<GpuCase> cases;
  std::uint64_t seed = 101;
  auto dim = [](index_t n, Boundary left, Boundary right) {
    problems::DimensionSpec d;
    d.n = n;
    d.mesh.kind = problems::MeshKind::random;
    d.left = left;
    d.right = right;
    return d;
  };
  auto add = [&](Equation eq, std::vector<problems::DimensionSpec> dims) {
    GpuCase c;
    c.spec.equation = eq;
    c.spec.dims = std::move(dims);
    c.spec.seed = seed++;
    c.spec.omega = 10.0;
    cases.push_back(c);
  };
  // Real: Poisson (one split top block), pure Neumann, indefinite Helmholtz, 3D.
  add(Equation::poisson, {dim(21, D, D), dim(2049, D, D)});
  add(Equation::poisson, {dim(3, D, D), dim(4100, D, N)});
  add(Equation::poisson, {dim(9, N, N), dim(2100, N, N)});
  add(Equation::helmholtz, {dim(18, D, D), dim(2047, D, D)});
  add(Equation::poisson, {dim(3, D, N), dim(4, D, D), dim(2100, D, D)});
  // Complex: Helmholtz with absorbing sides (Poisson promoted to complex reaches only 4e-12 in
  // the residual at this length, above the 1e-12 bound, on either path).
  add(Equation::helmholtz, {dim(17, A, A), dim(2047, A, D)});
  add(Equation::helmholtz, {dim(5, A, A), dim(4100, A, A)});
  add(Equation::helmholtz, {dim(3, A, A), dim(4, A, D), dim(2048, A, A)});
  return cases;
}

/// @brief ‖x − y‖₂ / ‖y‖₂ (‖x‖₂ when y = 0).
template <class Scalar>
double relative_difference(const std::vector<Scalar>& x, const std::vector<Scalar>& y) {
  double num = 0, den = 0;
  for (std::size_t k = 0; k < x.size(); ++k) {
    num += std::norm(std::complex<double>(x[k]) - std::complex<double>(y[k]));
    den += std::norm(std::complex<double>(y[k]));
  }
  return den > 0 ? std::sqrt(num / den) : std::sqrt(num);
}

/// A 3D Poisson-like operator of m³ unknowns (uniform factors, lumped mass, shift c): with
/// m = 1700 one grid alone is 39 GB (real), more than any GPU's plan holds.
template <class Scalar>
SeparableOperator<Scalar> uniform_cube_operator(index_t m, Scalar c) {
  std::vector<Factor<Scalar>> factors;
  for (int d = 0; d < 3; ++d)
    factors.push_back({{std::vector<Scalar>(m, Scalar(2)), std::vector<Scalar>(m - 1, Scalar(-1))},
                       {std::vector<Scalar>(m, Scalar(1)), std::vector<Scalar>(m - 1, Scalar(0))}});
  return SeparableOperator<Scalar>(factors, c);
}

}  // namespace pscr::testing
