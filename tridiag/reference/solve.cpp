// CPU reference solvers for batches of tridiagonal systems: Thomas and scaled partial pivoting,
// shifted (matrix formed on the fly) and general forms. See solve.hpp for the contracts.
#include "tridiag/reference/solve.hpp"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <sstream>

#include "common/error.hpp"

namespace pscr::tridiag::reference {
namespace {

/// Threads the next parallel region can use: 1 inside a region that cannot nest further.
index_t available_threads() {
  if (omp_get_active_level() >= omp_get_max_active_levels()) return 1;
  return std::max(1, omp_get_max_threads());
}

index_t thread_slots(index_t batch) {
  return std::max<index_t>(1, std::min(batch, available_threads()));
}

/// |re| + |im| (LAPACK's cabs1): the pivot-size measure, cheap and the same on the GPU.
template <class Scalar>
real_t<Scalar> abs1(const Scalar& z) {
  if constexpr (is_complex_v<Scalar>) {
    return std::abs(z.real()) + std::abs(z.imag());
  } else {
    return std::abs(z);
  }
}

/// Rows of A + s M for one shift: row r is off(r−1) x_{r−1} + diag(r) x_r + off(r) x_{r+1}.
template <class Scalar>
struct ShiftedRows {
  const Scalar* a_diag;
  const Scalar* a_off;
  const Scalar* m_diag;
  const Scalar* m_off;
  Scalar s;

  Scalar sub(index_t r) const { return a_off[r - 1] + s * m_off[r - 1]; }
  Scalar diag(index_t r) const { return a_diag[r] + s * m_diag[r]; }
  Scalar sup(index_t r) const { return a_off[r] + s * m_off[r]; }
};

/// Rows of one explicit system k: a (sub), b (diagonal), c (super) with one layout.
template <class Scalar>
struct GeneralRows {
  const Scalar* a;
  const Scalar* b;
  const Scalar* c;
  BatchLayout layout;
  index_t k;

