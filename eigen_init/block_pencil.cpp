// One block pencil (A, M), both symmetric tridiagonal (plain transpose when complex), in O(m²)
// work and O(|rows|·m) memory. myllykoski2018 §4.2 also reduces with Crawford's algorithm.
//
// Real (M positive definite): Crawford's reduction to C = Xᵀ A X tridiagonal, Xᵀ M X = I
// (reduction.hpp), then divide and conquer C = Q Λ Qᵀ (divide_conquer.hpp); both multiply the
// asked-for rows of X from the right, so W = (X Q) restricted to those rows, M-orthonormal to
// working accuracy however close the eigenvalues are.
//
// Complex symmetric of the boundary form (real but for the diagonal entries of the first and last
// rows: absorbing ends): the real part by the real path, then a rank ≤ 2 secular equation
// (boundary_secular.hpp). Where that refuses, and for other complex pencils: Crawford's
// reduction with complex orthogonal rotations and implicit QL
// give the eigenvalues; the eigenvectors come from inverse iteration on the pencil itself
// (inverse_iteration.hpp), which also refines the eigenvalues. A complex pencil whose entries
// are all real takes the real path.
//
// Persymmetric pencils (uniform meshes) are first split into the pencils of their symmetric and
// antisymmetric eigenvectors, of half the size: half the work, and no deflation needed where
// divide and conquer would find none.
#include <algorithm>
#include <cmath>
#include <complex>
#include <numeric>
#include <sstream>

#include "common/error.hpp"
#include "eigen_init/boundary_secular.hpp"
#include "eigen_init/divide_conquer.hpp"
#include "eigen_init/eigen_init.hpp"
#include "eigen_init/inverse_iteration.hpp"
#include "eigen_init/reduction.hpp"
#include "eigen_init/tasks.hpp"

