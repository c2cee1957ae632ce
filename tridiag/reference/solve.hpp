#pragma once
/// @file CPU reference solvers for batches of tridiagonal systems (level 3 of PSCR, DESIGN.md §3).
/// They are the truth that the GPU solvers in tridiag/cuda are tested against, and the level-3
/// solvers of the CPU backend.
///
/// Two forms:
///   shifted: (A + s_k M) x_k = d_k, A and M symmetric tridiagonal (pscr::SymTridiag) shared by
///            the batch, one shift s_k per system; the matrix is formed on the fly;
///   general: explicit sub-diagonal a, diagonal b, super-diagonal c per system, row r of system k
///            reads a_r x_{r−1} + b_r x_r + c_r x_{r+1} = d_r (a_0 and c_{n−1} are never read).
/// Two methods each:
///   Thomas (`solve_shifted`, `solve_general`): LU without pivoting; stable for diagonally
///            dominant or symmetric positive definite systems, may lose accuracy on indefinite
///            ones (Helmholtz shifts);
///   pivoting (`solve_shifted_pivoting`, `solve_general_pivoting`): LU with scaled partial
///            pivoting (row interchanges as LAPACK ?gtsv, pivot chosen relative to the size of
///            its row as in RPTS, klein2021), stable for any non-singular system, O(n).
///
/// Layouts: element (system k, row r) of d, x (and of a, b, c in the general form) is at
/// `layout.offset(k, r)` (tridiag/layout.hpp); d and x have their own layouts, the general form's
/// a, b, c share d's. Distinct (k, r) must map to distinct elements of x.
///
/// In place: x may alias d (same pointer) when both layouts are equal; any other overlap of x
/// with an input is not supported.
///
/// Workspace: owned by the caller, sized by `workspace_size` / `pivoting_workspace_size`. The
/// solvers run OpenMP-parallel over systems with at most
/// `min(omp_get_max_threads(), batch, workspace_count / per-system scratch)` threads, so a
/// smaller workspace (at least one system's scratch) only means fewer threads. Results do not
/// depend on the thread count: every system is solved by one thread in a fixed order.
///
/// Errors: InputError for inconsistent sizes, null pointers, non-positive strides or a too small
/// workspace; SolverError when a pivot is exactly zero (a singular system, e.g. a shift equal to
/// an eigenvalue), naming the first such system found.

#include "common/scalar.hpp"
#include "pscr/operator.hpp"
#include "tridiag/layout.hpp"

namespace pscr::tridiag::reference {

/// @brief Scalars of workspace that `solve_shifted` / `solve_general` use at most for systems of
/// size n in a batch of `batch`: n per thread (the Thomas super-diagonal factors).
index_t workspace_size(index_t n, index_t batch);

/// @brief Scalars of workspace that the pivoting solvers use at most: 3n per thread (the three
/// diagonals of U in the factorization P A = L U).
index_t pivoting_workspace_size(index_t n, index_t batch);

/// @brief Thomas algorithm for (A + s_k M) x_k = d_k, k = 0..batch−1.
/// @param A, M            shared n×n symmetric tridiagonal matrices (n = A.size() ≥ 1)
/// @param shifts          `batch` shifts s_k
/// @param d, d_layout     right-hand sides
/// @param x, x_layout     solutions (may alias d when x_layout equals d_layout)
/// @param workspace       `workspace_count` ≥ n scalars, see workspace_size()
template <class Scalar>
void solve_shifted(const SymTridiag<Scalar>& A, const SymTridiag<Scalar>& M, const Scalar* shifts,
                   index_t batch, const Scalar* d, BatchLayout d_layout, Scalar* x,
                   BatchLayout x_layout, Scalar* workspace, index_t workspace_count);

/// @brief Thomas algorithm for general systems: a (sub), b (diagonal), c (super), d, all with
/// d_layout; a at row 0 and c at row n−1 are not read.
template <class Scalar>
void solve_general(index_t n, index_t batch, const Scalar* a, const Scalar* b, const Scalar* c,
                   const Scalar* d, BatchLayout d_layout, Scalar* x, BatchLayout x_layout,
                   Scalar* workspace, index_t workspace_count);

/// @brief Scaled partial pivoting for (A + s_k M) x_k = d_k; arguments as solve_shifted, with
/// `workspace_count` ≥ 3n (pivoting_workspace_size()).
template <class Scalar>
void solve_shifted_pivoting(const SymTridiag<Scalar>& A, const SymTridiag<Scalar>& M,
                            const Scalar* shifts, index_t batch, const Scalar* d,
                            BatchLayout d_layout, Scalar* x, BatchLayout x_layout,
                            Scalar* workspace, index_t workspace_count);

/// @brief Scaled partial pivoting for general systems; arguments as solve_general, with
/// `workspace_count` ≥ 3n (pivoting_workspace_size()).
template <class Scalar>
void solve_general_pivoting(index_t n, index_t batch, const Scalar* a, const Scalar* b,
                            const Scalar* c, const Scalar* d, BatchLayout d_layout, Scalar* x,
                            BatchLayout x_layout, Scalar* workspace, index_t workspace_count);

/// @brief Whether every system A + s_k M (k = 0..batch−1) is diagonally dominant by rows:
/// θ|A(r,r) + s_k M(r,r)| ≥ |A(r,r−1) + s_k M(r,r−1)| + |A(r,r+1) + s_k M(r,r+1)| on every row
/// r, in complex modulus, and no zero diagonal entry. With θ = 1 (dominance) such systems, where
/// non-singular, are solved stably without pivoting in any order of elimination
/// (tridiag::cuda::Options::dominant); weak dominance admits singular ones (the pure Neumann
/// Laplacian), which no solver here solves. With θ = tridiag::cuda::window_theta() it is the
/// window method's bound (Options::window_bound), on the host. O(n·batch), stops at the first
/// row that fails. Throws InputError for inconsistent A, M or null shifts (as solve_shifted), or
/// θ outside (0, 1].
template <class Scalar>
bool shifted_dominant(const SymTridiag<Scalar>& A, const SymTridiag<Scalar>& M,
                      const Scalar* shifts, index_t batch, double theta = 1.0);

/// @brief Whether every general system (a, b, c with `layout`, as solve_general) is diagonally
/// dominant by rows: |b_r| ≥ |a_r| + |c_r| and b_r ≠ 0 (a_0 and c_{n−1} not read; see
/// shifted_dominant). Throws InputError for
/// n < 1, batch < 1, null arrays or a layout without positive strides.
template <class Scalar>
bool general_dominant(index_t n, index_t batch, const Scalar* a, const Scalar* b, const Scalar* c,
                      BatchLayout layout);

}  // namespace pscr::tridiag::reference