  Scalar sub(index_t r) const { return a[layout.offset(k, r)]; }
  Scalar diag(index_t r) const { return b[layout.offset(k, r)]; }
  Scalar sup(index_t r) const { return c[layout.offset(k, r)]; }
};

/// Thomas algorithm on system k (LU without pivoting); `cp` holds n−1 scalars (the factors
/// c'_r = c_r / β_r). Returns the row of a zero pivot, or −1. In place when x aliases d: row r of
/// d is read before row r of x is written.
template <class Scalar, class Rows>
index_t thomas(index_t n, const Rows& m, const Scalar* d, BatchLayout dl, Scalar* x, BatchLayout xl,
               index_t k, Scalar* cp) {
  Scalar beta = m.diag(0);
  if (beta == Scalar(0)) return 0;
  Scalar inv = Scalar(1) / beta;
  Scalar prev = d[dl.offset(k, 0)] * inv;
  x[xl.offset(k, 0)] = prev;
  for (index_t r = 1; r < n; ++r) {
    // Forward elimination: β_r = b_r − a_r c'_{r−1}, d'_r = (d_r − a_r d'_{r−1}) / β_r.
    cp[r - 1] = m.sup(r - 1) * inv;
    const Scalar e = m.sub(r);
    beta = m.diag(r) - e * cp[r - 1];
    if (beta == Scalar(0)) return r;
    inv = Scalar(1) / beta;
    prev = (d[dl.offset(k, r)] - e * prev) * inv;
    x[xl.offset(k, r)] = prev;
  }
  // Back substitution: x_r = d'_r − c'_r x_{r+1}.
  for (index_t r = n - 2; r >= 0; --r) {
    prev = x[xl.offset(k, r)] - cp[r] * prev;
    x[xl.offset(k, r)] = prev;
  }
  return -1;
}

/// LU with scaled partial pivoting on system k, in the streaming form of LAPACK ?gtsv: at step i
/// the remaining row i (entries at columns i, i+1) and the original row i+1 compete for the
/// pivot; the one whose entry in column i is larger relative to the largest entry of its row
/// wins (RPTS, klein2021). U has three diagonals, stored in `work` (3n scalars):
/// u0 = diagonal, u1 = first, u2 = second super-diagonal. The transformed right-hand side lives
/// in x. Returns the row of a zero pivot (singular system), or −1.
template <class Scalar, class Rows>
index_t pivoting(index_t n, const Rows& m, const Scalar* d, BatchLayout dl, Scalar* x,
                 BatchLayout xl, index_t k, Scalar* work) {
  Scalar* u0 = work;
  Scalar* u1 = work + n;
  Scalar* u2 = work + 2 * n;
  const Scalar zero(0);
  Scalar cd = m.diag(0);                // remaining row i: column i
  Scalar cu = n > 1 ? m.sup(0) : zero;  // remaining row i: column i+1
  Scalar xi = d[dl.offset(k, 0)];       // its right-hand side
  for (index_t i = 0; i + 1 < n; ++i) {
    const Scalar l = m.sub(i + 1);                      // row i+1: column i
    Scalar nd = m.diag(i + 1);                          // row i+1: column i+1
    const Scalar nu = i + 2 < n ? m.sup(i + 1) : zero;  // row i+1: column i+2
    const Scalar nb = d[dl.offset(k, i + 1)];
    bool keep;
    if (cd == zero && l == zero) return i;
    if (cd == zero) {
      keep = false;
    } else if (l == zero) {
      keep = true;
    } else {
      // |cd| / max|row i| ≥ |l| / max|row i+1|, without divisions.
      const real_t<Scalar> s_i = std::max(abs1(cd), abs1(cu));
      const real_t<Scalar> s_n = std::max({abs1(l), abs1(nd), abs1(nu)});
      keep = abs1(cd) * s_n >= abs1(l) * s_i;
    }
    if (keep) {
      const Scalar f = l / cd;
      u0[i] = cd;
      u1[i] = cu;
      u2[i] = zero;
      x[xl.offset(k, i)] = xi;
      nd -= f * cu;
      xi = nb - f * xi;
      cd = nd;
      cu = nu;
    } else {
      // Interchange rows i and i+1, then eliminate column i from the old row i.
      const Scalar f = cd / l;
      u0[i] = l;
      u1[i] = nd;
      u2[i] = nu;
      x[xl.offset(k, i)] = nb;
      xi = xi - f * nb;
      cd = cu - f * nd;
      cu = -f * nu;
    }
  }
  if (cd == zero) return n - 1;
  u0[n - 1] = cd;
  // Back substitution with U: x_i = (y_i − u1_i x_{i+1} − u2_i x_{i+2}) / u0_i.
  Scalar x2 = zero;            // x_{i+2}
  Scalar x1 = xi / u0[n - 1];  // x_{i+1}
  x[xl.offset(k, n - 1)] = x1;
  for (index_t i = n - 2; i >= 0; --i) {
    const Scalar xv = (x[xl.offset(k, i)] - u1[i] * x1 - u2[i] * x2) / u0[i];
    x[xl.offset(k, i)] = xv;
    x2 = x1;
    x1 = xv;
  }
  return -1;
}

void check_layout(const BatchLayout& layout, index_t n, index_t batch, const char* what) {
  if ((n > 1 && layout.row_stride < 1) || (batch > 1 && layout.system_stride < 1) ||
      layout.row_stride < 0 || layout.system_stride < 0)
    PSCR_INPUT_ERROR("tridiag: " << what << " layout needs positive strides, found system_stride "
                                 << layout.system_stride << ", row_stride " << layout.row_stride);
}

void check_shape(index_t n, index_t batch) {
  if (n < 1) PSCR_INPUT_ERROR("tridiag: system size must be >= 1, got " << n);
  if (batch < 1) PSCR_INPUT_ERROR("tridiag: batch must be >= 1, got " << batch);
}

template <class Scalar>
void check_common(index_t n, index_t batch, const Scalar* d, BatchLayout d_layout, const Scalar* x,
                  BatchLayout x_layout, const Scalar* workspace, index_t workspace_count,
                  index_t per_system) {
  check_shape(n, batch);
  if (d == nullptr || x == nullptr) PSCR_INPUT_ERROR("tridiag: d and x must not be null");
  check_layout(d_layout, n, batch, "d");
  check_layout(x_layout, n, batch, "x");
  if (workspace_count < per_system || workspace == nullptr)
    PSCR_INPUT_ERROR("tridiag: workspace must hold at least " << per_system << " scalars, got "
                                                              << workspace_count);
}

template <class Scalar>
void check_shifted(const SymTridiag<Scalar>& A, const SymTridiag<Scalar>& M, const Scalar* shifts) {
  const index_t n = A.size();
  if (M.size() != n)
    PSCR_INPUT_ERROR("tridiag: A and M must have the same size, got " << n << " and " << M.size());
  if (n >= 1 &&
      (static_cast<index_t>(A.off.size()) != n - 1 || static_cast<index_t>(M.off.size()) != n - 1))
    PSCR_INPUT_ERROR("tridiag: off-diagonals of A and M must have "
                     << n - 1 << " entries, got " << A.off.size() << " and " << M.off.size());
  if (shifts == nullptr) PSCR_INPUT_ERROR("tridiag: shifts must not be null");
}

/// Runs solve(k, scratch) for every system, OpenMP-parallel with one scratch of `per_system`
/// scalars per thread; throws SolverError for the first system (lowest k) that hit a zero pivot.
template <class Scalar, class Solve>
void for_each_system(index_t batch, index_t per_system, Scalar* workspace, index_t workspace_count,
                     const char* method, Solve solve) {
  const index_t slots = std::min(thread_slots(batch), workspace_count / per_system);
  index_t failed_system = batch;
  index_t failed_row = -1;
#pragma omp parallel num_threads(static_cast <int>(slots)) if (slots > 1)
  {
    Scalar* scratch = workspace + omp_get_thread_num() * per_system;
#pragma omp for schedule(static)
    for (index_t k = 0; k < batch; ++k) {
      const index_t row = solve(k, scratch);
      if (row >= 0) {
#pragma omp critical(pscr_tridiag_failure)
        if (k < failed_system) {
          failed_system = k;
          failed_row = row;
        }
      }
    }
  }
  if (failed_row >= 0) {
    std::ostringstream msg;
    msg << "tridiag: " << method << " found a zero pivot in system " << failed_system << " at row "
        << failed_row << " (the system is singular or needs pivoting)";
    throw SolverError(msg.str());
  }
}

/// Whether every row of `rows` (n rows) has θ|diag| ≥ |sub| + |sup| and diag ≠ 0 (false on NaN).
template <class Rows>
bool rows_dominant(index_t n, const Rows& rows, double theta = 1.0) {
  for (index_t r = 0; r < n; ++r) {
    const double diag = std::abs(rows.diag(r));
    const double off =
        (r > 0 ? std::abs(rows.sub(r)) : 0.0) + (r + 1 < n ? std::abs(rows.sup(r)) : 0.0);
    if (!(theta * diag >= off && diag > 0)) return false;
  }
  return true;
}

/// Throws InputError unless the general form's coefficient arrays are all given.
template <class Scalar>
void check_coefficients(const Scalar* a, const Scalar* b, const Scalar* c) {
  if (a == nullptr || b == nullptr || c == nullptr)
    PSCR_INPUT_ERROR("tridiag: a, b and c must not be null");
}

}  // namespace

index_t workspace_size(index_t n, index_t batch) {
  return std::max<index_t>(n, 1) * thread_slots(batch);
}

index_t pivoting_workspace_size(index_t n, index_t batch) {
  return 3 * std::max<index_t>(n, 1) * thread_slots(batch);
}

template <class Scalar>
void solve_shifted(const SymTridiag<Scalar>& A, const SymTridiag<Scalar>& M, const Scalar* shifts,
                   index_t batch, const Scalar* d, BatchLayout d_layout, Scalar* x,
                   BatchLayout x_layout, Scalar* workspace, index_t workspace_count) {
  const index_t n = A.size();
  check_shifted(A, M, shifts);
  check_common(n, batch, d, d_layout, x, x_layout, workspace, workspace_count, n);
  for_each_system(batch, n, workspace, workspace_count, "Thomas", [&](index_t k, Scalar* cp) {
    const ShiftedRows<Scalar> rows{A.diag.data(), A.off.data(), M.diag.data(), M.off.data(),
                                   shifts[k]};
    return thomas(n, rows, d, d_layout, x, x_layout, k, cp);
  });
}

template <class Scalar>
void solve_general(index_t n, index_t batch, const Scalar* a, const Scalar* b, const Scalar* c,
                   const Scalar* d, BatchLayout d_layout, Scalar* x, BatchLayout x_layout,
                   Scalar* workspace, index_t workspace_count) {
  check_common(n, batch, d, d_layout, x, x_layout, workspace, workspace_count, n);
  check_coefficients(a, b, c);
  for_each_system(batch, n, workspace, workspace_count, "Thomas", [&](index_t k, Scalar* cp) {
    const GeneralRows<Scalar> rows{a, b, c, d_layout, k};
    return thomas(n, rows, d, d_layout, x, x_layout, k, cp);
  });
}

template <class Scalar>
void solve_shifted_pivoting(const SymTridiag<Scalar>& A, const SymTridiag<Scalar>& M,
                            const Scalar* shifts, index_t batch, const Scalar* d,
                            BatchLayout d_layout, Scalar* x, BatchLayout x_layout,
                            Scalar* workspace, index_t workspace_count) {
  const index_t n = A.size();
  check_shifted(A, M, shifts);
  check_common(n, batch, d, d_layout, x, x_layout, workspace, workspace_count, 3 * n);
  for_each_system(batch, 3 * n, workspace, workspace_count, "pivoting LU",
                  [&](index_t k, Scalar* work) {
                    const ShiftedRows<Scalar> rows{A.diag.data(), A.off.data(), M.diag.data(),
                                                   M.off.data(), shifts[k]};
                    return pivoting(n, rows, d, d_layout, x, x_layout, k, work);
                  });
}

template <class Scalar>
void solve_general_pivoting(index_t n, index_t batch, const Scalar* a, const Scalar* b,
                            const Scalar* c, const Scalar* d, BatchLayout d_layout, Scalar* x,
                            BatchLayout x_layout, Scalar* workspace, index_t workspace_count) {
  check_common(n, batch, d, d_layout, x, x_layout, workspace, workspace_count, 3 * n);
  check_coefficients(a, b, c);
  for_each_system(batch, 3 * n, workspace, workspace_count, "pivoting LU",
                  [&](index_t k, Scalar* work) {
                    const GeneralRows<Scalar> rows{a, b, c, d_layout, k};
                    return pivoting(n, rows, d, d_layout, x, x_layout, k, work);
                  });
}

template <class Scalar>
bool shifted_dominant(const SymTridiag<Scalar>& A, const SymTridiag<Scalar>& M,
                      const Scalar* shifts, index_t batch, double theta) {
  check_shifted(A, M, shifts);
  if (batch < 1) PSCR_INPUT_ERROR("tridiag: batch must be >= 1, got " << batch);
  if (!(theta > 0 && theta <= 1))
    PSCR_INPUT_ERROR("tridiag: the dominance bound theta must be in (0, 1], got " << theta);
  for (index_t k = 0; k < batch; ++k)
    if (!rows_dominant(A.size(),
                       ShiftedRows<Scalar>{A.diag.data(), A.off.data(), M.diag.data(), M.off.data(),
                                           shifts[k]},
                       theta))
      return false;
  return true;
}

template <class Scalar>
bool general_dominant(index_t n, index_t batch, const Scalar* a, const Scalar* b, const Scalar* c,
                      BatchLayout layout) {
  check_shape(n, batch);
  check_coefficients(a, b, c);
  check_layout(layout, n, batch, "a, b, c");
  for (index_t k = 0; k < batch; ++k)
    if (!rows_dominant(n, GeneralRows<Scalar>{a, b, c, layout, k})) return false;
  return true;
}

#define PSCR_INSTANTIATE(Scalar)                                                                   \
  template void solve_shifted<Scalar>(const SymTridiag<Scalar>&, const SymTridiag<Scalar>&,        \
                                      const Scalar*, index_t, const Scalar*, BatchLayout, Scalar*, \
                                      BatchLayout, Scalar*, index_t);                              \
  template void solve_general<Scalar>(index_t, index_t, const Scalar*, const Scalar*,              \
                                      const Scalar*, const Scalar*, BatchLayout, Scalar*,          \
                                      BatchLayout, Scalar*, index_t);                              \
  template void solve_shifted_pivoting<Scalar>(                                                    \
      const SymTridiag<Scalar>&, const SymTridiag<Scalar>&, const Scalar*, index_t, const Scalar*, \
      BatchLayout, Scalar*, BatchLayout, Scalar*, index_t);                                        \
  template void solve_general_pivoting<Scalar>(index_t, index_t, const Scalar*, const Scalar*,     \
                                               const Scalar*, const Scalar*, BatchLayout, Scalar*, \
                                               BatchLayout, Scalar*, index_t);                     \
  template bool shifted_dominant<Scalar>(const SymTridiag<Scalar>&, const SymTridiag<Scalar>&,     \
                                         const Scalar*, index_t, double);                          \
  template bool general_dominant<Scalar>(index_t, index_t, const Scalar*, const Scalar*,           \
                                         const Scalar*, BatchLayout);
PSCR_FOR_EACH_SCALAR(PSCR_INSTANTIATE)
#undef PSCR_INSTANTIATE

}  // namespace pscr::tridiag::reference
