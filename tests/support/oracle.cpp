#include "tests/support/oracle.hpp"

#include <Eigen/SparseLU>

#include "common/error.hpp"

namespace pscr::testing {

template <class Scalar>
Eigen::SparseMatrix<Scalar> assemble(const SeparableOperator<Scalar>& op) {
  const auto shape = op.shape();
  const int d = op.dimension();
  const index_t n = op.grid_size();
  const auto& f = op.factors();
  std::vector<Eigen::Triplet<Scalar>> triplets;
  // Multi-index of a linear C-order index.
  auto split = [&](index_t k, index_t* idx) {
    for (int e = d - 1; e >= 0; --e) {
      idx[e] = k % shape[e];
      k /= shape[e];
    }
  };
  // Entry A(row, col) = Σ_terms Π_e T_e(i_e, j_e), with the terms of DESIGN.md §1.
  for (index_t row = 0; row < n; ++row) {
    index_t i[3];
    split(row, i);
    // Columns differ from the row by at most one in every index: 3^d candidates.
    const int candidates = d == 2 ? 9 : 27;
    for (int c = 0; c < candidates; ++c) {
      index_t j[3];
      int code = c;
      bool inside = true;
      for (int e = d - 1; e >= 0; --e) {
        j[e] = i[e] + (code % 3) - 1;
        code /= 3;
        inside = inside && j[e] >= 0 && j[e] < shape[e];
      }
      if (!inside) continue;
      Scalar mass = Scalar(1);
      for (int e = 0; e < d; ++e) mass *= f[e].M(i[e], j[e]);
      Scalar value = op.c() * mass;
      for (int s = 0; s < d; ++s) {
        Scalar term = Scalar(1);
        for (int e = 0; e < d; ++e) term *= (e == s ? f[e].A(i[e], j[e]) : f[e].M(i[e], j[e]));
        value += term;
      }
      index_t col = 0;
      for (int e = 0; e < d; ++e) col = col * shape[e] + j[e];
      if (value != Scalar(0)) triplets.emplace_back(row, col, value);
    }
  }
  Eigen::SparseMatrix<Scalar> a(n, n);
  a.setFromTriplets(triplets.begin(), triplets.end());
  return a;
}

template <class Scalar>
std::vector<Scalar> sparse_lu_solve(const SeparableOperator<Scalar>& op, const Scalar* f) {
  const Eigen::SparseMatrix<Scalar> a = assemble(op);
  Eigen::SparseLU<Eigen::SparseMatrix<Scalar>> lu;
  lu.compute(a);
  if (lu.info() != Eigen::Success)
    throw SolverError("SparseLU: factorization failed: " + lu.lastErrorMessage());
  const index_t n = op.grid_size();
  Eigen::Map<const Eigen::Matrix<Scalar, Eigen::Dynamic, 1>> rhs(f, n);
  Eigen::Matrix<Scalar, Eigen::Dynamic, 1> x = lu.solve(rhs);
  if (lu.info() != Eigen::Success) throw SolverError("SparseLU: solve failed");
  return std::vector<Scalar>(x.data(), x.data() + n);
}

#define PSCR_INSTANTIATE_ORACLE(S)                                          \
  template Eigen::SparseMatrix<S> assemble<S>(const SeparableOperator<S>&); \
  template std::vector<S> sparse_lu_solve<S>(const SeparableOperator<S>&, const S*);
PSCR_FOR_EACH_SCALAR(PSCR_INSTANTIATE_ORACLE)

}  // namespace pscr::testing
