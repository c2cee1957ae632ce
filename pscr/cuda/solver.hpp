#pragma once
/// @file The GPU backend of radix-4 PSCR (DESIGN.md §2–3, myllykoski2018 §4): the twin of
/// pscr::reference::Solver, same algorithm and the same names in namespace pscr::cuda, for the 2D
/// and 3D separable operators of pscr/operator.hpp, real and complex. Host C++ (no CUDA syntax).
///
/// A Solver is a plan built once from a SeparableOperator: the eigen-data are computed on the CPU
/// (eigen_init), or given (e.g. read from an eigen-data file), and uploaded, and ALL device memory
/// the solves need is allocated in the constructor and reused by every solve; a solve allocates
/// nothing.
///
/// Layout of f and u (host or device): C order, shape (n1, n2[, n3]), the last index fastest;
/// several right-hand sides one grid after another, shape (nrhs, n1, n2[, n3]).
///
/// Right-hand sides are solved in rounds of up to rhs_per_round() grids at once (all blocks,
/// eigenvalues and, in 3D, inner 2D problems of a stage of all grids of a round go into one
/// batched launch). The constructor checks the free device memory first: it throws SolverError
/// naming the bytes needed and the bytes free when not even one right-hand side fits, and
/// otherwise lowers the round size until the plan fits.
///
/// Singular problems (pure Neumann with c = 0) are solved in the mean-zero sense of
/// pscr::reference::Solver (see its file comment): f is projected onto range(A) and the solution
/// of zero mean (eᵀ M u = 0) is returned.
///
/// Iterative refinement as in pscr::reference::Solver: after the PSCR solve of a host solve, the
/// relative residual ‖f − A u‖₂/‖f‖₂ of every grid is computed on the device (one fused pass)
/// and, while it exceeds refine_tolerance, at most max_refinements times, u += PSCR(f − A u).
/// Device solves never wait for the host, so they cannot decide on a residual: they do
/// device_refinements steps unconditionally (default none).
///
/// Shifted tridiagonal systems are solved by tridiag::cuda: without pivoting where that is stable,
/// with scaled partial pivoting elsewhere (SolverOptions::pivoting). Zero pivots are not detected
/// on the GPU: a singular shifted system gives non-finite values in u; the host solves check
/// the result and throw SolverError then, the device solves leave that check to the caller.
///
/// Method (SolverOptions::method): radix-4 PSCR, or dense fast diagonalization (FD,
/// pscr/cuda/fd_solver.hpp: eigenvectors of dimensions 1..d−1 computed on the CPU with LAPACK,
/// cuBLAS GEMMs and batched Thomas solves on the GPU), or automatic: the rule of
/// pscr/fd/choice.hpp (FD for non-singular 3D problems whose FD plan fits in device memory and
/// whose estimated CPU setup is within fd_setup_budget_s, unless an option only PSCR honors is
/// set: rhs_per_round, device_refinements, profile, pivoting, fusion; PSCR otherwise), then FD only
/// when its setup is certified (fd::certify: ‖Wᵀ M W − I‖max and the eigenpairs' backward errors at
/// most 1e-12, and every shifted tridiagonal system passes the CPU backend's growth monitor for LU
/// without pivoting), PSCR when not or when the setup throws. What FD guarantees, then: the
/// transforms are inverse to each other to the certificate's 1e-12 and every Thomas solve is
/// backward stable to about (1 + 2·100)·eps per row; the error of u is that backward error times
/// the problem's condition, as for PSCR. Host solves with FD measure the residual on the device
/// and refine as PSCR's do (max_refinements, refine_tolerance; FD corrections); device solves do
/// not (device_refinements is an option only PSCR honors). FD solves one right-hand side at a time
/// (rhs_per_round() = 1) and does not handle singular problems (requesting it for one throws
/// InputError).
///
/// One solve at a time per plan: a solve on one stream waits (on the device, not the host) for
/// the previous solve of the same plan on any stream.

#include <cuda_runtime_api.h>

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "common/scalar.hpp"
#include "eigen_init/eigen_data.hpp"
#include "pscr/fd/choice.hpp"
#include "pscr/operator.hpp"

