#pragma once
/// @file The GEMM calls of the GPU fast-diagonalization solve, as data: pscr::cuda::FdGpuSolver
/// executes them with cuBLAS, and the CPU test (tests/bench) executes the same list with a plain
/// column-major GEMM, so every transpose flag, leading dimension and batch stride is checked on CI,
/// without a GPU. Plain C++.
///
/// Arrays (column-major is cuBLAS's view, C order the grid's):
///   f, u   the grid, C order (n1, n2[, n3]);
///   wt1    n1 × n1, column-major Wᵀ: element (l, i) at l + i·n1 holds W(i, l) (FullEigen's
///          row-major W uploaded as it is); wt2 likewise for dimension 2 (3D, eigenvectors V);
///   2D work   G = Wᵀ F as column-major n1 × n2 (ld n1): system l, row r at l + r·n1;
///   3D tmp    H = (Wᵀ ⊗ I ⊗ I) F in C order (n1, n2, n3);
///   3D work   G = (Wᵀ ⊗ Vᵀ ⊗ I) F with system s = l·n2 + m, row k at s + k·n1·n2.
/// In both cases the tridiagonal systems are interleaved in `work`: system s, row r at
/// s + r·systems, which makes the one-thread-per-system Thomas kernel coalesced.

#include <vector>

#include "common/scalar.hpp"

namespace pscr::fd {

/// The arrays of one FD solve.
enum class FdArray { f, u, work, tmp, wt1, wt2 };
/// cuBLAS's op: none or plain transpose (never the conjugate transpose: complex symmetric).
enum class FdOp { n, t };

/// @brief C_b = op(A_b) · op(B_b) for b < batch (alpha = 1, beta = 0), column-major, with
/// X_b = X + b·sx (a stride of 0 shares one matrix). op(A) is m × k, op(B) k × n, C m × n.
struct GemmCall {
  FdOp ta, tb;
  int m, n, k;
  FdArray a;
  int lda;
  long long sa;
  FdArray b;
  int ldb;
  long long sb;
  FdArray c;
  int ldc;
  long long sc;
  int batch;
};

/// @brief The work of one solve, for the roofline: floating-point operations of the GEMMs (the
/// O(N·n) part; the O(N) tridiagonal work is not counted) and bytes that must cross device
/// memory at least once per pass (every GEMM reads its operands and writes its result once; the
/// Thomas kernel reads d, writes d' and cp, reads them back and writes x: 6 grid passes).
struct CostModel {
  double flops = 0;
  double bytes = 0;
};

/// @brief The whole solve: forward GEMMs, the tridiagonal stage, inverse GEMMs.
struct FdCalls {
  std::vector<GemmCall> forward;  ///< f → work (3D through tmp)
  index_t systems = 0;            ///< number of shifted systems (n1, or n1·n2)
  index_t rows = 0;               ///< their size (the last dimension)
  std::vector<GemmCall> inverse;  ///< work → u (3D through tmp)
};

/// @brief The calls for a grid of shape (n1, n2) or (n1, n2, n3). Throws InputError when a size
/// or leading dimension does not fit cuBLAS's int arguments.
FdCalls fd_calls(const std::vector<index_t>& shape);

}  // namespace pscr::fd
