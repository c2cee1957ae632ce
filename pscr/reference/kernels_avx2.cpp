// The kernels of lane_thomas.hpp and lane_sums.hpp compiled for AVX2 with FMA, in their own
// namespace (avx2) so that no instance is shared with the baseline ones. Every header the
// kernels use is included before the target pragma: only the kernels themselves carry the
// AVX2 target, never an inline function that another translation unit could link to.
#include <cmath>
#include <complex>
#include <cstdint>

#include "common/scalar.hpp"
#include "pscr/reference/kernels.hpp"
#include "pscr/reference/lane_weights.hpp"

#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#define PSCR_HAVE_AVX2_KERNELS 1
#pragma GCC push_options
#pragma GCC target("avx2,fma")
#define PSCR_LANE_KERNEL_NS avx2
#include "pscr/reference/lane_sums.hpp"
#include "pscr/reference/lane_thomas.hpp"
#undef PSCR_LANE_KERNEL_NS
#pragma GCC pop_options
#endif

namespace pscr::reference::detail {

template <class Scalar>
const LaneKernels<Scalar>* avx2_kernels() {
#ifdef PSCR_HAVE_AVX2_KERNELS
  static const LaneKernels<Scalar> table{&avx2::lane_thomas<kKernelLanes>,
                                         &avx2::form_lanes<Scalar, kKernelLanes, kMaxSources>,
                                         &avx2::gather_lanes<Scalar, kKernelLanes, kMaxOutputs>,
                                         &avx2::form_lanes<Scalar, 1, kMaxSources>,
                                         &avx2::gather_lanes<Scalar, 1, kMaxOutputs>,
                                         "avx2+fma"};
  return &table;
#else
  return nullptr;
#endif
}

#define PSCR_INSTANTIATE_AVX2(S) template const LaneKernels<S>* avx2_kernels<S>();
PSCR_FOR_EACH_SCALAR(PSCR_INSTANTIATE_AVX2)
#undef PSCR_INSTANTIATE_AVX2

}  // namespace pscr::reference::detail