namespace pscr::cuda {

/// @brief How the shifted tridiagonal systems (A + s M) x = d are solved.
enum class Pivoting {
  /// Without pivoting, except the systems whose LU factorization without pivoting grows by more
  /// than the CPU backend's limit (checked for every shift once, when the plan is built): those
  /// are solved again with scaled partial pivoting.
  automatic,
  never,   ///< always without pivoting (tridiag::cuda::solve_shifted)
  always,  ///< always scaled partial pivoting (tridiag::cuda::solve_shifted_pivoting)
};

/// @brief Whether a level's right-hand sides, tridiagonal solves and sums run fused, so that the
/// shifted systems never reach device memory: in shared memory for tridiagonal dimensions
/// n ≤ 64 (fused.cuh), in registers from n = 2047 (the segment stage, segment_stage.cuh). Only
/// stages that need no pivoting and hold no singular lane run fused.
enum class StageFusion {
  /// Where that measured faster on this GPU: in shared memory real systems of n ≤ 64, complex
  /// ones of n ≤ 41; the segment stage for real systems from 4095 rows, complex ones from 2047
  /// rows on an H100 and never on an H200 (block_stage_pays and segment_stage_pays in
  /// pscr/cuda/stage_fusion.hpp say why).
  automatic,
  always,  ///< wherever the fused stages apply (n ≤ 64, n ≥ 2047)
  never,   ///< separate launches for every stage
};

/// @brief Options of the GPU solver.
struct SolverOptions {
  /// PSCR, fast diagonalization or the automatic choice (see the file comment).
  SolverMethod method = SolverMethod::automatic;
  /// The automatic choice takes FD only when its CPU setup is estimated at most this many seconds
  /// (fd::fd_setup_seconds; 5 s admits 361³ Helmholtz and any real lumped-mass 3D problem that
  /// fits in memory; measured 2.75 s and 0.04 s on the H200 host). 0: never FD automatically.
  double fd_setup_budget_s = 5.0;
  Pivoting pivoting = Pivoting::automatic;
  /// Right-hand sides solved together in one round; 0: automatic (as many as fit in about 2^24
  /// grid values, at most 16). Lowered when device memory does not suffice.
  index_t rhs_per_round = 0;
  /// Iterative refinement of host solves (see the file comment; the CPU backend's defaults).
  int max_refinements = 2;
  double refine_tolerance = 1e-10;
  /// Refinement steps of every device solve, done without looking at the residual.
  int device_refinements = 0;
  /// Allocate device buffers for f and u of one round, for solve() and solve_many(); false for
  /// programs that only call solve_device (saves two grids per round; host solves then throw
  /// InputError).
  bool host_buffers = true;
  /// Where a level's stages run fused (StageFusion).
  StageFusion fusion = StageFusion::automatic;
  /// Time every stage with CUDA events (SolveStats::stages); host solves only. Costs a little.
  bool profile = false;
};

/// @brief Device time (milliseconds, CUDA events) spent in each kind of stage, over all levels.
struct StageTimes {
  double rhs_ms = 0;      ///< right-hand sides of the shifted systems (lx_stage_11/21)
  double tridiag_ms = 0;  ///< batched shifted tridiagonal solves (level 3, tridiag::cuda)
  double sum_ms = 0;      ///< weighted sums of the solutions and their combination (12a/22a/y2b)
  double update_ms = 0;   ///< updates of the reduced right-hand sides (12c)
  double fused_ms = 0;    ///< right-hand sides, tridiagonal solves and sums in one kernel
  double refine_ms = 0;   ///< iterative refinement: residuals, their norms, corrections
  double other_ms = 0;    ///< everything else (mean-zero projection, pivoting fixes)
};

/// @brief What the last host solve did.
struct SolveStats {
  double seconds = 0;       ///< wall time of the call, transfers included
  double solve_ms = 0;      ///< device time of the solves, transfers excluded (CUDA events)
  double upload_ms = 0;     ///< host → device transfer of f
  double download_ms = 0;   ///< device → host transfer of u
  double flops = 0;         ///< real flops of the solves (a complex operation counts as 4)
  double bytes = 0;         ///< device memory traffic of the solves, counted at its floor
  index_t pivoted = 0;      ///< shifted tridiagonal systems solved with pivoting
  index_t refinements = 0;  ///< refinement steps, summed over right-hand sides
  /// Largest relative residual ‖f − A u‖₂/‖f‖₂ over the right-hand sides (of f̂ in the singular
  /// case), before the final mean-zero projection; NaN when not computed (max_refinements = 0).
  double residual = 0;
  double initial_residual = 0;  ///< the same before refinement: the residual of PSCR alone
  index_t right_hand_sides = 0;
  StageTimes stages;  ///< filled when SolverOptions::profile is set
};

/// @brief Radix-4 PSCR on the GPU for a SeparableOperator (2D or 3D), Scalar = double or
/// std::complex<double>.
template <class Scalar>
class Solver {
 public:
  /// @brief Builds the plan on the current CUDA device: partitions, eigen-data of dimension 1 (and
  /// 2 in 3D) computed on the CPU and uploaded, every work array allocated.
  /// Throws InputError for options out of range, SolverError when the eigen-data cannot be
  /// computed or the plan does not fit in the free device memory (the message says how much it
  /// needs and how much is free), LibraryError when a CUDA call fails.
  explicit Solver(const SeparableOperator<Scalar>& op, SolverOptions options = {});
  /// @brief Builds the plan from precomputed eigen-data in the order of
  /// pscr::reference::compute_plan_eigen_data (dimension 1, then 2 in 3D; e.g. from
  /// io::read_eigen_data or a solver's eigen_data()): nothing is computed on the CPU, and the
  /// solutions are bitwise those of the constructor that computes them. Throws InputError when
  /// the eigen-data do not fit op (pscr::reference::check_plan_eigen_data), otherwise as above.
  /// Given eigen-data make the plan PSCR's (SolverMethod::automatic runs PSCR; requesting
  /// fast_diagonalization throws InputError).
  /// (`options` has no default, so that `Solver(op, {})` stays the constructor above.)
  Solver(const SeparableOperator<Scalar>& op, std::vector<EigenData<Scalar>> eigen_data,
         SolverOptions options);
  ~Solver();
  Solver(Solver&&) noexcept;
  Solver& operator=(Solver&&) noexcept;
  Solver(const Solver&) = delete;
  Solver& operator=(const Solver&) = delete;

