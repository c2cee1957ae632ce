#pragma once
/// @file The Thomas algorithm for one shifted symmetric tridiagonal system [A + σ M] x = d, the
/// level-3 step of the fast-diagonalization method. One function serves the CPU path
/// (setup.cpp, std::complex) and the GPU kernel (pscr/cuda/fd_solver.cu, cuda::std::complex), so
/// both do the same arithmetic in the same order (host_device.hpp).

#include "pscr/fd/host_device.hpp"

namespace pscr::fd {

/// @brief Solves [A + shift·M] x = d in place (LU without pivoting, O(n)).
///
/// A and M are symmetric tridiagonal of size n ≥ 1: `a_diag`, `m_diag` hold n entries, `a_off`,
/// `m_off` hold n − 1 (off[r] = T(r, r+1) = T(r+1, r)); they are not read beyond that. Row r of the
/// system is at `d[r * stride]` (right-hand side in, solution out); `cp` is scratch for the n − 1
/// eliminated super-diagonal entries, with the same layout. Stable for the symmetric positive
/// definite Poisson systems; no pivoting, so the indefinite Helmholtz ones may lose accuracy.
template <class T, class Index>
PSCR_FD_HD inline void thomas_shifted(Index n, const T* a_diag, const T* a_off, const T* m_diag,
                                      const T* m_off, T shift, T* d, T* cp, Index stride) {
  // Forward elimination: cp_r = c_r / b'_r, d'_r = (d_r − a_r d'_{r−1}) / b'_r with
  // b'_r = b_r − a_r cp_{r−1}; the sub-diagonal a_r of row r is the super-diagonal c_{r−1}.
  T inv = T(1) / (a_diag[0] + shift * m_diag[0]);
  T dp = d[0] * inv;
  d[0] = dp;
  T sup = T(0);
  T cprev = T(0);
  if (n > 1) {
    sup = a_off[0] + shift * m_off[0];
    cprev = sup * inv;
    cp[0] = cprev;
  }
  for (Index r = 1; r < n; ++r) {
    const T sub = sup;
    inv = T(1) / (a_diag[r] + shift * m_diag[r] - sub * cprev);
    dp = (d[r * stride] - sub * dp) * inv;
    d[r * stride] = dp;
    if (r + 1 < n) {
      sup = a_off[r] + shift * m_off[r];
      cprev = sup * inv;
      cp[r * stride] = cprev;
    }
  }
  // Back substitution: x_{n−1} = d'_{n−1}, x_r = d'_r − cp_r x_{r+1}.
  T x = dp;
  for (Index r = n - 2; r >= 0; --r) {
    x = d[r * stride] - cp[r * stride] * x;
    d[r * stride] = x;
  }
}

}  // namespace pscr::fd
