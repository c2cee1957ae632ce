#pragma once
/// @file Where the GPU engine runs a level's stages fused by default (StageFusion::automatic):
/// short tridiagonal systems in shared memory (FusedStage, fused.cuh), long ones as the segment
/// stage (segment_stage.cuh), rather than as separate launches (internal, host C++: the rules the
/// engine applies and the tests check).

#include "common/scalar.hpp"
#include "tridiag/cuda/selection.hpp"

namespace pscr::cuda::detail {

/// @brief Whether FusedStage measured faster than the separate stages for systems of n ≤ kFusedMaxN
/// rows, real or complex: real always; complex up to 41 rows, where the fused stage's shared
/// systems (complex: twice the bytes, fewer blocks per SM) start to lose. H100, pscr_gpu_bench
/// --stages both, 2 to 5 rounds per size (bench/results/pscr-gpu-h100-fused-block.csv), medians,
/// ms fused / separate: 2D Helmholtz 39² 0.096 / 0.103, 41² 0.103 / 0.104, 43² 0.112 / 0.105,
/// 47² 0.116 / 0.107, 55² 0.130 / 0.109, 63² 0.150 / 0.113; 3D Helmholtz 44³ 0.649 / 0.699,
/// 47³ 0.706 / 0.734, 49³ 0.758 / 0.748, 53³ 0.817 / 0.747, 63³ 1.015 / 0.825 (3D Helmholtz takes
/// FD by default);
/// 2D and 3D Poisson fused faster or level at every size to 63 / 64. The H200 (its CSV of
/// c867846): complex 2D 63² and 3D 63³ also separate, 3D 44³ level.
inline bool block_stage_pays(index_t n, bool complex) {
  return !complex || n <= 41;
}

/// Smallest system the segment stage takes at all (SolverOptions::fusion = StageFusion::always;
/// shorter ones: FusedStage up to kFusedMaxN, separate stages between): its range in the tests,
/// 8 to 33 segments from here. At 1023 / 1024 rows it measured slower on an H100 (2D complex 1.00
/// against 0.97 ms, real 0.92 against 0.76 ms), its chunks of 16 eigenvalues leaving too few warps
/// at work on the top levels of short systems.
inline constexpr index_t kSegmentStageMinN = 2047;

/// @brief Whether the segment stage measured faster than the separate stages for systems of n
/// rows on GPU `gpu`, real or complex (StageFusion::automatic): real from 4095 rows on both GPUs;
/// complex from 2047 rows on the H100 and never on the H200. Other GPUs take the H100's rule.
/// From the two ways' times in one run (pscr_gpu_bench --stages both, 2D, 20 repetitions, the
/// level-3 code of 143b0b8; bench/results/pscr-gpu-h100-2d-fused-separate.csv and
/// pscr-gpu-h200-2d-fused-separate.csv; docs/tridiag-performance.md), ms fused / separate, each
/// file's second round:
///  - H100: real 2048 0.984 / 0.964, 4096 3.264 / 3.525, 8192 11.28 / 12.72; complex 2047
///    2.248 / 2.260, 4095 7.249 / 7.996, 8191 31.98 / 34.16;
///  - H200: real 2048 0.976 / 0.899, 4096 3.250 / 3.259, 8192 11.24 / 11.80, 16384 49.0 / 54.1;
///    complex 2047 2.254 / 2.021, 4095 7.221 / 6.786, 8191 31.81 / 28.66: the level-3 solver's
///    separate launches (its InBlock and cluster sweeps) beat the stage's segments of 128 complex
///    rows at every size.
inline bool segment_stage_pays(index_t n, tridiag::cuda::SelectionGpu gpu, bool complex) {
  if (complex) return gpu != tridiag::cuda::SelectionGpu::h200 && n >= kSegmentStageMinN;
  return n >= 4095;
}

}  // namespace pscr::cuda::detail
