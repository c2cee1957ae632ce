#pragma once
/// @file Which method the GPU solver runs (pscr/cuda/solver.hpp, SolverOptions::method): PSCR or
/// dense fast diagonalization (FD, pscr/fd/setup.hpp), and the automatic choice between them as
/// a pure function of sizes, device memory and the setup budget, so that it is tested on the CPU.
///
/// The automatic rule (issue 6; numbers from bench/results/peers-h200.csv and pscr-gpu-h200.csv,
/// one H200, random meshes):
/// - 2D: PSCR. FD is faster only for 2D Poisson up to n = 1024 and by at most 0.25 ms
///   (0.66 vs 0.91 ms at 1024²), slower from n = 2048 (2.34 vs 1.91 ms) and for 2D Helmholtz at
///   every n ≥ 255 (2.12 vs 1.06 ms at 1023²), and its complex setup is O(n³) (44 s at n = 1023).
/// - 3D: FD, which is 10–15× faster at every measured size (511³ Poisson 15.6 vs 228 ms, 361³
///   Helmholtz 15.9 vs 170 ms), when all of these hold:
///   no option that only PSCR honors is set (an explicit round size, device refinement steps,
///   stage profiling, a pivoting mode other than automatic, a stage fusion other than automatic),
///   the operator is not the singular pure-Neumann one (c = 0 and every A_d singular: FD has no
///   mean-zero handling), the FD plan fits in 90% of the free device memory (fd_device_bytes),
///   every size fits cuBLAS's int arguments, and the estimated CPU setup (fd_setup_seconds) is at
///   most the budget (SolverOptions::fd_setup_budget_s, default 5 s: it admits 361³ Helmholtz, 2.75
///   s measured, and rejects 511³ Helmholtz, 8.76 s measured).
/// The solver then builds the FD setup and certifies it (fd::certify); an uncertified setup
/// falls back to PSCR (automatic) or throws (fast_diagonalization requested).

#include <cstddef>
#include <string>
#include <vector>

#include "common/scalar.hpp"

namespace pscr {

/// @brief The method of the GPU solver.
enum class SolverMethod {
  pscr,                  ///< radix-4 PSCR (myllykoski2018)
  fast_diagonalization,  ///< dense eigenvectors of dimensions 1..d−1, GEMMs and Thomas
  automatic,             ///< FD where choose_method() says so, PSCR otherwise
};

/// @brief "pscr", "fast_diagonalization" or "automatic".
const char* to_string(SolverMethod method);

namespace fd {

/// @brief Bytes of the cuBLAS workspace an FD plan owns (NVIDIA's recommendation for Hopper), so
/// that cuBLAS allocates nothing during solves.
inline constexpr std::size_t kCublasWorkspaceBytes = std::size_t{32} << 20;

/// @brief Estimated CPU seconds of the FD setup (fd_setup and certify) of a grid `shape`;
/// `dense[d]` says whether dimension d (d < dimension − 1) needs a dense O(n³) eigensolver
/// (complex, or real with a non-diagonal M) rather than dstemr (O(n²)). Model fitted to
/// bench/results/peers-h200.log (see choice.cpp).
double fd_setup_seconds(const std::vector<index_t>& shape, const std::vector<bool>& dense);

/// @brief Device bytes of an FD plan: FdGpuSolver::device_bytes (two work grids, the n_d²
/// eigenvector matrices, last factors, shifts, the cuBLAS workspace, a flag) plus `host_grids`
/// grids of host solves (fd_host_grids). In scalars: (2 + host_grids)·N + n1² [+ n2²]
/// + 4(n_last + 1) + systems, plus kCublasWorkspaceBytes.
std::size_t fd_device_bytes(const std::vector<index_t>& shape, std::size_t scalar_bytes,
                            index_t host_grids);

/// @brief Grids an FD plan allocates for host solves: none without host buffers; else f and u
/// staged, and, when host solves check their residual (max_refinements > 0), the residual, the
/// correction and DeviceOperator's two work grids.
inline index_t fd_host_grids(bool host_buffers, bool residual_checks) {
  return host_buffers ? (residual_checks ? 6 : 2) : 0;
}

/// @brief Inputs of the automatic choice.
struct ChoiceInput {
  std::vector<index_t> shape;    ///< (n1, n2[, n3])
  std::vector<bool> dense;       ///< per transformed dimension (fd_setup_seconds)
  std::size_t scalar_bytes = 8;  ///< 8 (double) or 16 (complex)
  index_t host_grids = 2;        ///< grids of host solves (fd_host_grids)
  bool singular = false;         ///< pure Neumann with c = 0
  bool pscr_options = false;     ///< options only PSCR honors are set (see the file comment)
  std::size_t free_device_bytes = 0;
  double setup_budget_s = 5.0;
};

/// @brief The method to build, and why (for messages and `pscr solve`).
struct Choice {
  SolverMethod method = SolverMethod::pscr;
  std::string reason;
};

/// @brief The automatic rule of the file comment (before certification): returns pscr or
/// fast_diagonalization, never automatic.
Choice choose_method(const ChoiceInput& in);

}  // namespace fd
}  // namespace pscr
