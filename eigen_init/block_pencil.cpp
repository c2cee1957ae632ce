// One block pencil (A, M), both symmetric tridiagonal (plain transpose when complex), in O(m²)
// work and O(|rows|·m) memory. myllykoski2018 §4.2 also reduces with Crawford's algorithm.
//
// Real (M positive definite): Crawford's reduction to C = Xᵀ A X tridiagonal, Xᵀ M X = I
// (reduction.hpp), then divide and conquer C = Q Λ Qᵀ (divide_conquer.hpp); both multiply the
// asked-for rows of X from the right, so W = (X Q) restricted to those rows, M-orthonormal to
// working accuracy however close the eigenvalues are.
//
// Complex symmetric: Crawford's reduction with complex orthogonal rotations and implicit QL
// give the eigenvalues; the eigenvectors come from inverse iteration on the pencil itself
// (inverse_iteration.hpp), which also refines the eigenvalues. A complex pencil whose entries
// are all real takes the real path.
#include <algorithm>
#include <cmath>
#include <complex>
#include <numeric>
#include <sstream>

#include "common/error.hpp"
#include "eigen_init/divide_conquer.hpp"
#include "eigen_init/eigen_init.hpp"
#include "eigen_init/inverse_iteration.hpp"
#include "eigen_init/reduction.hpp"

namespace pscr {

namespace {

BlockEigen<double> solve_real(const SymTridiag<double>& A, const SymTridiag<double>& M,
                              const std::vector<index_t>& rows) {
  std::vector<double> d, e, Z;
  eigen_detail::crawford_reduce(A, M, rows, d, e, Z);
  eigen_detail::divide_conquer(d, e, Z, static_cast<index_t>(rows.size()));
  for (double x : d)
    if (!std::isfinite(x))
      throw SolverError("eigen_init: non-finite eigenvalue in a real block of size " +
                        std::to_string(d.size()));
  BlockEigen<double> out;
  out.lambda = std::move(d);
  out.rows = rows;
  out.W = std::move(Z);
  return out;
}

using C = std::complex<double>;

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
  std::vector<C> d, e, none;
  eigen_detail::crawford_reduce(A, M, {}, d, e, none);
  eigen_detail::implicit_ql(d, e, none, 0);
  for (const C& x : d)
    if (!std::isfinite(x.real()) || !std::isfinite(x.imag()))
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
  if constexpr (is_complex_v<Scalar>) {
    return solve_complex(A, M, rows);
  } else {
    return solve_real(A, M, rows);
  }
}

#define PSCR_INSTANTIATE(Scalar)                  \
  template BlockEigen<Scalar> solve_block_pencil( \
      const SymTridiag<Scalar>& A, const SymTridiag<Scalar>& M, const std::vector<index_t>& rows);
PSCR_FOR_EACH_SCALAR(PSCR_INSTANTIATE)
#undef PSCR_INSTANTIATE

}  // namespace pscr
