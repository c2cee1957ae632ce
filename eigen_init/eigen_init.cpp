#include "eigen_init/eigen_init.hpp"

#include <algorithm>
#include <complex>
#include <cstring>
#include <exception>
#include <map>
#include <numeric>
#include <string>

#include "common/error.hpp"

namespace pscr {

namespace {

/// The identity of a block pencil: its size, relative component rows and the bytes of every
/// entry of (A)_B and (M)_B. Equal keys ⇔ identical pencils (bitwise equal entries).
template <class Scalar>
std::string block_key(const Factor<Scalar>& factor, const Block& b) {
  const index_t m = b.size();
  const std::size_t entries = 2 * static_cast<std::size_t>(2 * m - 1);
  std::string key((2 + b.component_rows.size()) * sizeof(index_t) + entries * sizeof(Scalar), '\0');
  char* p = key.data();
  auto put = [&p](const void* src, std::size_t bytes) {
    if (bytes == 0) return;  // src may be null (an empty vector's data()), which memcpy forbids
    std::memcpy(p, src, bytes);
    p += bytes;
  };
  const index_t nrows = static_cast<index_t>(b.component_rows.size());
  put(&m, sizeof m);
  put(&nrows, sizeof nrows);
  for (index_t r : b.component_rows) {
    const index_t rel = r - b.first;
    put(&rel, sizeof rel);
  }
  for (const SymTridiag<Scalar>* t : {&factor.A, &factor.M}) {
    put(t->diag.data() + b.first, m * sizeof(Scalar));
    put(t->off.data() + b.first, (m - 1) * sizeof(Scalar));
  }
  return key;
}

}  // namespace

template <class Scalar>
EigenData<Scalar> compute_eigen_data(const Factor<Scalar>& factor, const Partition& partition) {
  factor.A.validate("A");
  factor.M.validate("M");
  if (factor.M.size() != factor.A.size() || factor.A.size() != partition.size())
    PSCR_INPUT_ERROR("compute_eigen_data: expected factors A and M of the partition's size "
                     << partition.size() << ", found sizes " << factor.A.size() << " and "
                     << factor.M.size());
  EigenData<Scalar> data;
  data.partition = partition;
  data.block_entry.resize(partition.num_levels());

  // Distinct pencils in order of first appearance (level by level, block by block), so the
  // numbering of `distinct` is deterministic.
  std::map<std::string, index_t> seen;
  std::vector<const Block*> first_block;
  for (int i = 1; i <= partition.num_levels(); ++i) {
    for (const Block& b : partition.level(i).blocks) {
      const auto [it, inserted] =
          seen.emplace(block_key(factor, b), static_cast<index_t>(first_block.size()));
      if (inserted) first_block.push_back(&b);
      data.block_entry[i - 1].push_back(it->second);
    }
  }

  const index_t count = static_cast<index_t>(first_block.size());
  data.distinct.resize(count);
  auto solve = [&](index_t e) {
    const Block& b = *first_block[e];
    std::vector<index_t> rows(b.component_rows);
    for (index_t& r : rows) r -= b.first;
    data.distinct[e] = solve_block_pencil(factor.A.submatrix(b.first, b.last),
                                          factor.M.submatrix(b.first, b.last), rows);
  };
  // One task per distinct pencil, the largest first (tasks.hpp); each result is the same
  // whichever thread computes it.
  std::vector<index_t> order(count);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](index_t x, index_t y) {
    return first_block[x]->size() > first_block[y]->size();
  });
  std::exception_ptr failure;
#pragma omp parallel
#pragma omp single
  for (index_t e : order) {
#pragma omp task firstprivate(e) default(shared)
    {
      try {
        solve(e);
      } catch (...) {
#pragma omp critical(pscr_eigen_init_failure)
        if (!failure) failure = std::current_exception();
      }
    }
  }
  if (failure) std::rethrow_exception(failure);
  return data;
}

#define PSCR_INSTANTIATE(Scalar)                                              \
  template EigenData<Scalar> compute_eigen_data(const Factor<Scalar>& factor, \
                                                const Partition& partition);
PSCR_FOR_EACH_SCALAR(PSCR_INSTANTIATE)
#undef PSCR_INSTANTIATE

}  // namespace pscr
