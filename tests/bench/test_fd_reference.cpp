// The CPU path of the fast-diagonalization method and peer (pscr/fd/setup.hpp): its eigenpairs
// against their definition, and its solves against the SparseLU oracle on generated Poisson and
// Helmholtz problems, 2D and 3D, on non-uniform meshes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <variant>

#include "problems/generate.hpp"
#include "pscr/fd/setup.hpp"
#include "tests/support/oracle.hpp"
#include "tests/support/tolerance.hpp"
#include "tests/support/typed.hpp"

namespace pscr {
namespace {

using problems::Boundary;
using problems::Equation;
using problems::MeshKind;

/// The problem kinds of one scalar type: real → Poisson on a random mesh (diagonal M: the dstemr
/// path), Poisson on a graded mesh with screening, and Helmholtz with Neumann/Dirichlet sides
/// (real with a tridiagonal M: dsygvd); complex → Helmholtz with absorbing sides (zggev).
template <class Scalar>
std::vector<problems::ProblemSpec> specs(const std::vector<index_t>& shape, std::uint64_t seed) {
  auto base = [&](Equation eq, MeshKind mesh, Boundary left, Boundary right) {
    problems::ProblemSpec s;
    s.equation = eq;
    s.seed = seed;
    s.omega = 5.0;
    for (index_t n : shape) {
      problems::DimensionSpec d;
      d.n = n;
      d.mesh.kind = mesh;
      d.left = left;
      d.right = right;
      // A single unknown needs a Dirichlet side (a mesh step to stand on).
      if (n == 1 && left != Boundary::dirichlet && right != Boundary::dirichlet)
        d.left = Boundary::dirichlet;
      s.dims.push_back(d);
    }
    return s;
  };
  if constexpr (is_complex_v<Scalar>) {
    auto h = base(Equation::helmholtz, MeshKind::random, Boundary::absorbing, Boundary::absorbing);
    auto mixed =
        base(Equation::helmholtz, MeshKind::graded, Boundary::dirichlet, Boundary::absorbing);
    mixed.omega = 12.0;
    return {h, mixed};
  } else {
    auto p = base(Equation::poisson, MeshKind::random, Boundary::dirichlet, Boundary::dirichlet);
    auto screened =
        base(Equation::poisson, MeshKind::graded, Boundary::neumann, Boundary::dirichlet);
    screened.screening = 3.0;
    auto h = base(Equation::helmholtz, MeshKind::random, Boundary::neumann, Boundary::dirichlet);
    return {p, screened, h};
  }
}

template <class Scalar>
Problem<Scalar> make(const problems::ProblemSpec& spec) {
  return std::get<Problem<Scalar>>(problems::generate(spec));
}

template <class Scalar>
real_t<Scalar> max_abs(const std::vector<Scalar>& x) {
  real_t<Scalar> m = 0;
  for (const Scalar& v : x) m = std::max(m, std::abs(v));
  return m;
}

template <class Scalar>
class FdReferenceTest : public ::testing::Test {};
TYPED_TEST_SUITE(FdReferenceTest, testing::ScalarTypes);

// A W = M W Λ and Wᵀ M W = I (plain transpose), for the dstemr, dsygvd and zggev paths.
TYPED_TEST(FdReferenceTest, EigenpairsSatisfyTheirDefinition) {
  using Scalar = TypeParam;
  for (index_t n : {1, 2, 3, 4, 5, 15, 16, 17, 63}) {
    for (const auto& spec : specs<Scalar>({n, 1}, 40 + n)) {
      const Factor<Scalar> f = make<Scalar>(spec).op.factor(0);
      const auto e = fd::full_eigen(f);
      ASSERT_EQ(e.size(), n);
      ASSERT_EQ(static_cast<index_t>(e.W.size()), n * n);
      if constexpr (is_complex_v<Scalar>) {
        EXPECT_EQ(e.method, "zggev");
      } else {
        const bool diagonal_m =
            std::all_of(f.M.off.begin(), f.M.off.end(), [](double x) { return x == 0.0; });
        EXPECT_EQ(e.method, diagonal_m ? "dstemr" : "dsygvd");
      }
      real_t<Scalar> scale = 0, residual = 0, ortho = 0;
      for (index_t i = 0; i < n; ++i) scale = std::max(scale, std::abs(f.A.diag[i]));
      for (index_t l = 0; l < n; ++l) {
        for (index_t i = 0; i < n; ++i) {
          auto w = [&](index_t r) { return e.W[r * n + l]; };
          Scalar aw = f.A.diag[i] * w(i), mw = f.M.diag[i] * w(i);
          if (i > 0) aw += f.A.off[i - 1] * w(i - 1), mw += f.M.off[i - 1] * w(i - 1);
          if (i + 1 < n) aw += f.A.off[i] * w(i + 1), mw += f.M.off[i] * w(i + 1);
          residual = std::max(residual, std::abs(aw - e.lambda[l] * mw));
        }
        for (index_t k = 0; k < n; ++k) {
          Scalar s = 0;  // w_kᵀ M w_l
          for (index_t i = 0; i < n; ++i) {
            Scalar mw = f.M.diag[i] * e.W[i * n + l];
            if (i > 0) mw += f.M.off[i - 1] * e.W[(i - 1) * n + l];
            if (i + 1 < n) mw += f.M.off[i] * e.W[(i + 1) * n + l];
            s += e.W[i * n + k] * mw;
          }
          ortho = std::max(ortho, std::abs(s - Scalar(k == l ? 1 : 0)));
        }
      }
      // Eigenvector components are O(‖M⁻¹‖^{1/2}) = O(n^{1/2}) on these meshes; the residual is
      // relative to ‖A‖, with a growth of n for the dense reductions.
      const double growth = static_cast<double>(n) * std::sqrt(static_cast<double>(n));
      EXPECT_LE(residual, testing::tolerance<Scalar>(100, growth) * scale)
          << "n " << n << ", " << problems::describe(spec);
      EXPECT_LE(ortho, testing::tolerance<Scalar>(100, n))
          << "n " << n << ", " << problems::describe(spec);
    }
  }
}

// The full FD solve against SparseLU on the assembled matrix, 2D and 3D, odd and edge sizes.
TYPED_TEST(FdReferenceTest, SolveMatchesSparseLu) {
  using Scalar = TypeParam;
  const std::vector<std::vector<index_t>> shapes = {{1, 1},    {1, 4},    {5, 1},    {2, 3},
                                                    {3, 7},    {15, 17},  {17, 9},   {31, 13},
                                                    {1, 1, 1}, {3, 5, 7}, {9, 4, 5}, {7, 15, 3}};
  std::uint64_t seed = 7;
  for (const auto& shape : shapes) {
    for (const auto& spec : specs<Scalar>(shape, seed++)) {
      const Problem<Scalar> p = make<Scalar>(spec);
      const auto setup = fd::fd_setup(p.op);
      std::vector<Scalar> u(p.op.grid_size());
      fd::fd_solve(setup, p.f.data(), u.data());
      const auto ref = testing::sparse_lu_solve(p.op, p.f.data());
      real_t<Scalar> err = 0;
      for (std::size_t k = 0; k < u.size(); ++k) err = std::max(err, std::abs(u[k] - ref[k]));
      const real_t<Scalar> rel = err / max_abs(ref);
      // Both solves are backward stable; their difference grows with the condition number,
      // O(n²) for these meshes (n = the largest dimension).
      const double n = static_cast<double>(*std::max_element(shape.begin(), shape.end()));
      EXPECT_LE(rel, testing::tolerance<Scalar>(100, n * n)) << problems::describe(spec);
      EXPECT_LE(p.op.relative_residual(u.data(), p.f.data()), testing::tolerance<Scalar>(1000, n))
          << problems::describe(spec);
    }
  }
}

// 3D: one system per pair (l, m), at index l·n2 + m, with shift λ_l + μ_m + c.
TEST(FdReference, SetupHoldsShiftsOfEveryEigenpairCombination) {
  auto spec = specs<double>({4, 3, 5}, 3)[0];
  const auto p = make<double>(spec);
  const auto setup = fd::fd_setup(p.op);
  ASSERT_EQ(setup.eig.size(), 2u);
  ASSERT_EQ(setup.systems(), 12);
  for (index_t l = 0; l < 4; ++l)
    for (index_t m = 0; m < 3; ++m)
      EXPECT_DOUBLE_EQ(setup.shifts[l * 3 + m],
                       setup.eig[0].lambda[l] + setup.eig[1].lambda[m] + p.op.c());
  EXPECT_EQ(setup.last.size(), 5);
}

}  // namespace
}  // namespace pscr
