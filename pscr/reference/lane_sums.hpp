#pragma once
/// @file The weighted sums of the partial solution (internal): right-hand sides
/// Σ_s W_{s,l} g_s of the shifted systems and results Σ_l W_{r,l} y_l (eqs. 24, 26–28,
/// myllykoski2018), for the lanes of one chunk.
///
/// Layout of the chunk arrays x, y: L lanes interleaved, value q of lane j at q·L + j (for L = 1
/// a plain vector). Complex arithmetic is written out in real operations so that the compiler
/// vectorizes it (std::complex multiplication carries a NaN-recovery branch that blocks this).

#include <complex>

#include "common/scalar.hpp"

namespace pscr::reference::detail {

/// @brief Weights of one chunk, split into real and imaginary parts: w[e][j] for source or
/// output e and lane j (imaginary parts zero for real scalars).
template <int L, int E>
struct LaneWeights {
  double re[E][L];
  double im[E][L];
};

/// @brief x[q·L + j] = Σ_{e<ns} w[e][j] · v_e[q] for lanes j ∈ [j0, j1), q < n.
template <class Scalar, int L, int E>
void form_lanes(index_t n, int j0, int j1, int ns, const Scalar* const* v,
                const LaneWeights<L, E>& w, Scalar* x) {
  if constexpr (!is_complex_v<Scalar>) {
    if constexpr (L == 1) {
      for (int e = 0; e < ns; ++e) {
        const double we = w.re[e][0];
        const double* ve = v[e];
        if (e == 0) {
#pragma omp simd
          for (index_t q = 0; q < n; ++q) x[q] = we * ve[q];
        } else {
#pragma omp simd
          for (index_t q = 0; q < n; ++q) x[q] += we * ve[q];
        }
      }
    } else {
      for (index_t q = 0; q < n; ++q) {
        double* xq = x + q * L;
#pragma omp simd
        for (int j = j0; j < j1; ++j) {
          double acc = w.re[0][j] * v[0][q];
          for (int e = 1; e < ns; ++e) acc += w.re[e][j] * v[e][q];
          xq[j] = acc;
        }
      }
    }
  } else {
    double* xd = reinterpret_cast<double*>(x);
    if constexpr (L == 1) {
      for (int e = 0; e < ns; ++e) {
        const double wr = w.re[e][0], wi = w.im[e][0];
        const double* ve = reinterpret_cast<const double*>(v[e]);
        if (e == 0) {
#pragma omp simd
          for (index_t q = 0; q < n; ++q) {
            const double vr = ve[2 * q], vi = ve[2 * q + 1];
            xd[2 * q] = wr * vr - wi * vi;
            xd[2 * q + 1] = wr * vi + wi * vr;
          }
        } else {
#pragma omp simd
          for (index_t q = 0; q < n; ++q) {
            const double vr = ve[2 * q], vi = ve[2 * q + 1];
            xd[2 * q] += wr * vr - wi * vi;
            xd[2 * q + 1] += wr * vi + wi * vr;
          }
        }
      }
    } else {
      for (index_t q = 0; q < n; ++q) {
        double* xq = xd + 2 * q * L;
        double vr[E], vi[E];
        for (int e = 0; e < ns; ++e) {
          vr[e] = v[e][q].real();
          vi[e] = v[e][q].imag();
        }
#pragma omp simd
        for (int j = j0; j < j1; ++j) {
          double ar = w.re[0][j] * vr[0] - w.im[0][j] * vi[0];
          double ai = w.re[0][j] * vi[0] + w.im[0][j] * vr[0];
          for (int e = 1; e < ns; ++e) {
            ar += w.re[e][j] * vr[e] - w.im[e][j] * vi[e];
            ai += w.re[e][j] * vi[e] + w.im[e][j] * vr[e];
          }
          xq[2 * j] = ar;
          xq[2 * j + 1] = ai;
        }
      }
    }
  }
}

/// @brief out[q] += Σ_{j ∈ [j0, j1)} w[e][j] · y[q·L + j] for q < n, one output row e. The sum
/// over lanes runs in the order the vectorizer fixes at compile time: the same for every call.
template <class Scalar, int L, int E>
void gather_lanes(index_t n, int j0, int j1, int e, const LaneWeights<L, E>& w, const Scalar* y,
                  Scalar* out) {
  if constexpr (!is_complex_v<Scalar>) {
    if constexpr (L == 1) {
      const double we = w.re[e][0];
#pragma omp simd
      for (index_t q = 0; q < n; ++q) out[q] += we * y[q];
    } else {
      const double* we = w.re[e];
      for (index_t q = 0; q < n; ++q) {
        const double* yq = y + q * L;
        double acc = 0;
#pragma omp simd reduction(+ : acc)
        for (int j = j0; j < j1; ++j) acc += we[j] * yq[j];
        out[q] += acc;
      }
    }
  } else {
    const double* yd = reinterpret_cast<const double*>(y);
    double* od = reinterpret_cast<double*>(out);
    if constexpr (L == 1) {
      const double wr = w.re[e][0], wi = w.im[e][0];
#pragma omp simd
      for (index_t q = 0; q < n; ++q) {
        const double yr = yd[2 * q], yi = yd[2 * q + 1];
        od[2 * q] += wr * yr - wi * yi;
        od[2 * q + 1] += wr * yi + wi * yr;
      }
    } else {
      const double* wr = w.re[e];
      const double* wi = w.im[e];
      for (index_t q = 0; q < n; ++q) {
        const double* yq = yd + 2 * q * L;
        double ar = 0, ai = 0;
#pragma omp simd reduction(+ : ar, ai)
        for (int j = j0; j < j1; ++j) {
          ar += wr[j] * yq[2 * j] - wi[j] * yq[2 * j + 1];
          ai += wr[j] * yq[2 * j + 1] + wi[j] * yq[2 * j];
        }
        od[2 * q] += ar;
        od[2 * q + 1] += ai;
      }
    }
  }
}

}  // namespace pscr::reference::detail
