#include "pscr/reference/kernels.hpp"

#include <complex>

#include "pscr/reference/lane_sums.hpp"
#include "pscr/reference/lane_thomas.hpp"

namespace pscr::reference::detail {

template <class Scalar>
const LaneKernels<Scalar>& baseline_kernels() {
  static const LaneKernels<Scalar> table{&lane_thomas<kKernelLanes>,
                                         &form_lanes<Scalar, kKernelLanes, kMaxSources>,
                                         &gather_lanes<Scalar, kKernelLanes, kMaxOutputs>,
                                         &form_lanes<Scalar, 1, kMaxSources>,
                                         &gather_lanes<Scalar, 1, kMaxOutputs>,
                                         "baseline"};
  return table;
}

template <class Scalar>
const LaneKernels<Scalar>& lane_kernels() {
  static const LaneKernels<Scalar>& chosen = []() -> const LaneKernels<Scalar>& {
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
    const auto* avx2 = avx2_kernels<Scalar>();
    if (avx2 != nullptr && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
      return *avx2;
#endif
    return baseline_kernels<Scalar>();
  }();
  return chosen;
}

#define PSCR_INSTANTIATE_KERNELS(S)                     \
  template const LaneKernels<S>& baseline_kernels<S>(); \
  template const LaneKernels<S>& lane_kernels<S>();
PSCR_FOR_EACH_SCALAR(PSCR_INSTANTIATE_KERNELS)
#undef PSCR_INSTANTIATE_KERNELS

}  // namespace pscr::reference::detail
