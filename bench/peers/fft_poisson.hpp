#pragma once
/// @file The cuFFT peer of issue 6: Poisson with Dirichlet sides on a uniform grid, solved by the
/// sine transform (DST-I) in every dimension, each DST computed by a real FFT of the odd extension.
/// Host C++ (no CUDA syntax); benchmark code, not part of the library.
///
/// The mathematics. On a uniform mesh with step h_d and n_d unknowns (h_d = length/(n_d + 1)),
/// the lumped piecewise-linear factors are A_d = (1/h_d)·tridiag(−1, 2, −1) and M_d = h_d·I.
/// The sine vectors s_k(i) = sin(π k i/(n_d + 1)), i, k = 1..n_d, satisfy
///     A_d s_k = h_d λ_k s_k,   λ_k = (4/h_d²) sin²(π k / (2(n_d + 1))),   M_d s_k = h_d s_k,
/// so the 2D operator A1⊗M2 + M1⊗A2 + c·M1⊗M2 has the eigenvalues h1 h2 (λ_k + λ_l + c) on
/// s_k ⊗ s_l (3D alike: h1 h2 h3 (λ_k + λ_l + λ_m + c)). With the DST matrix S (S = Sᵀ,
/// S² = ((n+1)/2)·I), the solution is
///     u = (S1 ⊗ S2) D⁻¹ (S1 ⊗ S2) f · Π_d 2/((n_d + 1) h_d),   D = diag(λ_k + λ_l + c).
/// DST-I through a real FFT: with the odd extension y = (0, x_1..x_n, 0, −x_n..−x_1) of length
/// 2(n+1), Y = FFT(y) has Y_k = −2i Σ_j x_j sin(π j k/(n+1)), so (S x)_k = −Im(Y_k)/2.
///
/// The pipeline (fft_plan.hpp): for each dimension, last first, an extend kernel writes the odd
/// extensions of the previous coefficients and a batched cuFFT D2Z transforms them; the inverse
/// pass is the same pipeline, its first extend kernel divides by the eigenvalues; a last kernel
/// extracts u.

#include <cuda_runtime_api.h>
#include <cufft.h>

#include <cstddef>
#include <vector>

#include "bench/peers/fft_plan.hpp"
#include "bench/peers/gpu_support.hpp"
#include "common/cuda/device_buffer.hpp"
#include "pscr/cuda/fd_solver.hpp"
#include "pscr/operator.hpp"

namespace pscr::peers {

/// @brief The DST Poisson solver of one uniform-grid Dirichlet operator, 2D or 3D.
class FftPoissonSolver {
 public:
  /// Checks that every dimension has A_d = (1/h_d)·tridiag(−1, 2, −1) and M_d = h_d·I (relative
  /// tolerance 1e-12), throws InputError otherwise; builds the cuFFT plans and the workspace.
  explicit FftPoissonSolver(const SeparableOperator<double>& op);

  /// @brief Device bytes of the extension and spectrum arrays for `shape` (not counting f, u
  /// and cuFFT's own work areas, which are of the order of the spectrum again).
  static std::size_t device_bytes(const std::vector<index_t>& shape);

  /// @brief d_u = A⁻¹ d_f on `stream` (device grids, C order, not aliased).
  void solve(cudaStream_t stream, const double* d_f, double* d_u);

  /// @brief Bytes moved (every kernel and FFT reads its input and writes its output once) and
  /// flops (2.5·L·log₂L per real FFT of length L) of one solve.
  CostModel cost() const;

 private:
  void run_step(cudaStream_t stream, std::size_t k, const double* d_f, bool inverse);

  std::vector<index_t> shape_;
  index_t grid_size_ = 0;
  DstPipeline pipeline_;
  std::vector<CufftPlan> plans_;  // one per step
  cuda::DeviceBuffer<double> ext_;
  cuda::DeviceBuffer<cufftDoubleComplex> spec_;
  DstScaling scaling_;
  cuda::DeviceBuffer<double> lead_, last_;  // scaling_.lead and .last on the device
};

}  // namespace pscr::peers