namespace pscr {

namespace {

BlockEigen<double> solve_real(const SymTridiag<double>& A, const SymTridiag<double>& M,
                              const std::vector<index_t>& rows) {
  std::vector<double> d, e, Z;
  eigen_detail::crawford_reduce(A, M, rows, d, e, Z);
  eigen_detail::divide_conquer(d, e, Z, static_cast<index_t>(rows.size()));
  for (double x : d)
    if (!is_finite(x))
      throw SolverError("eigen_init: non-finite eigenvalue in a real block of size " +
                        std::to_string(d.size()));
  BlockEigen<double> out;
  out.lambda = std::move(d);
  out.rows = rows;
  out.W = std::move(Z);
  return out;
}

using C = std::complex<double>;

template <class Scalar>
bool less_eigenvalue(const Scalar& a, const Scalar& b) {
  if constexpr (is_complex_v<Scalar>) {
    if (a.real() != b.real()) return a.real() < b.real();
    return a.imag() < b.imag();
  } else {
    return a < b;
  }
}

bool is_real(const SymTridiag<C>& t) {
  auto real = [](const C& x) { return x.imag() == 0; };
  return std::all_of(t.diag.begin(), t.diag.end(), real) &&
         std::all_of(t.off.begin(), t.off.end(), real);
}

SymTridiag<double> real_part(const SymTridiag<C>& t) {
  SymTridiag<double> r;
  for (const C& x : t.diag) r.diag.push_back(x.real());
  for (const C& x : t.off) r.off.push_back(x.real());
  return r;
}

BlockEigen<C> solve_complex(const SymTridiag<C>& A, const SymTridiag<C>& M,
                            const std::vector<index_t>& rows) {
  BlockEigen<C> out;
  if (is_real(A) && is_real(M)) {
    const BlockEigen<double> re = solve_real(real_part(A), real_part(M), rows);
    out.lambda.assign(re.lambda.begin(), re.lambda.end());
    out.rows = re.rows;
    out.W.assign(re.W.begin(), re.W.end());
    return out;
  }
  if (eigen_detail::has_boundary_form(A, M) && eigen_detail::solve_boundary_pencil(A, M, rows, out))
    return out;
  std::vector<C> d, e, none;
  eigen_detail::crawford_reduce(A, M, {}, d, e, none);
  eigen_detail::implicit_ql(d, e, none, 0);
  for (const C& x : d)
    if (!is_finite(x))
      throw SolverError("eigen_init: non-finite eigenvalue in a complex block of size " +
                        std::to_string(d.size()));
  std::stable_sort(d.begin(), d.end(), [](const C& x, const C& y) {
    if (x.real() != y.real()) return x.real() < y.real();
    return x.imag() < y.imag();
  });
  eigen_detail::inverse_iteration(A, M, d, rows, out.W);
  out.lambda = std::move(d);
  out.rows = rows;
  return out;
}

/// Pencils at least this large that are persymmetric (uniform meshes) are split in two.
constexpr index_t kPersymmetricSplit = 64;

template <class Scalar>
bool persymmetric(const SymTridiag<Scalar>& t) {
  const index_t m = t.size();
  for (index_t k = 0; k < m / 2; ++k)
    if (t.diag[k] != t.diag[m - 1 - k]) return false;
  for (index_t k = 0; k + 1 < m / 2 + 1 && k < m - 1; ++k)
    if (t.off[k] != t.off[m - 2 - k]) return false;
  return true;
}

template <class Scalar>
BlockEigen<Scalar> solve_any(const SymTridiag<Scalar>& A, const SymTridiag<Scalar>& M,
                             const std::vector<index_t>& rows);

/// A persymmetric pencil (J A J = A, J M J = M, J the reversal) has symmetric and antisymmetric
/// eigenvectors: w = S y with S = [(e_r ± e_{m−1−r})/√2 …, e_p for odd m, symmetric only], whose
/// pencils (Sᵀ A S, Sᵀ M S) have half the size, Sᵀ M S-orthonormal y giving M-orthonormal w.
/// Odd m = 2p+1: symmetric size p+1 with the coupling to the middle row times √2,
/// antisymmetric the leading p×p block. Even m = 2p: the leading p×p block with ±A(p−1, p)
/// added to its last diagonal entry.
template <class Scalar>
BlockEigen<Scalar> solve_persymmetric(const SymTridiag<Scalar>& A, const SymTridiag<Scalar>& M,
                                      const std::vector<index_t>& rows) {
  const index_t m = A.size(), p = m / 2;
  const bool odd = m % 2 == 1;
  const double root2 = std::sqrt(2.0);
  auto half = [&](const SymTridiag<Scalar>& t, int sign) {
    SymTridiag<Scalar> h;
    const index_t size = odd && sign > 0 ? p + 1 : p;
    h.diag.assign(t.diag.begin(), t.diag.begin() + size);
    h.off.assign(t.off.begin(), t.off.begin() + (size - 1));
    if (odd && sign > 0) {
      h.off[p - 1] *= Scalar(root2);
    } else if (!odd) {
      h.diag[p - 1] += Scalar(static_cast<double>(sign)) * t.off[p - 1];
    }
    return h;
  };
  // Rows of the half problems: r for r < p (and the middle), m−1−r for the mirrored ones.
  std::vector<index_t> half_rows;
  for (index_t r : rows) half_rows.push_back(r < m - 1 - r ? r : m - 1 - r);
  std::sort(half_rows.begin(), half_rows.end());
  half_rows.erase(std::unique(half_rows.begin(), half_rows.end()), half_rows.end());
  std::vector<index_t> anti_rows;
  for (index_t r : half_rows)
    if (r < p) anti_rows.push_back(r);
  BlockEigen<Scalar> sym, anti;
  eigen_detail::run_both(
      true, [&] { sym = solve_any(half(A, 1), half(M, 1), half_rows); },
      [&] { anti = solve_any(half(A, -1), half(M, -1), anti_rows); });

  // Merge the two spectra in order; components by the symmetry of each vector.
  BlockEigen<Scalar> out;
  out.rows = rows;
  out.lambda.resize(m);
  out.W.assign(rows.size() * m, Scalar{});
  const index_t ns = sym.size(), na = anti.size();
  auto position = [](const std::vector<index_t>& list, index_t r) {
    return static_cast<index_t>(std::lower_bound(list.begin(), list.end(), r) - list.begin());
  };
  index_t is = 0, ia = 0;
  const Scalar inv_root2 = Scalar(1 / root2);
  for (index_t l = 0; l < m; ++l) {
    const bool take_sym =
        ia == na || (is < ns && !less_eigenvalue(anti.lambda[ia], sym.lambda[is]));
    const BlockEigen<Scalar>& src = take_sym ? sym : anti;
    const index_t j = take_sym ? is++ : ia++;
    out.lambda[l] = src.lambda[j];
    for (std::size_t k = 0; k < rows.size(); ++k) {
      const index_t r = rows[k];
      const bool mirrored = r > m - 1 - r;
      const index_t h = mirrored ? m - 1 - r : r;
      Scalar value{};
      if (odd && h == p) {
        value = take_sym ? sym.row(position(half_rows, h))[j] : Scalar{};
      } else {
        const std::vector<index_t>& list = take_sym ? half_rows : anti_rows;
        value = src.row(position(list, h))[j] * inv_root2;
        if (mirrored && !take_sym) value = -value;
      }
      out.W[k * m + l] = value;
    }
  }
  return out;
}

template <class Scalar>
BlockEigen<Scalar> solve_any(const SymTridiag<Scalar>& A, const SymTridiag<Scalar>& M,
                             const std::vector<index_t>& rows) {
  if (A.size() >= kPersymmetricSplit && persymmetric(A) && persymmetric(M))
    return solve_persymmetric(A, M, rows);
  if constexpr (is_complex_v<Scalar>) {
    return solve_complex(A, M, rows);
  } else {
    return solve_real(A, M, rows);
  }
}

}  // namespace

template <class Scalar>
BlockEigen<Scalar> solve_block_pencil(const SymTridiag<Scalar>& A, const SymTridiag<Scalar>& M,
                                      const std::vector<index_t>& rows) {
  const index_t m = A.size();
  if (m < 1 || M.size() != m || static_cast<index_t>(A.off.size()) != m - 1 ||
      static_cast<index_t>(M.off.size()) != m - 1)
    PSCR_INPUT_ERROR(
        "solve_block_pencil: expected tridiagonal A and M of one size m >= 1, found "
        "sizes "
        << m << " and " << M.size());
  for (std::size_t k = 0; k < rows.size(); ++k)
    if (rows[k] < 0 || rows[k] >= m || (k > 0 && rows[k] <= rows[k - 1]))
      PSCR_INPUT_ERROR("solve_block_pencil: expected ascending rows in [0, "
                       << m << "), found row " << rows[k] << " at position " << k);
  return solve_any(A, M, rows);
}

#define PSCR_INSTANTIATE(Scalar)                  \
  template BlockEigen<Scalar> solve_block_pencil( \
      const SymTridiag<Scalar>& A, const SymTridiag<Scalar>& M, const std::vector<index_t>& rows);
PSCR_FOR_EACH_SCALAR(PSCR_INSTANTIATE)
#undef PSCR_INSTANTIATE

}  // namespace pscr
