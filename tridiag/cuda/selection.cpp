// Nearest measured shape in (log n, log batch) of the same layout, scalar type and form.
#include "tridiag/cuda/selection.hpp"

#include <cmath>
#include <limits>

namespace pscr::tridiag::cuda {
namespace {

const SelectionEntry kTable[] = {
#include "tridiag/cuda/selection_table.inc"
};

}  // namespace

Options select_method(index_t n, index_t batch, bool interleaved, bool complex, bool general) {
  double best = std::numeric_limits<double>::infinity();
  Options choice{Method::partition, 8, Staging::shared};
  for (const SelectionEntry& e : kTable) {
    if (e.interleaved != interleaved || e.complex != complex || e.general != general) continue;
    const double dn = std::log2(static_cast<double>(n)) - std::log2(static_cast<double>(e.n));
    const double db =
        std::log2(static_cast<double>(batch)) - std::log2(static_cast<double>(e.batch));
    const double dist = dn * dn + db * db;
    if (dist < best) {
      best = dist;
      choice = {e.method, e.method != Method::thomas ? e.rows_per_thread : 0,
                e.staged ? Staging::shared : Staging::global};
    }
  }
  return choice;
}

}  // namespace pscr::tridiag::cuda
