#pragma once
/// @file The DST-I pipeline of the cuFFT Poisson peer (fft_poisson.hpp) as data: the layout of
/// every step, the parameters of its batched cuFFT D2Z plan, and the index arithmetic of the
/// kernel that writes the odd extensions. FftPoissonSolver executes it on the GPU; the CPU test
/// (tests/bench) executes the same description with a plain DFT, so every stride and offset is
/// checked on CI, without a GPU. Plain C++ (pscr/fd/host_device.hpp); benchmark code, not the
/// library.
///
/// Pipeline, per pass (the forward and the inverse pass are the same): one step per dimension,
/// the last dimension first. A step sees its input as (outer, n, inner) in C order, with the
/// dimension it transforms in the middle; an extend kernel writes the odd extension
/// y = (0, x_0..x_{n−1}, 0, −x_{n−1}..−x_0) (length 2(n+1)) of every line of the input, and a
/// batched D2Z transforms the lines; (S x)_r = −Im(Y_{r+1})/2 is read by the next step.
///   contiguous step (the last dimension, inner = 1): extensions [outer][2(n+1)],
///                   spectrum [outer][n+2];
///   strided step:   extensions [2(n+1)][outer][inner], spectrum [n+2][outer][inner]
///                   (the transformed dimension moves to the slowest place).
/// 2D (n1, n2): contiguous (n1, n2), then strided (1, n1, n2): the spectrum is [n1+2][n2].
/// 3D: contiguous (n1·n2, n3), strided (n1, n2, n3) → [n2+2][n1][n3], strided (n2, n1, n3)
/// → [n1+2][n2][n3]. After the first dimension the coefficients are in C order again.

#include <vector>

#include "common/scalar.hpp"
#include "pscr/fd/host_device.hpp"
#include "pscr/operator.hpp"

namespace pscr::peers {

/// Where a step's input coefficient (o, r, q) lies in the array it reads:
/// at offset + o·so + r·sr + q·sq.
struct DstSource {
  index_t offset = 0, so = 0, sr = 0, sq = 0;
};

/// @brief One DST along one dimension; see the file comment for the layouts.
struct DstStep {
  index_t outer = 1, n = 1, inner = 1;
  bool contiguous = true;
  /// Where the previous step's spectrum holds this step's input (steps after the first).
  DstSource source;
  /// The batched D2Z plan: length len = 2(n+1); element e of line b is read at
  /// b·idist + e·istride of the extensions, and (e ≤ len/2) written at b·odist + e·ostride of the
  /// spectrum.
  int len = 0, batch = 0, istride = 1, idist = 0, ostride = 1, odist = 0;
};

/// @brief The whole pipeline of one grid shape.
struct DstPipeline {
  std::vector<DstStep> steps;  ///< last dimension first
  DstSource from_f;            ///< the forward pass's first step reads f (real, C order)
  /// The inverse pass's first step reads the forward pass's last spectrum ([n1+2][…]: grid
  /// element t at grid/n1 + t), dividing by the eigenvalues.
  DstSource from_spectrum;
  index_t extract_offset = 0;  ///< u[t] = −Im(spectrum[extract_offset + t])/2
  index_t ext_size = 0;        ///< real elements of the extension array
  index_t spec_size = 0;       ///< complex elements of the spectrum array
};

/// @brief The pipeline for a grid of shape (n1, n2) or (n1, n2, n3). Throws InputError when a
/// size does not fit cuFFT's int arguments.
DstPipeline dst_pipeline(const std::vector<index_t>& shape);

/// @brief The diagonal of the transformed operator, from a uniform Dirichlet Poisson operator.
struct DstScaling {
  std::vector<double> lead;  ///< 2D: λ of dimension 1; 3D: λ_i + λ_j at i·n2 + j
  std::vector<double> last;  ///< λ of the last dimension
  double c = 0;              ///< the operator's shift
  double factor = 1;         ///< Π_d 2/((n_d + 1) h_d): the DST normalization and 1/Π h_d
};

/// @brief λ_k = (4/h_d²) sin²(πk/(2(n_d + 1))) per dimension, after checking that every
/// dimension has A_d = (1/h_d)·tridiag(−1, 2, −1) and M_d = h_d·I (relative tolerance 1e-12);
/// throws InputError otherwise.
DstScaling dst_scaling(const SeparableOperator<double>& op);

/// @brief Element t of a step's extension array: which input coefficient it copies, and how.
struct ExtendSlot {
  bool zero = true;       ///< y_0 or y_{n+1}: 0
  bool negative = false;  ///< the odd half: −x_r
  index_t at = 0;         ///< the input element: src.offset + o·so + r·sr + q·sq
  index_t o = 0, r = 0;   ///< the line and row of that coefficient (for the eigenvalue scaling)
};

/// @brief Decodes output element t (contiguous: t = o·len + rr; strided:
/// t = (rr·outer + o)·inner + q) of `step`'s extension array, reading its input through `src`.
PSCR_FD_HD inline ExtendSlot extend_slot(const DstStep& step, const DstSource& src, index_t t) {
  const index_t len = 2 * (step.n + 1);
  index_t o, rr, q;
  if (step.contiguous) {
    o = t / len;
    rr = t - o * len;
    q = 0;
  } else {
    q = t % step.inner;
    const index_t rest = t / step.inner;
    o = rest % step.outer;
    rr = rest / step.outer;
  }
  ExtendSlot slot;
  if (rr == 0 || rr == step.n + 1) return slot;
  slot.zero = false;
  slot.negative = rr > step.n + 1;
  slot.o = o;
  slot.r = slot.negative ? len - 1 - rr : rr - 1;  // y_{len−1−r} = −x_r, y_{r+1} = x_r
  slot.at = src.offset + o * src.so + slot.r * src.sr + q * src.sq;
  return slot;
}

/// @brief The inverse pass's division by the eigenvalue of coefficient (o, r).
PSCR_FD_HD inline double dst_scale(double v, const double* lead, const double* last, double c,
                                   double factor, index_t o, index_t r) {
  return v * factor / (lead[o] + last[r] + c);
}

}  // namespace pscr::peers
