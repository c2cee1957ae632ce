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
#include "pscr/reference/lane_weights.hpp"

// Compiled once per instruction set (kernels.cpp): the namespace tells the copies apart.
#ifndef PSCR_LANE_KERNEL_NS
#define PSCR_LANE_KERNEL_NS detail
#endif

namespace pscr::reference::PSCR_LANE_KERNEL_NS {

using detail::LaneWeights;

/// x[q·L + j] = Σ_{e<NS} w[e][j] v_e[q] on lanes where keep[j] = 0, x unchanged where
/// keep[j] = 1 (w is zero there): full-width loops of compile-time length, which vectorize.
template <int L, int NS>
void form_real(index_t n, const double* const* v, const double (*w)[L], const double* keep,
               double* x) {
  for (index_t q = 0; q < n; ++q) {
    double* xq = x + q * L;
    double acc[L];
#pragma omp simd
    for (int j = 0; j < L; ++j) acc[j] = keep[j] != 0.0 ? xq[j] : 0.0;
    for (int e = 0; e < NS; ++e) {
      const double ve = v[e][q];
#pragma omp simd
      for (int j = 0; j < L; ++j) acc[j] += w[e][j] * ve;
    }
#pragma omp simd
    for (int j = 0; j < L; ++j) xq[j] = acc[j];
  }
}

/// The complex version: v_e[q] = (vr, vi), w = (wr, wi), lanes stored (re, im) pairs.
template <int L, int NS>
void form_complex(index_t n, const std::complex<double>* const* v, const double (*wr)[L],
                  const double (*wi)[L], const double* keep, double* x) {
  for (index_t q = 0; q < n; ++q) {
    double* xq = x + 2 * q * L;
    double ar[L], ai[L];
#pragma omp simd
    for (int j = 0; j < L; ++j) {
      ar[j] = keep[j] != 0.0 ? xq[2 * j] : 0.0;
      ai[j] = keep[j] != 0.0 ? xq[2 * j + 1] : 0.0;
    }
    for (int e = 0; e < NS; ++e) {
      const double vr = v[e][q].real(), vi = v[e][q].imag();
#pragma omp simd
      for (int j = 0; j < L; ++j) {
        ar[j] += wr[e][j] * vr - wi[e][j] * vi;
        ai[j] += wr[e][j] * vi + wi[e][j] * vr;
      }
    }
#pragma omp simd
    for (int j = 0; j < L; ++j) {
      xq[2 * j] = ar[j];
      xq[2 * j + 1] = ai[j];
    }
  }
}

/// @brief x[q·L + j] = Σ_{e<ns} w[e][j] · v_e[q] for lanes j ∈ [j0, j1), q < n, 1 ≤ ns ≤ E;
/// the other lanes of x are left as they are.
template <class Scalar, int L, int E>
void form_lanes(index_t n, int j0, int j1, int ns, const Scalar* const* v,
                const LaneWeights<L, E>& w, Scalar* x) {
  if constexpr (L == 1) {
    for (int e = 0; e < ns; ++e) {
      if constexpr (!is_complex_v<Scalar>) {
        const double we = w.re[e][0];
        const double* ve = v[e];
        if (e == 0) {
#pragma omp simd
          for (index_t q = 0; q < n; ++q) x[q] = we * ve[q];
        } else {
#pragma omp simd
          for (index_t q = 0; q < n; ++q) x[q] += we * ve[q];
        }
      } else {
        double* xd = reinterpret_cast<double*>(x);
        const double wr = w.re[e][0], wi = w.im[e][0];
        const double* ve = reinterpret_cast<const double*>(v[e]);
        const double keep = e == 0 ? 0.0 : 1.0;
#pragma omp simd
        for (index_t q = 0; q < n; ++q) {
          const double vr = ve[2 * q], vi = ve[2 * q + 1];
          xd[2 * q] = keep * xd[2 * q] + (wr * vr - wi * vi);
          xd[2 * q + 1] = keep * xd[2 * q + 1] + (wr * vi + wi * vr);
        }
      }
    }
  } else {
    // Weights zero outside [j0, j1); those lanes keep their values.
    double wr[E][L], wi[E][L], keep[L];
    for (int j = 0; j < L; ++j) keep[j] = (j >= j0 && j < j1) ? 0.0 : 1.0;
    for (int e = 0; e < ns; ++e)
      for (int j = 0; j < L; ++j) {
        wr[e][j] = keep[j] == 0.0 ? w.re[e][j] : 0.0;
        wi[e][j] = keep[j] == 0.0 ? w.im[e][j] : 0.0;
      }
    if constexpr (!is_complex_v<Scalar>) {
      switch (ns) {
        case 1:
          return form_real<L, 1>(n, v, wr, keep, x);
        case 2:
          return form_real<L, 2>(n, v, wr, keep, x);
        case 3:
          return form_real<L, 3>(n, v, wr, keep, x);
        case 4:
          return form_real<L, 4>(n, v, wr, keep, x);
        case 5:
          return form_real<L, 5>(n, v, wr, keep, x);
        default:
          return form_real<L, E>(n, v, wr, keep, x);
      }
    } else {
      double* xd = reinterpret_cast<double*>(x);
      switch (ns) {
        case 1:
          return form_complex<L, 1>(n, v, wr, wi, keep, xd);
        case 2:
          return form_complex<L, 2>(n, v, wr, wi, keep, xd);
        case 3:
          return form_complex<L, 3>(n, v, wr, wi, keep, xd);
        case 4:
          return form_complex<L, 4>(n, v, wr, wi, keep, xd);
        case 5:
          return form_complex<L, 5>(n, v, wr, wi, keep, xd);
        default:
          return form_complex<L, E>(n, v, wr, wi, keep, xd);
      }
    }
  }
}

/// Four doubles (GCC/Clang vector extension: AVX registers where the target has them, pairs of
/// SSE2 registers otherwise).
typedef double V4 __attribute__((vector_size(32)));

/// A vector from 4 doubles at any alignment (by reference: returning a 256-bit vector by value
/// would make the baseline ABI of an out-of-line copy differ from the AVX one).
inline void load4(V4& v, const double* p) {
  __builtin_memcpy(&v, p, sizeof v);
}

/// @brief out[q] += Σ_{j ∈ [j0, j1)} w[e][j] · y[q·L + j] for q < n, one output row e. The sum
/// over lanes runs over all L lanes (zero weights outside [j0, j1)) in a fixed order: the same
/// for every call.
template <class Scalar, int L, int E>
void gather_lanes(index_t n, int j0, int j1, int e, const LaneWeights<L, E>& w, const Scalar* y,
                  Scalar* out) {
  if constexpr (L == 1) {
    if constexpr (!is_complex_v<Scalar>) {
      const double we = w.re[e][0];
#pragma omp simd
      for (index_t q = 0; q < n; ++q) out[q] += we * y[q];
    } else {
      const double* yd = reinterpret_cast<const double*>(y);
      double* od = reinterpret_cast<double*>(out);
      const double wr = w.re[e][0], wi = w.im[e][0];
#pragma omp simd
      for (index_t q = 0; q < n; ++q) {
        const double yr = yd[2 * q], yi = yd[2 * q + 1];
        od[2 * q] += wr * yr - wi * yi;
        od[2 * q + 1] += wr * yi + wi * yr;
      }
    }
  } else {
    static_assert(L % 4 == 0, "lanes in groups of 4 (one 256-bit vector of doubles)");
    // Weights zero outside [j0, j1): the lanes there must hold finite values (padding lanes are
    // zeroed by the solve).
    double wr[L], wi[L];
    for (int j = 0; j < L; ++j) {
      const bool in = j >= j0 && j < j1;
      wr[j] = in ? w.re[e][j] : 0.0;
      wi[j] = in ? w.im[e][j] : 0.0;
    }
    if constexpr (!is_complex_v<Scalar>) {
      constexpr int V = L / 4;
      V4 wv[V];
      for (int k = 0; k < V; ++k)
        wv[k] = V4{wr[4 * k], wr[4 * k + 1], wr[4 * k + 2], wr[4 * k + 3]};
      for (index_t q = 0; q < n; ++q) {
        const double* yq = y + q * L;
        V4 v;
        load4(v, yq);
        V4 acc = wv[0] * v;
        for (int k = 1; k < V; ++k) {
          load4(v, yq + 4 * k);
          acc += wv[k] * v;
        }
        out[q] += (acc[0] + acc[2]) + (acc[1] + acc[3]);
      }
    } else {
      // Two lanes per vector: y = (r_a, i_a, r_b, i_b); w·y = wa ⊙ y + wb ⊙ (i_a, r_a, i_b, r_b)
      // with wa = (wr_a, wr_a, wr_b, wr_b), wb = (−wi_a, wi_a, −wi_b, wi_b).
      constexpr int V = L / 2;
      V4 wa[V], wb[V];
      for (int k = 0; k < V; ++k) {
        wa[k] = V4{wr[2 * k], wr[2 * k], wr[2 * k + 1], wr[2 * k + 1]};
        wb[k] = V4{-wi[2 * k], wi[2 * k], -wi[2 * k + 1], wi[2 * k + 1]};
      }
      const double* yd = reinterpret_cast<const double*>(y);
      double* od = reinterpret_cast<double*>(out);
      for (index_t q = 0; q < n; ++q) {
        const double* yq = yd + 2 * q * L;
        V4 acc{0, 0, 0, 0};
        for (int k = 0; k < V; ++k) {
          V4 v;
          load4(v, yq + 4 * k);
          acc += wa[k] * v + wb[k] * __builtin_shufflevector(v, v, 1, 0, 3, 2);
        }
        od[2 * q] += acc[0] + acc[2];
        od[2 * q + 1] += acc[1] + acc[3];
      }
    }
  }
}

}  // namespace pscr::reference::PSCR_LANE_KERNEL_NS