  /// @brief u = A⁻¹ f for one grid in host memory; u may alias f. Blocks until u is written.
  /// Throws SolverError when the solution is not finite (a singular shifted system).
  void solve(const Scalar* f, Scalar* u);

  /// @brief solve() for nrhs grids stored one after another in host memory.
  void solve_many(index_t nrhs, const Scalar* f, Scalar* u);

  /// @brief u = A⁻¹ f for nrhs grids in device memory, asynchronous on `stream` (the caller's;
  /// nullptr is the legacy default stream): no host synchronization, no allocation, no transfer.
  /// d_f is only read; d_u must not overlap d_f. last_solve() is not updated.
  void solve_device(cudaStream_t stream, index_t nrhs, const Scalar* d_f, Scalar* d_u);

  /// @brief The method this plan runs: SolverMethod::pscr or fast_diagonalization.
  SolverMethod method() const;
  /// @brief Why method() was chosen (the automatic rule's reason, or "requested"), with the FD
  /// certificate's measures where FD was set up.
  const std::string& method_reason() const;
  /// @brief Seconds spent building the plan (eigen-data when computed, uploads and allocations
  /// included).
  double init_seconds() const;
  /// @brief The eigen-data of the plan (host copy), dimension 1 first, then 2 in 3D (the order
  /// of io::write_eigen_data), to save them for later solvers. An FD plan (method()) computes
  /// them on the CPU at the first call.
  const std::vector<EigenData<Scalar>>& eigen_data() const;
  /// @brief Statistics of the last solve() or solve_many().
  const SolveStats& last_solve() const;
  /// @brief True when the operator is singular and the solves return the mean-zero solution.
  bool singular() const;
  /// @brief Right-hand sides solved together in one round.
  index_t rhs_per_round() const;
  /// @brief Device memory the plan holds, in bytes.
  std::size_t device_bytes() const;
  /// @brief Real flops and device memory traffic (floor, bytes) of solving one right-hand side.
  double flops_per_rhs() const;
  double bytes_per_rhs() const;
  const SeparableOperator<Scalar>& op() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace pscr::cuda
