#pragma once
/// @file Internal: the one way eigen_init runs work in parallel, OpenMP tasks. compute_eigen_data
/// opens one parallel region and makes every distinct block pencil a task; inside a pencil, the
/// independent halves (persymmetric split, children of large divide-and-conquer nodes) become
/// tasks too. A thread that waits for a task runs other tasks meanwhile, so there are no barriers
/// in the loops of the solver: on a shared, oversubscribed machine a descheduled thread does not
/// make the others spin. Outside a parallel region everything runs in order on the calling
/// thread. Not public API.

#include <exception>

namespace pscr::eigen_detail {

/// @brief Runs `first` as a task (when `split`; otherwise in order) and `second` on this
/// thread, waits for both, then rethrows the exception of `first`, else of `second`, if any.
/// Both must write disjoint data.
template <class First, class Second>
void run_both(bool split, First&& first, Second&& second) {
  std::exception_ptr first_failure, second_failure;
#pragma omp task default(shared) if (split)
  {
    try {
      first();
    } catch (...) {
      first_failure = std::current_exception();
    }
  }
  try {
    second();
  } catch (...) {
    second_failure = std::current_exception();
  }
#pragma omp taskwait
  if (first_failure) std::rethrow_exception(first_failure);
  if (second_failure) std::rethrow_exception(second_failure);
}

}  // namespace pscr::eigen_detail
