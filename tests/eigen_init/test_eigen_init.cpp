// The block eigensolver against dense references (Eigen's generalized self-adjoint solver for
// real pencils, its complex eigensolver on M⁻¹A for complex ones), with backward errors and the
// bilinear normalization Wᵀ M W = I checked on full vectors; and the sharing of identical blocks.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <complex>
#include <numeric>

#include "common/error.hpp"
#include "eigen_init/boundary_secular.hpp"
#include "eigen_init/eigen_init.hpp"
#include "eigen_init/reduction.hpp"
#include "tests/eigen_init/pencils.hpp"
#include "tests/support/random.hpp"
#include "tests/support/tolerance.hpp"
#include "tests/support/typed.hpp"

namespace pscr {
namespace {

using C = std::complex<double>;

// Accuracy asked of eigen_init by its issue: eigenvalues within 1e-12·max|λ| (real) and
// 1e-10·max|λ| (complex: non-normal pencils, the reference itself is less accurate), backward
// errors and ‖WᵀMW − I‖ within 1e-12 (≈ 4500 eps).
template <class Scalar>
double eigenvalue_tol() {
  return is_complex_v<Scalar> ? testing::tolerance<Scalar>(4.5e5)
                              : testing::tolerance<Scalar>(4.5e3);
}
const double kBackwardTol = testing::tolerance<double>(4.5e3);
const double kOrthoTol = testing::tolerance<double>(4.5e3);

template <class Scalar>
Eigen::Matrix<Scalar, Eigen::Dynamic, Eigen::Dynamic> to_dense(const SymTridiag<Scalar>& t) {
  const index_t m = t.size();
  Eigen::Matrix<Scalar, Eigen::Dynamic, Eigen::Dynamic> a =
      Eigen::Matrix<Scalar, Eigen::Dynamic, Eigen::Dynamic>::Zero(m, m);
  for (index_t k = 0; k < m; ++k) {
    a(k, k) = t.diag[k];
    if (k + 1 < m) a(k, k + 1) = a(k + 1, k) = t.off[k];
  }
  return a;
}

/// Reference eigenvalues from a dense solver that shares no code with eigen_init.
std::vector<double> reference_eigenvalues(const SymTridiag<double>& A,
                                          const SymTridiag<double>& M) {
  Eigen::GeneralizedSelfAdjointEigenSolver<Eigen::MatrixXd> es(to_dense(A), to_dense(M),
                                                               Eigen::EigenvaluesOnly);
  EXPECT_EQ(es.info(), Eigen::Success);
  const Eigen::VectorXd ev = es.eigenvalues();
  return std::vector<double>(ev.data(), ev.data() + ev.size());
}
std::vector<C> reference_eigenvalues(const SymTridiag<C>& A, const SymTridiag<C>& M) {
  const Eigen::MatrixXcd b = to_dense(M).partialPivLu().solve(to_dense(A));
  Eigen::ComplexEigenSolver<Eigen::MatrixXcd> es(b, false);
  EXPECT_EQ(es.info(), Eigen::Success);
  const Eigen::VectorXcd ev = es.eigenvalues();
  return std::vector<C>(ev.data(), ev.data() + ev.size());
}

template <class Scalar>
double norm_inf(const SymTridiag<Scalar>& t) {
  double r = 0;
  for (index_t k = 0; k < t.size(); ++k) {
    double s = std::abs(t.diag[k]);
    if (k > 0) s += std::abs(t.off[k - 1]);
    if (k + 1 < t.size()) s += std::abs(t.off[k]);
    r = std::max(r, s);
  }
  return r;
}

std::vector<index_t> all_rows(index_t m) {
  std::vector<index_t> rows(m);
  std::iota(rows.begin(), rows.end(), 0);
  return rows;
}

/// Every check of the issue on the result `full` (all rows) for one pencil.
template <class Scalar>
void check_result(const SymTridiag<Scalar>& A, const SymTridiag<Scalar>& M,
                  const BlockEigen<Scalar>& full, const std::string& what) {
  SCOPED_TRACE(what);
  const index_t m = A.size();
  EXPECT_EQ(full.size(), m);
  EXPECT_EQ(full.W.size(), static_cast<std::size_t>(m * m));

  // Eigenvalues: ordered, and each matched to a distinct nearest reference eigenvalue.
  std::vector<Scalar> ref = reference_eigenvalues(A, M);
  double lambda_max = 0;
  for (const Scalar& x : ref) lambda_max = std::max(lambda_max, std::abs(x));
  double worst_eig = 0;
  std::vector<bool> used(m, false);
  for (index_t l = 0; l < m; ++l) {
    if (l > 0) {
      const Scalar a = full.lambda[l - 1], b = full.lambda[l];
      EXPECT_TRUE(std::real(a) < std::real(b) ||
                  (std::real(a) == std::real(b) && std::imag(a) <= std::imag(b)))
          << "eigenvalues out of order at " << l;
    }
    index_t best = -1;
    for (index_t j = 0; j < m; ++j)
      if (!used[j] &&
          (best < 0 || std::abs(ref[j] - full.lambda[l]) < std::abs(ref[best] - full.lambda[l])))
        best = j;
    used[best] = true;
    worst_eig = std::max(worst_eig, std::abs(ref[best] - full.lambda[l]));
  }
  EXPECT_LE(worst_eig, eigenvalue_tol<Scalar>() * lambda_max) << "max|λ| " << lambda_max;

  // Backward error of every pair: ‖A w − λ M w‖ / ((‖A‖ + |λ| ‖M‖) ‖w‖).
  const double na = norm_inf(A), nm = norm_inf(M);
  std::vector<Scalar> w(m);
  double worst_backward = 0;
  for (index_t l = 0; l < m; ++l) {
    for (index_t k = 0; k < m; ++k) w[k] = full.W[k * m + l];
    double r2 = 0, w2 = 0;
    for (index_t k = 0; k < m; ++k) {
      Scalar aw = A.diag[k] * w[k], mw = M.diag[k] * w[k];
      if (k > 0) aw += A.off[k - 1] * w[k - 1], mw += M.off[k - 1] * w[k - 1];
      if (k + 1 < m) aw += A.off[k] * w[k + 1], mw += M.off[k] * w[k + 1];
      r2 += std::norm(aw - full.lambda[l] * mw);
      w2 += std::norm(w[k]);
    }
    worst_backward = std::max(
        worst_backward, std::sqrt(r2) / ((na + std::abs(full.lambda[l]) * nm) * std::sqrt(w2)));
  }
  EXPECT_LE(worst_backward, kBackwardTol);

  // Wᵀ M W = I, plain transpose.
  Eigen::Matrix<Scalar, Eigen::Dynamic, Eigen::Dynamic> W(m, m);
  for (index_t k = 0; k < m; ++k)
    for (index_t l = 0; l < m; ++l) W(k, l) = full.W[k * m + l];
  const auto G = (W.transpose() * to_dense(M) * W).eval();
  const double ortho = (G - Eigen::Matrix<Scalar, Eigen::Dynamic, Eigen::Dynamic>::Identity(m, m))
                           .cwiseAbs()
                           .maxCoeff();
  EXPECT_LE(ortho, kOrthoTol);
}

/// Every check of the issue on one pencil, with full vectors; returns the full result.
template <class Scalar>
BlockEigen<Scalar> check_pencil(const SymTridiag<Scalar>& A, const SymTridiag<Scalar>& M,
                                const std::string& what) {
  const BlockEigen<Scalar> full = solve_block_pencil(A, M, all_rows(A.size()));
  check_result(A, M, full, what);
  return full;
}

template <class Scalar>
SymTridiag<Scalar> random_tridiag(index_t m, std::uint64_t seed) {
  SymTridiag<Scalar> t;
  t.diag = testing::random_vector<Scalar>(m, seed);
  t.off = testing::random_vector<Scalar>(m - 1, seed + 1);
  return t;
}

/// A random mass matrix, diagonally dominant (positive definite real part): diagonal entries
/// 2 + U(−½, ½), off-diagonal ones U(−½, ½) (zero when `diagonal`); complex ones get imaginary
/// parts a third as large.
template <class Scalar>
SymTridiag<Scalar> random_mass(index_t m, std::uint64_t seed, bool diagonal) {
  SymTridiag<Scalar> t = random_tridiag<Scalar>(m, seed);
  auto shrink = [](const Scalar& x, double shift, double re, double im) {
    if constexpr (is_complex_v<Scalar>) {
      return Scalar(shift + re * x.real(), im * x.imag());
    } else {
      return Scalar(shift + re * x);
    }
  };
  for (Scalar& x : t.diag) x = shrink(x, 2.0, 0.5, 1.0 / 3);
  for (Scalar& x : t.off) x = diagonal ? Scalar{} : shrink(x, 0.0, 0.5, 1.0 / 6);
  return t;
}

template <class Scalar>
class BlockPencilTest : public ::testing::Test {};
TYPED_TEST_SUITE(BlockPencilTest, testing::ScalarTypes);

TYPED_TEST(BlockPencilTest, RandomPencils) {
  using Scalar = TypeParam;
  std::vector<index_t> sizes = testing::edge_sizes();
  for (index_t m : {101, 255, 257}) sizes.push_back(m);
  std::uint64_t seed = 1000;
  for (index_t m : sizes) {
    for (bool diagonal : {true, false}) {
      if (is_complex_v<Scalar> && diagonal) continue;
      const SymTridiag<Scalar> A = random_tridiag<Scalar>(m, seed);
      const SymTridiag<Scalar> M = random_mass<Scalar>(m, seed + 7, diagonal);
      seed += 100;
      check_pencil(A, M, "m " + std::to_string(m) + (diagonal ? " diagonal M" : " tridiagonal M"));
    }
  }
}

// Crawford's reduction on its own (its bulge chases advance several at a time, reduction.cpp):
// with every row tracked, Z is the whole X, and Xᵀ M X = I and Xᵀ A X = C (the returned
// tridiagonal), plain transpose. Also with zero off-diagonal entries in A and M, where no bulge
// is made at some rows.
TYPED_TEST(BlockPencilTest, CrawfordReduction) {
  using Scalar = TypeParam;
  using Dense = Eigen::Matrix<Scalar, Eigen::Dynamic, Eigen::Dynamic>;
  std::vector<index_t> sizes = testing::edge_sizes();
  sizes.push_back(257);
  std::uint64_t seed = 3000;
  for (index_t m : sizes) {
    for (bool gaps : {false, true}) {
      SymTridiag<Scalar> A = random_tridiag<Scalar>(m, seed);
      SymTridiag<Scalar> M = random_mass<Scalar>(m, seed + 7, false);
      seed += 100;
      if (gaps) {
        for (index_t k = 0; k + 1 < m; ++k) {
          if (k % 5 == 1) A.off[k] = Scalar{};
          if (k % 7 == 3) M.off[k] = Scalar{};
        }
      }
      std::vector<Scalar> d, e, Z;
      eigen_detail::crawford_reduce(A, M, all_rows(m), d, e, Z);
      ASSERT_EQ(static_cast<index_t>(Z.size()), m * m);
      Dense X(m, m), Cm = Dense::Zero(m, m);
      for (index_t r = 0; r < m; ++r)
        for (index_t j = 0; j < m; ++j) X(r, j) = Z[r * m + j];
      for (index_t k = 0; k < m; ++k) {
        Cm(k, k) = d[k];
        if (k + 1 < m) Cm(k, k + 1) = Cm(k + 1, k) = e[k];
      }
      const Dense xmx = X.transpose() * to_dense(M) * X;
      const Dense xax = X.transpose() * to_dense(A) * X;
      const double x_norm = X.cwiseAbs().rowwise().sum().maxCoeff();
      // Each column of X takes up to m rotations: rounding errors grow with m.
      const double tol = testing::tolerance<Scalar>(64, static_cast<double>(m));
      const std::string what = "m " + std::to_string(m) + (gaps ? " with zeros" : "");
      EXPECT_LE((xmx - Dense::Identity(m, m)).cwiseAbs().maxCoeff(),
                tol * norm_inf(M) * x_norm * x_norm)
          << what;
      EXPECT_LE((xax - Cm).cwiseAbs().maxCoeff(), tol * norm_inf(A) * x_norm * x_norm) << what;
    }
  }
}

TYPED_TEST(BlockPencilTest, StoredComponentsAreTheFullVectors) {
  using Scalar = TypeParam;
  const index_t m = 63;
  const SymTridiag<Scalar> A = random_tridiag<Scalar>(m, 55);
  const SymTridiag<Scalar> M = random_mass<Scalar>(m, 56, false);
  const BlockEigen<Scalar> full = solve_block_pencil(A, M, all_rows(m));
  const std::vector<index_t> rows = {0, 15, 31, 47, 62};
  const BlockEigen<Scalar> part = solve_block_pencil(A, M, rows);
  EXPECT_EQ(part.rows, rows);
  ASSERT_EQ(part.W.size(), rows.size() * m);
  for (index_t l = 0; l < m; ++l) EXPECT_EQ(part.lambda[l], full.lambda[l]);
  for (std::size_t k = 0; k < rows.size(); ++k)
    for (index_t l = 0; l < m; ++l) EXPECT_EQ(part.row(k)[l], full.W[rows[k] * m + l]);
}

// Persymmetric pencils (uniform meshes) are split into symmetric and antisymmetric halves: odd
// and even sizes, rows on both sides of the middle and the middle itself.
TYPED_TEST(BlockPencilTest, PersymmetricSplit) {
  using Scalar = TypeParam;
  for (index_t m : {100, 101}) {
    SymTridiag<Scalar> A = random_tridiag<Scalar>(m, 300 + m);
    SymTridiag<Scalar> M = random_mass<Scalar>(m, 400 + m, false);
    for (index_t k = 0; k < m / 2; ++k) {
      A.diag[m - 1 - k] = A.diag[k];
      M.diag[m - 1 - k] = M.diag[k];
    }
    for (index_t k = 0; k < (m - 1) / 2; ++k) {
      A.off[m - 2 - k] = A.off[k];
      M.off[m - 2 - k] = M.off[k];
    }
    const BlockEigen<Scalar> full = check_pencil(A, M, "persymmetric m " + std::to_string(m));
    const std::vector<index_t> rows = {0, 3, m / 2 - 1, m / 2, m - 4, m - 1};
    const BlockEigen<Scalar> part = solve_block_pencil(A, M, rows);
    for (index_t l = 0; l < m; ++l) EXPECT_EQ(part.lambda[l], full.lambda[l]);
    for (std::size_t k = 0; k < rows.size(); ++k)
      for (index_t l = 0; l < m; ++l) EXPECT_EQ(part.row(k)[l], full.W[rows[k] * m + l]);
  }
}

TYPED_TEST(BlockPencilTest, RejectsBadInput) {
  using Scalar = TypeParam;
  const SymTridiag<Scalar> A = random_tridiag<Scalar>(5, 1);
  const SymTridiag<Scalar> M = random_mass<Scalar>(4, 2, false);
  EXPECT_THROW(solve_block_pencil(A, M, {0}), InputError);
  const SymTridiag<Scalar> M5 = random_mass<Scalar>(5, 2, false);
  EXPECT_THROW(solve_block_pencil(A, M5, {0, 5}), InputError);
  EXPECT_THROW(solve_block_pencil(A, M5, {2, 1}), InputError);
}

TEST(BlockPencilReal, RejectsIndefiniteMass) {
  SymTridiag<double> A = random_tridiag<double>(7, 3);
  SymTridiag<double> M = random_mass<double>(7, 4, false);
  M.diag[3] = -1.0;
  EXPECT_THROW(solve_block_pencil(A, M, {0, 6}), SolverError);
}

// A defective complex symmetric pencil is reported, not returned as garbage: A = [1 i; i −1] is
// nilpotent (A² = 0) with M = I, a single eigenvalue 0 and a single, isotropic eigenvector.
TEST(BlockPencilComplex, RejectsDefectivePencil) {
  SymTridiag<C> A, M;
  A.diag = {C(1, 0), C(-1, 0)};
  A.off = {C(0, 1)};
  M.diag = {C(1, 0), C(1, 0)};
  M.off = {C(0, 0)};
  EXPECT_THROW(solve_block_pencil(A, M, {0, 1}), SolverError);
  // The same block inside a larger pencil, coupled weakly to a well-conditioned part.
  SymTridiag<C> A5 = random_tridiag<C>(5, 91), M5 = random_mass<C>(5, 92, true);
  for (SymTridiag<C>* t : {&A5, &M5})
    for (C& x : t->diag) x = C(x.real() + 3, 0);
  A5.diag[3] = C(1, 0);
  A5.diag[4] = C(-1, 0);
  A5.off[3] = C(0, 1);
  A5.off[2] = C(0, 0);
  M5.diag[3] = M5.diag[4] = C(1, 0);
  EXPECT_THROW(solve_block_pencil(A5, M5, {0, 4}), SolverError);
}

/// Clustered and repeated eigenvalues: repeated identical cells that are decoupled (exactly
/// repeated eigenvalues) or nearly decoupled (clusters), and Wilkinson's W⁺₂₁ (close pairs).
template <class Scalar>
std::vector<std::pair<SymTridiag<Scalar>, SymTridiag<Scalar>>> clustered_pencils() {
  std::vector<std::pair<SymTridiag<Scalar>, SymTridiag<Scalar>>> out;
  const index_t cell = 9;
  const SymTridiag<Scalar> a = random_tridiag<Scalar>(cell, 77);
  const SymTridiag<Scalar> b = random_mass<Scalar>(cell, 78, false);
  for (double coupling : {0.0, 1e-15, 1e-9}) {
    for (index_t copies : {2, 5}) {
      SymTridiag<Scalar> A, M;
      for (index_t c = 0; c < copies; ++c) {
        A.diag.insert(A.diag.end(), a.diag.begin(), a.diag.end());
        A.off.insert(A.off.end(), a.off.begin(), a.off.end());
        M.diag.insert(M.diag.end(), b.diag.begin(), b.diag.end());
        M.off.insert(M.off.end(), b.off.begin(), b.off.end());
        if (c + 1 < copies) {
          A.off.push_back(Scalar(coupling));
          M.off.push_back(Scalar{});
        }
      }
      out.emplace_back(A, M);
    }
  }
  // Wilkinson W⁺₂₁ with the identity as M: pairs agreeing to ~1e-14.
  SymTridiag<Scalar> w, id;
  for (int k = 0; k < 21; ++k) {
    w.diag.push_back(Scalar(std::abs(10 - k)));
    id.diag.push_back(Scalar(1));
  }
  w.off.assign(20, Scalar(1));
  id.off.assign(20, Scalar{});
  out.emplace_back(w, id);
  return out;
}

TYPED_TEST(BlockPencilTest, ClusteredEigenvalues) {
  using Scalar = TypeParam;
  int k = 0;
  for (const auto& [A, M] : clustered_pencils<Scalar>())
    check_pencil(A, M, "clustered pencil " + std::to_string(k++));
}

// Test-problem blocks: Poisson (diagonal M) and Dirichlet Helmholtz (tridiagonal M) on uniform,
// strongly graded (ratio 100 and 1000) and randomly perturbed meshes.
TEST(BlockPencilReal, TestProblemFactors) {
  for (index_t n : {1, 2, 3, 15, 16, 17, 63, 255, 257}) {
    for (double ratio : {1.0, 100.0, 1000.0}) {
      for (double perturbation : {0.0, 0.3}) {
        const auto h = testing::mesh_steps(n + 1, ratio, perturbation, 7 + n);
        const std::string what = "n " + std::to_string(n) + " ratio " + std::to_string(ratio) +
                                 " perturbation " + std::to_string(perturbation);
        const Factor<double> p = testing::poisson_factor(h);
        check_pencil(p.A, p.M, "Poisson " + what);
        const Factor<double> d = testing::dirichlet_mass_factor(h);
        check_pencil(d.A, d.M, "consistent mass " + what);
      }
    }
  }
}

// Helmholtz with absorbing ends (complex at both ends of A and M), from 10 points per wavelength
// up to ω·h ≈ 1, on uniform, graded and perturbed meshes; and the blocks of its partition.
TEST(BlockPencilComplex, HelmholtzFactors) {
  for (index_t n : {2, 3, 16, 17, 63, 255}) {
    const double h = 1.0 / static_cast<double>(n - 1);
    const double two_pi = 2 * std::acos(-1.0);
    for (double omega : {two_pi / (10 * h), 1.0 / h, 10.0}) {
      for (double ratio : {1.0, 100.0}) {
        for (double perturbation : {0.0, 0.3}) {
          // The largest size only on the uniform and the graded-and-perturbed meshes (time).
          if (n == 255 && (ratio == 1.0) != (perturbation == 0.0)) continue;
          const auto steps = testing::mesh_steps(n - 1, ratio, perturbation, 11 + n);
          const Factor<C> f = testing::helmholtz_factor(steps, omega);
          const std::string what = "n " + std::to_string(n) + " omega " + std::to_string(omega) +
                                   " ratio " + std::to_string(ratio) + " perturbation " +
                                   std::to_string(perturbation);
          check_pencil(f.A, f.M, "Helmholtz " + what);
          const Partition part(n);
          for (int i = 1; i < part.num_levels(); ++i)
            for (const Block& b : part.level(i).blocks)
              check_pencil(
                  f.A.submatrix(b.first, b.last), f.M.submatrix(b.first, b.last),
                  what + " level " + std::to_string(i) + " block " + std::to_string(b.first));
        }
      }
    }
  }
}

// Helmholtz pencils are real but for the diagonal entries of their absorbing ends: the secular
// path through their real part (boundary_secular.hpp) must solve them, at 10 points per
// wavelength and at ω·h ≈ 1, on uniform, random, strongly graded (ratio 100) and graded-and-
// random meshes, with both ends absorbing or only the first or the last (the other end real),
// odd and even sizes; full vectors checked as everywhere, and stored rows equal to them.
TEST(BlockPencilComplex, HelmholtzBoundaryPath) {
  const double two_pi = 2 * std::acos(-1.0);
  for (index_t n : {2, 3, 5, 16, 17, 64, 129, 255}) {
    const double h = 1.0 / static_cast<double>(n - 1);
    for (double omega : {two_pi / (10 * h), 1.0 / h}) {
      for (double ratio : {1.0, 100.0}) {
        for (double perturbation : {0.0, 0.3}) {
          for (int ends : {0, 1, 2}) {  // both, first only, last only
            // The largest size on fewer meshes and ends (time).
            if (n == 255 && (ends != 0 || ratio == 1.0)) continue;
            const auto steps = testing::mesh_steps(n - 1, ratio, perturbation, 19 + n);
            Factor<C> f = testing::helmholtz_factor(steps, omega);
            if (ends != 0) {
              const index_t real_end = ends == 1 ? n - 1 : 0;
              f.A.diag[real_end] = f.A.diag[real_end].real();
              f.M.diag[real_end] = f.M.diag[real_end].real();
            }
            const std::string what = "n " + std::to_string(n) + " omega " + std::to_string(omega) +
                                     " ratio " + std::to_string(ratio) + " perturbation " +
                                     std::to_string(perturbation) + " ends " + std::to_string(ends);
            ASSERT_TRUE(eigen_detail::has_boundary_form(f.A, f.M)) << what;
            BlockEigen<C> full;
            if (!eigen_detail::solve_boundary_pencil(f.A, f.M, all_rows(n), full)) {
              // A persymmetric pencil with both ends absorbing (uniform mesh) may be refused at
              // ω·h = 1 (pairs of roots of the two symmetry classes within rounding); from 64
              // rows solve_block_pencil splits it into halves with one complex end each, which
              // the path must solve (the half pencils are among the ends 1 cases here).
              EXPECT_TRUE(ends == 0 && ratio == 1.0 && perturbation == 0.0 && n >= 64)
                  << "refused " << what;
              check_pencil(f.A, f.M, "refused by the boundary path " + what);
              continue;
            }
            check_result(f.A, f.M, full, "boundary path " + what);
            const std::vector<index_t> rows = {0, n / 2, n - 1};
            BlockEigen<C> part;
            ASSERT_TRUE(eigen_detail::solve_boundary_pencil(f.A, f.M, rows, part)) << what;
            EXPECT_EQ(part.lambda, full.lambda) << what;
            for (std::size_t k = 0; k < rows.size(); ++k)
              for (index_t l = 0; l < n; ++l)
                EXPECT_EQ(part.row(k)[l], full.W[rows[k] * n + l]) << what << " row " << rows[k];
          }
        }
      }
    }
  }
}

// A pencil of the boundary form whose real part has no positive definite M0 is refused by the
// secular path and solved by the general method, with the same accuracy; pencils that are not of
// the boundary form are recognized.
TEST(BlockPencilComplex, BoundaryFormFallsBack) {
  SymTridiag<C> A = random_tridiag<C>(9, 5), M = random_mass<C>(9, 6, false);
  EXPECT_FALSE(eigen_detail::has_boundary_form(A, M));
  for (SymTridiag<C>* t : {&A, &M}) {
    for (C& x : t->off) x = x.real();
    for (index_t k = 1; k + 1 < 9; ++k) t->diag[k] = t->diag[k].real();
  }
  M.diag[0] = C(-0.1, 2.0);  // real part negative: M0 is not positive definite
  ASSERT_TRUE(eigen_detail::has_boundary_form(A, M));
  BlockEigen<C> direct;
  EXPECT_FALSE(eigen_detail::solve_boundary_pencil(A, M, {0, 8}, direct));
  check_pencil(A, M, "M0 indefinite");
}

template <class Scalar>
Factor<Scalar> uniform_factor(index_t n);
template <>
Factor<double> uniform_factor<double>(index_t n) {
  return testing::poisson_factor(testing::mesh_steps(n + 1, 1.0, 0.0, 1));
}
template <>
Factor<C> uniform_factor<C>(index_t n) {
  return testing::helmholtz_factor(testing::mesh_steps(n - 1, 1.0, 0.0, 1), 20.0);
}

template <class Scalar>
class EigenDataTest : public ::testing::Test {};
TYPED_TEST_SUITE(EigenDataTest, testing::ScalarTypes);

TYPED_TEST(EigenDataTest, EveryBlockMatchesItsPencilAndIdenticalBlocksShare) {
  using Scalar = TypeParam;
  for (index_t n : {2, 3, 4, 5, 15, 16, 17, 63, 64, 65, 255, 300}) {
    SCOPED_TRACE("n " + std::to_string(n));
    const Factor<Scalar> f = uniform_factor<Scalar>(n);
    const Partition part(n);
    const EigenData<Scalar> data = compute_eigen_data(f, part);
    ASSERT_EQ(data.partition.size(), n);
    ASSERT_EQ(static_cast<int>(data.block_entry.size()), part.num_levels());
    std::vector<bool> referenced(data.distinct.size(), false);
    for (int i = 1; i <= part.num_levels(); ++i) {
      const auto& blocks = part.level(i).blocks;
      ASSERT_EQ(data.block_entry[i - 1].size(), blocks.size());
      for (std::size_t b = 0; b < blocks.size(); ++b) {
        const Block& blk = blocks[b];
        const BlockEigen<Scalar>& e = data.block(i, b);
        referenced[data.block_entry[i - 1][b]] = true;
        std::vector<index_t> rows = blk.component_rows;
        for (index_t& r : rows) r -= blk.first;
        EXPECT_EQ(e.rows, rows);
        const BlockEigen<Scalar> direct = solve_block_pencil(
            f.A.submatrix(blk.first, blk.last), f.M.submatrix(blk.first, blk.last), rows);
        EXPECT_EQ(e.lambda, direct.lambda);
        EXPECT_EQ(e.W, direct.W);
        // Identical blocks share: every earlier block with the same pencil has the same entry.
        for (std::size_t o = 0; o < b; ++o) {
          const Block& other = blocks[o];
          bool same = other.size() == blk.size() &&
                      other.component_rows.size() == blk.component_rows.size();
          for (std::size_t k = 0; same && k < rows.size(); ++k)
            same = other.component_rows[k] - other.first == rows[k];
          for (index_t k = 0; same && k < blk.size(); ++k)
            same = f.A.diag[other.first + k] == f.A.diag[blk.first + k] &&
                   f.M.diag[other.first + k] == f.M.diag[blk.first + k] &&
                   (k + 1 == blk.size() || (f.A.off[other.first + k] == f.A.off[blk.first + k] &&
                                            f.M.off[other.first + k] == f.M.off[blk.first + k]));
          EXPECT_EQ(same, data.block_entry[i - 1][o] == data.block_entry[i - 1][b])
              << "level " << i << " blocks " << o << ", " << b;
        }
      }
    }
    EXPECT_TRUE(std::all_of(referenced.begin(), referenced.end(), [](bool x) { return x; }));
  }
}

TEST(EigenData, UniformPoissonHasOneEntryPerLevelAndShape) {
  // n = 255 = 4^4 − 1: every level has identical full blocks, so one entry per level.
  const EigenData<double> data = compute_eigen_data(uniform_factor<double>(255), Partition(255));
  EXPECT_EQ(data.distinct.size(), 4u);
}

TEST(EigenData, RejectsMismatchedSizes) {
  EXPECT_THROW(compute_eigen_data(uniform_factor<double>(17), Partition(16)), InputError);
}

}  // namespace
}  // namespace pscr
