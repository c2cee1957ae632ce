#include "pscr/fd/calls.hpp"

#include <limits>

#include "common/error.hpp"

namespace pscr::fd {

namespace {

int to_int(index_t v, const char* what) {
  if (v < 1 || v > std::numeric_limits<int>::max())
    PSCR_INPUT_ERROR("fast diagonalization: expected " << what << " in [1, "
                                                       << std::numeric_limits<int>::max()
                                                       << "] for cuBLAS, found " << v);
  return static_cast<int>(v);
}

}  // namespace

FdCalls fd_calls(const std::vector<index_t>& shape) {
  if (shape.size() != 2 && shape.size() != 3)
    PSCR_INPUT_ERROR("fast diagonalization: expected a 2D or 3D grid, found " << shape.size()
                                                                              << " dimensions");
  using A = FdArray;
  const FdOp N = FdOp::n, T = FdOp::t;
  FdCalls calls;
  const int n1 = to_int(shape[0], "n1");
  const int n2 = to_int(shape[1], "n2");
  if (shape.size() == 2) {
    // Forward: G(l, j) = Σ_i W(i, l) F[i][j]. op(A) = Wᵀ as stored; F's column-major view is
    // n2 × n1 (ld n2), its transpose is F[i][j] as (i, j). G column-major n1 × n2, ld n1.
    calls.forward.push_back({N, T, n1, n2, n1, A::wt1, n1, 0, A::f, n2, 0, A::work, n1, 0, 1});
    calls.systems = n1;
    calls.rows = n2;
    // Inverse: U[i][j] = Σ_l W(i, l) Y(l, j). U's column-major view (n2 × n1, ld n2) is
    // Yᵀ · (Wᵀ): op(A) = Yᵀ with Y stored n1 × n2 (ld n1), op(B) = Wᵀ as stored.
    calls.inverse.push_back({T, N, n2, n1, n1, A::work, n1, 0, A::wt1, n1, 0, A::u, n2, 0, 1});
    return calls;
  }
  const int n3 = to_int(shape[2], "n3");
  const int p = to_int(shape[1] * shape[2], "n2·n3");
  const int s = to_int(shape[0] * shape[1], "n1·n2");
  // H[l][·] = Σ_i W(i, l) F[i][·]: F's column-major view is p × n1 (ld p) and H = F·W, with
  // op(B) = W the transpose of the stored Wᵀ. H column-major p × n1 is C order (n1, n2, n3).
  calls.forward.push_back({N, T, p, n1, n1, A::f, p, 0, A::wt1, n1, 0, A::tmp, p, 0, 1});
  // For each l: G_l(m, k) = Σ_j V(j, m) H[l][j][k]. op(A) = Vᵀ as stored; H_l at tmp + l·p is
  // column-major n3 × n2 (ld n3), op(B) = H_lᵀ. G_l written at work + l·n2 with ld n1·n2:
  // (m, k) at l·n2 + m + k·n1·n2 (system s = l·n2 + m); the batches write disjoint elements.
  calls.forward.push_back({N, T, n2, n3, n2, A::wt2, n2, 0, A::tmp, n3, p, A::work, s, n2, n1});
  calls.systems = shape[0] * shape[1];
  calls.rows = n3;
  // For each l: H_l(k, j) = Σ_m Y_l(m, k) V(j, m): op(A) = Y_lᵀ with Y_l at work + l·n2 (ld n1·n2,
  // stored n2 × n3), op(B) = Vᵀ as stored; H_l column-major n3 × n2 at tmp + l·p.
  calls.inverse.push_back({T, N, n3, n2, n2, A::work, s, n2, A::wt2, n2, 0, A::tmp, n3, p, n1});
  // U[i][·] = Σ_l W(i, l) H[l][·]: U's column-major view p × n1 is H·Wᵀ, op(B) = Wᵀ as stored.
  calls.inverse.push_back({N, N, p, n1, n1, A::tmp, p, 0, A::wt1, n1, 0, A::u, p, 0, 1});
  return calls;
}

}  // namespace pscr::fd
