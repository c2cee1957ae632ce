#pragma once
/// @file The hot loops of the CPU backend, chosen once per process for the instruction set of the
/// machine (internal): the lane-parallel Thomas kernel (lane_thomas.hpp) and the weighted lane
/// sums (lane_sums.hpp), compiled for baseline x86-64 and for AVX2 with FMA. Every call of a
/// solver in a process uses the same table, so results stay independent of the thread count.

#include <cstdint>

#include "common/scalar.hpp"
#include "pscr/reference/lane_weights.hpp"

namespace pscr::reference::detail {

/// Lanes of the tridiagonal kernels (systems solved in lock step).
inline constexpr int kKernelLanes = 8;

/// @brief Pointers to one instruction set's instances of the kernels.
template <class Scalar>
struct LaneKernels {
  template <int L>
  using Form = void (*)(index_t n, int j0, int j1, int ns, const Scalar* const* v,
                        const LaneWeights<L, kMaxSources>& w, Scalar* x);
  template <int L>
  using Gather = void (*)(index_t n, int j0, int j1, int e, const LaneWeights<L, kMaxOutputs>& w,
                          const Scalar* y, Scalar* out);
  using Thomas = std::uint32_t (*)(index_t n, const Scalar* a, const Scalar* b, const Scalar* m,
                                   const Scalar* mo, int lanes, const Scalar* shifts,
                                   const Scalar* x, Scalar* y, Scalar* cp, bool monitor,
                                   double growth_limit);

  Thomas thomas;  ///< lane_thomas<kKernelLanes>
  Form<kKernelLanes> form;
  Gather<kKernelLanes> gather;
  Form<1> form1;
  Gather<1> gather1;
  const char* isa;  ///< "avx2+fma" or "baseline"
};

/// @brief The kernels for this machine: AVX2+FMA where the CPU has them, else baseline.
template <class Scalar>
const LaneKernels<Scalar>& lane_kernels();

/// @brief The baseline kernels (tests compare the two).
template <class Scalar>
const LaneKernels<Scalar>& baseline_kernels();

/// @brief The AVX2+FMA kernels, or nullptr when not built (non-x86 compilers).
template <class Scalar>
const LaneKernels<Scalar>* avx2_kernels();

}  // namespace pscr::reference::detail
