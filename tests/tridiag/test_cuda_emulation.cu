// The algebra of the GPU partition, warp, segment and columns methods, run on the CPU: the
// kernels' own per-partition, per-lane and per-row functions (partition_reduce,
// partition_substitute, pcr_row; tridiag/cuda/partition.cuh; lane_reduce, cr_even, pcr_combine,
// solve_last, lane_substitute, lane_resolve; tridiag/cuda/warp.cuh; condense;
// tridiag/cuda/segment.cuh; sweep_reduce, sweep_substitute, sweep_slot; tridiag/cuda/sweep.cuh;
// shifted_matrix_row; tridiag/cuda/rows.cuh; TiledPcrBlock::phase, pcr_thomas;
// tridiag/cuda/tiled_pcr.cuh; TwistedHalf, twisted_join; tridiag/cuda/thomas.cuh) driven by plain
// loops in place of threads and shuffles, on the same tile index maps, chunk offsets and coarse-row
// numbering as the kernels. Needs nvcc to compile, no GPU to run: it checks the method's
// mathematics against the CPU reference; the gpu tests check the kernels themselves.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <complex>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "tests/support/random.hpp"
#include "tests/support/tolerance.hpp"
#include "tests/support/typed.hpp"
#include "tests/tridiag/systems.hpp"
#include "tridiag/cuda/columns.cuh"
#include "tridiag/cuda/complex.cuh"
#include "tridiag/cuda/partition.cuh"
#include "tridiag/cuda/segment.cuh"
#include "tridiag/cuda/segment_lanes.cuh"
#include "tridiag/cuda/sweep.cuh"
#include "tridiag/cuda/sweep_cluster.cuh"
#include "tridiag/cuda/thomas.cuh"
#include "tridiag/cuda/tiled_pcr.cuh"
#include "tridiag/cuda/warp.cuh"
#include "tridiag/reference/solve.hpp"

namespace pscr::tridiag {
namespace {

using cuda::detail::CoarseRows;
using cuda::detail::PaddedIndex;
using cuda::detail::TileVector;

/// The shifted form's A and M of a batch as the kernels take them (ShiftedMatrix over its arrays).
template <class Scalar>
cuda::detail::ShiftedMatrix<cuda::detail::kernel_scalar_t<Scalar>> kernel_matrix(
    const testing::Batch<Scalar>& t) {
  using cuda::detail::as_kernel;
  return {as_kernel(t.A.diag.data()), as_kernel(t.A.off.data()), as_kernel(t.M.diag.data()),
          as_kernel(t.M.off.data()), t.n};
}

/// PCR on one system of nc rows until decoupled, as pcr_shared does (double-buffered here).
template <class T>
void emulate_pcr(std::vector<T>& a, std::vector<T>& b, std::vector<T>& c, std::vector<T>& d) {
  const int nc = static_cast<int>(d.size());
  for (int s = 1; s < nc; s <<= 1) {
    std::vector<T> na(nc), nb(nc), nn(nc), nd(nc);
    for (int i = 0; i < nc; ++i)
      cuda::detail::pcr_row(a.data(), b.data(), c.data(), d.data(), i, i, s, nc, na[i], nb[i],
                            nn[i], nd[i]);
    a.swap(na);
    b.swap(nb);
    c.swap(nn);
    d.swap(nd);
  }
  for (int i = 0; i < nc; ++i) d[i] = d[i] / b[i];
}

/// A padded tile (PaddedIndex<M>) of rows [r0, r0 + lv) of a canonical vector.
template <int M, class T>
std::vector<T> make_tile(const std::vector<T>& v, index_t r0, int lv) {
  std::vector<T> tile(PaddedIndex<M>::system_stride(lv));
  const PaddedIndex<M> idx{PaddedIndex<M>::system_stride(lv)};
  for (int i = 0; i < lv; ++i) tile[idx(0, i)] = v[r0 + i];
  return tile;
}

/// Rows accessor of the general form over one chunk tile (what GeneralForm::rows returns).
template <int M, class T>
struct ChunkRows {
  std::vector<T> a, b, c;
  cuda::detail::TileRows<T, PaddedIndex<M>> view(index_t r0, index_t n) const {
    return {a.data(), b.data(), c.data(), PaddedIndex<M>{static_cast<int>(a.size())}, 0, r0, n};
  }
};

/// Holder maker of the general form: chunk tiles of a, b, c (vectors of the whole system).
template <int M, class T>
struct GeneralChunks {
  const std::vector<T>* a;
  const std::vector<T>* b;
  const std::vector<T>* c;
  ChunkRows<M, T> operator()(index_t r0, int lv) const {
    return {make_tile<M>(*a, r0, lv), make_tile<M>(*b, r0, lv), make_tile<M>(*c, r0, lv)};
  }
};

/// The partition method on one system of n rows: blocks of `chunk` rows (a multiple of M; n or
/// more = one block), coarse system by PCR when it came from one block, else solved recursively
/// in the general form (as solve_device does). `rows_of(r0, lv)` gives a holder whose
/// view(r0, n) is the rows accessor of the block starting at row r0.
template <int M, class T, class RowsOf>
std::vector<T> emulate_partition(const RowsOf& rows_of, const std::vector<T>& d, index_t chunk) {
  const index_t n = static_cast<index_t>(d.size());
  const index_t nc = cuda::detail::coarse_size(n, M);
  std::vector<T> ca(nc), cb(nc), cc(nc), cd(nc);
  for (index_t r0 = 0; r0 < n; r0 += chunk) {
    const int lv = static_cast<int>(std::min(chunk, n - r0));
    auto tile = make_tile<M>(d, r0, lv);
    const TileVector<T, PaddedIndex<M>> v{tile.data(), {PaddedIndex<M>::system_stride(lv)}, 0, r0};
    const auto holder = rows_of(r0, lv);
    const auto rows = holder.view(r0, n);
    for (int j = 0; j * M < lv; ++j) {
      const index_t p = r0 + j * M;
      const int m = std::min(M, lv - j * M);
      CoarseRows<T> cr;
      cuda::detail::partition_reduce(rows, v, p, m, cr);
      cuda::detail::store_coarse(cr, m, ca.data(), cb.data(), cc.data(), cd.data(), 2 * (p / M));
    }
  }
  if (chunk >= n) {
    emulate_pcr(ca, cb, cc, cd);
  } else {
    // Coarse system in the general form, contiguous, split the same way.
    cd = emulate_partition<M>(GeneralChunks<M, T>{&ca, &cb, &cc}, cd, chunk);
  }
  std::vector<T> x(n);
  for (index_t r0 = 0; r0 < n; r0 += chunk) {
    const int lv = static_cast<int>(std::min(chunk, n - r0));
    auto tile = make_tile<M>(d, r0, lv);
    const PaddedIndex<M> idx{PaddedIndex<M>::system_stride(lv)};
    const TileVector<T, PaddedIndex<M>> v{tile.data(), idx, 0, r0};
    const auto holder = rows_of(r0, lv);
    const auto rows = holder.view(r0, n);
    for (int j = 0; j * M < lv; ++j) {
      const index_t p = r0 + j * M;
      const int m = std::min(M, lv - j * M);
      const index_t e = 2 * (p / M);
      cuda::detail::partition_substitute<M>(rows, v, p, m, cd[e], m >= 2 ? cd[e + 1] : T(0));
    }
    for (int i = 0; i < lv; ++i) x[r0 + i] = tile[idx(0, i)];
  }
  return x;
}

/// warp_reduced_solve on one group of L = P.size() emulated lanes (a power of two ≤ 32) in
/// lockstep, each shuffle replaced by reading the neighbouring lane's value of the previous step:
/// lane l's rows 2l = P[l], 2l + 1 = Q[l] give its unknowns first[l][j], last[l][j] for
/// right-hand side j.
template <class T, int R>
struct LaneUnknowns {
  std::vector<std::array<T, R>> first, last;
};
/// warp_reduced_solve on the CPU: lane l's cr_even, then the PCR steps (pcr_combine) of distance
/// 1, 2, ..., L/2, every step reported to `growth` (one for all lanes: the kernel's guard flags
/// when any lane's does).
template <class T, int R, class Growth = cuda::detail::NoGrowth>
LaneUnknowns<T, R> emulate_warp_solve(const std::vector<cuda::detail::Row<T, R>>& P,
                                      const std::vector<cuda::detail::Row<T, R>>& Q,
                                      Growth&& growth = Growth{}) {
  const int L = static_cast<int>(P.size());
  std::vector<cuda::detail::Row<T, R>> r(L);
  for (int l = 0; l < L; ++l)
    r[l] = cuda::detail::cr_even(P[l], Q[l > 0 ? l - 1 : 0], l > 0, Q[l], growth);
  for (int s = 1; s < L; s <<= 1) {
    std::vector<cuda::detail::Row<T, R>> next(L);
    for (int l = 0; l < L; ++l) {
      const bool lo = l >= s, hi = l + s < L;
      next[l] =
          cuda::detail::pcr_combine(r[l], r[lo ? l - s : l], lo, r[hi ? l + s : l], hi, growth);
    }
    r.swap(next);
  }
  LaneUnknowns<T, R> x{std::vector<std::array<T, R>>(L), std::vector<std::array<T, R>>(L)};
  for (int l = 0; l < L; ++l)
    for (int j = 0; j < R; ++j) x.first[l][j] = r[l].d[j] / r[l].b;
  for (int l = 0; l < L; ++l)
    for (int j = 0; j < R; ++j)
      x.last[l][j] =
          cuda::detail::solve_last(Q[l], j, x.first[l][j], l + 1 < L ? x.first[l + 1][j] : T(0));
  return x;
}

/// cuda::detail::warp_twisted_solve on the CPU: lanes l < L/2 eliminated downward and lanes
/// L − 1 − l upward (rows mirrored) at step l, the two halves met between lanes L/2 − 1 and L/2,
/// then solved back outward.
template <class T, int R>
LaneUnknowns<T, R> emulate_twisted_solve(const std::vector<cuda::detail::Row<T, R>>& P,
                                         const std::vector<cuda::detail::Row<T, R>>& Q) {
  namespace dt = cuda::detail;
  const int L = static_cast<int>(P.size()), h = L / 2;
  std::vector<dt::EliminatedPair<T, R>> e(L);
  std::vector<std::array<T, R>> x1(L), x2(L);  // in each lane's order of elimination
  if (L == 1) {
    e[0] = dt::eliminate_pair(P[0], Q[0], true, dt::EliminatedPair<T, R>{});
    for (int j = 0; j < R; ++j) dt::substitute_pair(e[0], j, T(0), x1[0][j], x2[0][j]);
    return {x1, x2};
  }
  for (int l = 0; l < h; ++l) {
    const int m = L - 1 - l;
    e[l] = dt::eliminate_pair(P[l], Q[l], l == 0, l > 0 ? e[l - 1] : dt::EliminatedPair<T, R>{});
    e[m] = dt::eliminate_pair(dt::mirrored(Q[m]), dt::mirrored(P[m]), l == 0,
                              l > 0 ? e[m + 1] : dt::EliminatedPair<T, R>{});
  }
  for (int j = 0; j < R; ++j) {
    dt::substitute_pair(e[h - 1], j, dt::twisted_across(e[h - 1], e[h], j), x1[h - 1][j],
                        x2[h - 1][j]);
    dt::substitute_pair(e[h], j, dt::twisted_across(e[h], e[h - 1], j), x1[h][j], x2[h][j]);
    for (int l = h - 2; l >= 0; --l) dt::substitute_pair(e[l], j, x1[l + 1][j], x1[l][j], x2[l][j]);
    for (int m = h + 1; m < L; ++m) dt::substitute_pair(e[m], j, x1[m - 1][j], x1[m][j], x2[m][j]);
  }
  LaneUnknowns<T, R> u{x1, x2};  // first, last: x1, x2 in the upper half, swapped in the lower
  for (int m = h; m < L; ++m) std::swap(u.first[m], u.last[m]);
  return u;
}

/// cuda::detail::guarded_reduced_solve on the CPU (one group of L lanes): the warp's tree,
/// watched by ReducedGrowth (with the kernels' limit unless `limit` is given), solved again in
/// order where it flags (`flagged`, where given, says whether it did).
template <class T, int R>
LaneUnknowns<T, R> emulate_guarded_solve(const std::vector<cuda::detail::Row<T, R>>& P,
                                         const std::vector<cuda::detail::Row<T, R>>& Q,
                                         bool* flagged = nullptr,
                                         double limit = cuda::detail::ReducedGrowth::kLimit) {
  cuda::detail::ReducedGrowth growth{limit};
  LaneUnknowns<T, R> x = emulate_warp_solve(P, Q, growth);
  if (flagged) *flagged = growth.flagged;
  return growth.flagged ? emulate_twisted_solve(P, Q) : x;
}

/// The warp method on one system (n ≤ L·K) with L = 32 lanes.
/// `rows_of(0, n).view(0, n)` is the rows accessor of the whole system.
template <int K, class T, class RowsOf>
std::vector<T> emulate_warp(const RowsOf& rows_of, const std::vector<T>& d) {
  using cuda::detail::Row4;
  constexpr int L = cuda::detail::kWarpLanes;
  const index_t n = static_cast<index_t>(d.size());
  auto tile = make_tile<K>(d, 0, static_cast<int>(n));
  const PaddedIndex<K> idx{PaddedIndex<K>::system_stride(static_cast<int>(n))};
  const TileVector<T, PaddedIndex<K>> v{tile.data(), idx, 0, 0};
  const auto holder = rows_of(0, static_cast<int>(n));
  const auto rows = holder.view(0, n);
  std::vector<cuda::detail::LaneState<K, T>> st(L);
  std::vector<Row4<T>> P(L), Q(L);
  for (int l = 0; l < L; ++l) cuda::detail::lane_reduce<K>(rows, v, l * K, n, st[l], P[l], Q[l]);
  const auto xr = emulate_warp_solve(P, Q);
  for (int l = 0; l < L; ++l)
    cuda::detail::lane_substitute<K>(st[l], v, l * K, n, xr.first[l][0], xr.last[l][0]);
  std::vector<T> x(n);
  for (index_t i = 0; i < n; ++i) x[i] = tile[idx(0, static_cast<int>(i))];
  return x;
}

/// How the reduced rows of a warp's lanes (lane l's P, Q: rows 2l, 2l + 1 of a 64-row tridiagonal
/// system) are solved: in order by Thomas (as one lane would; thomas_reduced_solve), by the
/// warp's cyclic reduction and PCR (emulate_warp_solve, as the kernels do), or by the latter
/// guarded, solved again in order by the warp's lanes in turn where ReducedGrowth flags it
/// (as the sweep kernel does for complex systems not declared dominant).
enum class CoarseSolve { thomas, warp_tree, guarded };

/// The reduced rows P, Q of L lanes (or a segmented system's coarse rows F, L of L segments)
/// solved in order (CoarseSolve::thomas), by the reference's Thomas on the 2L-row system they
/// form; the reference reads neither P[0].a nor Q[L − 1].c.
template <class T>
LaneUnknowns<T, 1> thomas_reduced_solve(const std::vector<cuda::detail::Row4<T>>& P,
                                        const std::vector<cuda::detail::Row4<T>>& Q) {
  using S = std::conditional_t<std::is_same_v<T, double>, double, std::complex<double>>;
  const index_t L = static_cast<index_t>(P.size()), nc = 2 * L;
  std::vector<S> a(nc), b(nc), c(nc), d(nc), x(nc), work(nc);
  const auto put = [&](index_t e, const cuda::detail::Row4<T>& r) {
    a[e] = reinterpret_cast<const S&>(r.a);
    b[e] = reinterpret_cast<const S&>(r.b);
    c[e] = reinterpret_cast<const S&>(r.c);
    d[e] = reinterpret_cast<const S&>(r.d[0]);
  };
  for (index_t l = 0; l < L; ++l) {
    put(2 * l, P[l]);
    put(2 * l + 1, Q[l]);
  }
  const BatchLayout cl = BatchLayout::contiguous(nc);
  reference::solve_general(nc, 1, a.data(), b.data(), c.data(), d.data(), cl, x.data(), cl,
                           work.data(), nc);
  LaneUnknowns<T, 1> u{std::vector<std::array<T, 1>>(L), std::vector<std::array<T, 1>>(L)};
  for (index_t l = 0; l < L; ++l) {
    u.first[l][0] = reinterpret_cast<const T&>(x[2 * l]);
    u.last[l][0] = reinterpret_cast<const T&>(x[2 * l + 1]);
  }
  return u;
}

/// The sweep method on one shifted system, as sweep_kernel runs it: the tables and the warp's
/// arrays at sweep_slot (d zero past n, the slots between lanes NaN: never read), each lane's
/// sweep_reduce, the reduced rows solved as `coarse` says (`flagged`, where given: whether the
/// guard flagged them), each lane's sweep_substitute.
/// c′ in the warp's shared array, or with RegisterRows > 0 in each lane's registers
/// (SweepRegisterKept, K ≤ RegisterRows), and v there too where `Lanes` (SweepLaneKept, the
/// kernel's SweepStaging::buffers).
template <int RegisterRows = 0, bool Lanes = false, class T>
std::vector<T> emulate_sweep(const cuda::detail::ShiftedMatrix<T>& m, T s, const std::vector<T>& d,
                             int requested, CoarseSolve coarse = CoarseSolve::warp_tree,
                             bool* flagged = nullptr) {
  namespace dt = cuda::detail;
  constexpr int L = dt::kWarpLanes;
  const int n = static_cast<int>(m.n);
  const int K = dt::sweep_rows(n, requested);
  const float inv_k = 1.0f / static_cast<float>(K);
  const int A = dt::sweep_array(K);
  const T nan(std::numeric_limits<double>::quiet_NaN());
  std::vector<T> ad(A, nan), md(A, nan), ao(A, nan), mo(A, nan), dx(A, nan), cp(A, nan), vv(A, nan);
  for (int r = 0; r <= L * K; ++r) {
    const int t = dt::sweep_slot(r, inv_k);
    const dt::ShiftedMatrixRow<T> e = dt::shifted_matrix_row(m, r);
    ad[t] = e.ad;
    md[t] = e.md;
    ao[t] = e.ao;
    mo[t] = e.mo;
    if (r < L * K) dx[t] = r < n ? d[r] : T(0);
  }
  const dt::SweepRows<T> rows{ad.data(), md.data(), ao.data(), mo.data(), s};
  std::vector<dt::Row4<T>> P(L), Q(L);
  const auto lanes = [&](auto&& kept_of) {
    for (int l = 0; l < L; ++l)
      dt::sweep_reduce(rows, dx.data(), kept_of(l), l * (K + 1), K, P[l], Q[l]);
    if (flagged) *flagged = false;
    const auto xr = coarse == CoarseSolve::thomas    ? thomas_reduced_solve(P, Q)
                    : coarse == CoarseSolve::guarded ? emulate_guarded_solve(P, Q, flagged)
                                                     : emulate_warp_solve(P, Q);
    for (int l = 0; l < L; ++l)
      dt::sweep_substitute(dx.data(), kept_of(l), l * (K + 1), K, xr.first[l][0], xr.last[l][0]);
  };
  if constexpr (Lanes) {
    EXPECT_LE(K, RegisterRows);
    std::vector<dt::SweepLaneKept<T, RegisterRows>> kept(L);
    for (auto& k : kept)
      for (int i = 0; i < RegisterRows; ++i)  // NaN: a c′ or v the reduction did not write fails
        k.c(i) = k.v(i) = nan;
    lanes([&](int l) -> auto& { return kept[l]; });
  } else if constexpr (RegisterRows > 0) {
    EXPECT_LE(K, RegisterRows);
    std::vector<dt::SweepRegisterKept<T, RegisterRows>> kept(L);
    for (int l = 0; l < L; ++l) {
      kept[l].vv = vv.data();
      kept[l].base = l * (K + 1);
      for (int i = 0; i < RegisterRows; ++i)  // NaN: a c′ the reduction did not write fails
        kept[l].c(i) = nan;
    }
    lanes([&](int l) -> auto& { return kept[l]; });
  } else {
    std::vector<dt::SweepSharedKept<T>> kept;
    for (int l = 0; l < L; ++l) kept.push_back({{vv.data(), l * (K + 1)}, cp.data()});
    lanes([&](int l) -> auto& { return kept[l]; });
  }
  std::vector<T> x(n);
  for (int r = 0; r < n; ++r) x[r] = dx[dt::sweep_slot(r, inv_k)];
  return x;
}

/// Which kernel of the window method emulate_window follows: sweep_window_kernel (rows
/// contiguous) or the columns method's windows (rows side by side: columns_pass's Windows).
enum class WindowKernel { sweep, columns };

/// The segment lanes over a padded tile of the whole system and the rows accessor of a holder
/// (the rows and right-hand side the partition and warp kernels see, checked at n). Each lane
/// solves its interior again once its interface values are known (lane_resolve), or with
/// `KeepState` substitutes it from the LaneState its last reduction kept (lane_substitute), as the
/// general form's segment and block kernels do (substitutes_from_state).
template <int K, class T, class Holder, bool KeepState = false>
struct TileLanes {
  index_t n;
  std::vector<T> tile;
  Holder holder;
  std::vector<cuda::detail::LaneState<K, T>> states{};  // KeepState: lane p / K's
  PaddedIndex<K> idx() const { return {PaddedIndex<K>::system_stride(static_cast<int>(n))}; }
  TileVector<T, PaddedIndex<K>> vec() { return {tile.data(), idx(), 0, 0}; }
  void reduce(index_t p, cuda::detail::Row4<T>& P, cuda::detail::Row4<T>& Q) {
    if constexpr (KeepState) {
      const std::size_t l = static_cast<std::size_t>(p / K);
      if (states.size() <= l) {  // NaN: a state the reduction did not write fails the check
        const T nan(std::numeric_limits<double>::quiet_NaN());
        cuda::detail::LaneState<K, T> unset;
        for (int i = 0; i < K; ++i) unset.D[i] = unset.G[i] = unset.H[i] = nan;
        states.resize(l + 1, unset);
      }
      cuda::detail::lane_reduce<K>(holder.view(0, n), vec(), p, n, states[l], P, Q);
    } else {
      cuda::detail::lane_reduce<K>(holder.view(0, n), vec(), p, n, P, Q);
    }
  }
  void resolve(index_t p, T x_first, T x_last) {
    if constexpr (KeepState)
      cuda::detail::lane_substitute<K>(states.at(static_cast<std::size_t>(p / K)), vec(), p, n,
                                       x_first, x_last);
    else
      cuda::detail::lane_resolve<K>(holder.view(0, n), vec(), p, n, x_first, x_last);
  }
  std::vector<T> x() const {
    std::vector<T> x(n);
    for (index_t i = 0; i < n; ++i) x[i] = tile[idx()(0, static_cast<int>(i))];
    return x;
  }
};
template <int K, bool KeepState = false, class T, class RowsOf>
TileLanes<K, T, std::invoke_result_t<RowsOf, index_t, int>, KeepState> tile_lanes(
    const RowsOf& rows_of, const std::vector<T>& d) {
  const index_t n = static_cast<index_t>(d.size());
  return {n, make_tile<K>(d, 0, static_cast<int>(n)), rows_of(0, static_cast<int>(n))};
}

/// The shifted form's lanes as the register kernels run them: each pass loads the lane's K rows of
/// d into registers (LaneVector, zero past n) and takes its rows of A and M from `tables`
/// (identity rows past n), with no bounds checks in the lane steps.
template <int K, class T, class Tables>
struct ShiftedLanes {
  cuda::detail::ShiftedMatrix<T> m;
  T s;
  std::vector<T> d;
  std::vector<T> out;
  Tables tables;
  std::array<T, K> v{};

  /// The rows of lane p with its right-hand side loaded into v.
  auto load(index_t p) {
    for (int i = 0; i < K; ++i) v[i] = p + i < m.n ? d[p + i] : T(0);
    return tables.rows(m, s, p);
  }
  void reduce(index_t p, cuda::detail::Row4<T>& P, cuda::detail::Row4<T>& Q) {
    const auto rows = load(p);
    cuda::detail::lane_reduce<K>(rows, cuda::detail::LaneVector<T>{v.data(), p}, p, m.n, P, Q);
  }
  void resolve(index_t p, T x_first, T x_last) {
    const auto rows = load(p);
    const cuda::detail::LaneVector<T> lv{v.data(), p};
    cuda::detail::lane_resolve<K>(rows, lv, p, m.n, x_first, x_last);
    for (int i = 0; i < K; ++i)
      if (p + i < m.n) out[p + i] = v[i];
  }
  std::vector<T> x() const { return out; }
};

/// The segment kernel's tables: the lane's rows of A and M loaded for each pass
/// (ShiftedSegmentForm::load into the slots of lane 0).
template <int K, class T>
struct SegmentTables {
  using Coefs = cuda::detail::ShiftedLaneCoefs<K, T>;
  std::vector<T> table = std::vector<T>(Coefs::elements);
  cuda::detail::ShiftedLaneRows<K, T> rows(const cuda::detail::ShiftedMatrix<T>& m, const T& s,
                                           index_t p) {
    const cuda::detail::ShiftedSegmentForm<T> form{m, &s};
    const Coefs c{table.data(), 0};
    form.template load<K>(c, p);
    return form.template rows<K>(c, 0, p, cuda::detail::Strides{});
  }
};

/// The columns kernel's table: the current segment's chunks·K rows of A and M (the kernel's own
/// ColumnTable::load, when the segment changes).
template <int K, class T>
struct ColumnTables {
  int chunks;
  std::vector<T> storage = std::vector<T>(4 * cuda::detail::columns_table_column(chunks, K, true));
  index_t loaded = -1;
  /// The rows of the lane whose first row is p (chunk (p − p0) / K of its segment).
  cuda::detail::ColumnTableRows<T, K, true> rows(const cuda::detail::ShiftedMatrix<T>& m,
                                                 const T& s, index_t p) {
    using Table = cuda::detail::ColumnTable<T, K>;
    const Table table{storage.data(), Table::slots_of(chunks)};
    const index_t p0 = p / (chunks * K) * (chunks * K);
    if (p0 != loaded) {
      table.load(m, p0, 0, 1);
      loaded = p0;
    }
    return {table.lane_table(static_cast<int>((p - p0) / K)), s, p0};
  }
};

/// The columns kernel's threads through tiles (ColumnsStage::tiles: one segment, the shifted form)
/// where columns_tile_sweeps: every chunk solved in place in the unit's tile as the sweep method's
/// lanes solve their rows (sweep_reduce over the chunked ColumnTable, whose slot after a chunk
/// holds the next chunk's first row; c′ and v kept per chunk, NaN until written; sweep_substitute),
/// the tile holding every chunk's K rows, zero past n.
template <int K, class T>
struct ColumnSweepLanes {
  using Table = cuda::detail::ColumnTable<T, K>;
  index_t n;
  T s;
  std::vector<T> storage, tile;
  Table table;
  std::vector<cuda::detail::SweepLaneKept<T, K>> kept;

  ColumnSweepLanes(const cuda::detail::ShiftedMatrix<T>& m, T shift, const std::vector<T>& d,
                   int chunks)
      : n(m.n),
        s(shift),
        storage(4 * Table::slots_of(chunks)),
        tile(static_cast<std::size_t>(chunks) * K, T(0)),
        table{storage.data(), Table::slots_of(chunks)},
        kept(chunks) {
    table.load(m, 0, 0, 1);
    std::copy(d.begin(), d.end(), tile.begin());
    const T nan(std::numeric_limits<double>::quiet_NaN());
    for (auto& k : kept)
      for (int i = 0; i < K; ++i) k.c(i) = k.v(i) = nan;
  }
  void reduce(index_t p, cuda::detail::Row4<T>& P, cuda::detail::Row4<T>& Q) {
    const int c = static_cast<int>(p / K);
    cuda::detail::sweep_reduce(table.sweep_rows(c, s), tile.data() + p, kept[c], 0, K, P, Q);
  }
  void resolve(index_t p, T x_first, T x_last) {
    cuda::detail::sweep_substitute(tile.data() + p, kept[p / K], 0, K, x_first, x_last);
  }
  std::vector<T> x() const { return {tile.begin(), tile.begin() + n}; }
};

/// The segment (and block) kernels' lanes on the shifted form.
template <int K, class T>
using RegisterLanes = ShiftedLanes<K, T, SegmentTables<K, T>>;
/// The columns kernel's threads on the shifted form.
template <int K, class T>
using ColumnLanes = ShiftedLanes<K, T, ColumnTables<K, T>>;

/// Segment j's coarse rows F, L as segment_kernel's reduce pass computes them: its L lanes of K
/// rows reduce (lanes.reduce), warp_condense's tree condenses their rows (at step s, lane l, a
/// multiple of 2s, with lane l + s).
template <int K, class T, class Lanes>
cuda::detail::Condensed<T> condense_segment(Lanes& lanes, index_t j, int L) {
  std::vector<cuda::detail::Condensed<T>> c(L);
  for (int l = 0; l < L; ++l) lanes.reduce((j * L + l) * K, c[l].F, c[l].L);
  for (int s = 1; s < L; s <<= 1)
    for (int l = 0; l + s < L; l += 2 * s) c[l] = cuda::detail::condense(c[l], c[l + s]);
  return c[0];
}

/// Segment j's coarse rows F, L as segment_lanes_reduce_kernel computes them: one lane eliminates
/// the segment's L·K rows downward (LaneChain::before_first, every row taken alike; identity rows
/// with a zero right-hand side past n, as the kernel's zero-filled copies and its guard make them)
/// and keeps the first and last (lane_reduced_rows).
template <int K, class T, class Tables>
cuda::detail::Condensed<T> eliminate_segment(ShiftedLanes<K, T, Tables>& lanes, index_t j, int L) {
  namespace dt = cuda::detail;
  const index_t n = lanes.m.n, p = j * L * K;
  const dt::ShiftedRows<T> A{lanes.m, lanes.s};
  const dt::LaneVector<T> v{lanes.d.data(), 0};
  auto row = [&](index_t r) { return dt::lane_row<T>(A, v, r, n); };
  auto chain = dt::LaneChain<T>::before_first();
  for (index_t r = p + 1; r < p + L * K - 1; ++r) {
    const dt::Row4<T> x = row(r);
    chain.take(false, x.a, x.b, x.c, x.d[0]);
  }
  dt::Condensed<T> c;
  dt::lane_reduced_rows(row(p), row(p + L * K - 1), chain.alpha, chain.beta, chain.gamma, chain.e,
                        chain.g, -chain.f, c.F, c.L);
  return c;
}

/// Segment j's rows solved by one lane, its first and last unknowns given, as
/// segment_lanes_substitute_kernel solves them: a LaneChain down the interior whose e carries
/// y_i = e_i + g_i x_first from the start (the kernel restarts it per tile from the reduce pass's
/// checkpoints as e + g x_first, the same values up to rounding), x_i = y_i − f_i x_{i+1} upward
/// from x_last; rows past n are not written.
template <int K, class T, class Tables>
void substitute_segment(ShiftedLanes<K, T, Tables>& lanes, index_t j, int L, T x_first, T x_last) {
  namespace dt = cuda::detail;
  const index_t n = lanes.m.n, p = j * L * K, rows = L * K;
  const dt::ShiftedRows<T> A{lanes.m, lanes.s};
  const dt::LaneVector<T> v{lanes.d.data(), 0};
  std::vector<T> cp(rows, T(0)), y(rows);
  y[0] = x_first;
  y[rows - 1] = x_last;
  auto chain = dt::LaneChain<T>::before_first();
  chain.e = chain.e + chain.g * x_first;
  for (index_t i = 1; i < rows - 1; ++i) {
    const dt::Row4<T> x = dt::lane_row<T>(A, v, p + i, n);
    chain.take(false, x.a, x.b, x.c, x.d[0]);
    cp[i] = chain.f;
    y[i] = chain.e;
  }
  T next = x_last;
  for (index_t i = rows - 1; i >= 0; --i) {
    next = y[i] - cp[i] * next;
    if (p + i < n) lanes.out[p + i] = next;
  }
}

/// Which passes emulate_segment follows where a system has several segments: lanes of K rows,
/// the condensing tree (condense_segment) and the warp's solve of the lanes' reduced rows, or one
/// lane per segment (eliminate_segment, substitute_segment), as complex shifted systems run them.
enum class SegmentPasses { tree, lanes };

/// The segment method on one system, as segment_kernel and run_segment compute it, with the
/// lanes' rows from `lanes` (TileLanes, RegisterLanes or ColumnLanes) and segments of L lanes
/// (chunks of the columns method): one pass for one segment (L lanes: reduce, warp solve, the
/// interior solved again from the interface values); else per segment its coarse rows F, L, the
/// coarse system is solved (by the reference's Thomas here: thomas_reduced_solve), and each segment
/// solves its reduced rows with the first and last fixed to the coarse solution, both passes as
/// `passes` says. The columns method computes the same with a thread per lane. The reduced rows of
/// complex systems of more than 4 rows per lane are solved guarded, as the kernels do
/// (kGuardedLanes, emulate_guarded_solve), unless `coarse` is CoarseSolve::warp_tree; `flagged`,
/// where given, says whether the guard flagged any segment's.
template <int K, class T, class Lanes>
std::vector<T> emulate_segment(Lanes lanes, index_t n, int L, index_t segments,
                               SegmentPasses passes = SegmentPasses::tree,
                               CoarseSolve coarse = CoarseSolve::guarded, bool* flagged = nullptr) {
  using cuda::detail::Row4;
  std::vector<std::vector<Row4<T>>> P(segments, std::vector<Row4<T>>(L)), Q = P;
  LaneUnknowns<T, 1> xc;  // each segment's first and last unknowns
  if (segments > 1) {
    std::vector<Row4<T>> F(segments), Last(segments);  // each segment's coarse rows
    for (index_t j = 0; j < segments; ++j) {           // reduce
      cuda::detail::Condensed<T> c;
      if constexpr (std::is_same_v<Lanes, RegisterLanes<K, T>>)
        c = passes == SegmentPasses::lanes ? eliminate_segment(lanes, j, L)
                                           : condense_segment<K, T>(lanes, j, L);
      else
        c = condense_segment<K, T>(lanes, j, L);
      F[j] = c.F;
      Last[j] = c.L;
    }
    xc = thomas_reduced_solve(F, Last);
  }
  if (flagged) *flagged = false;
  for (index_t j = 0; j < segments; ++j) {  // substitute (the whole pass for one segment)
    if constexpr (std::is_same_v<Lanes, RegisterLanes<K, T>>) {
      if (segments > 1 && passes == SegmentPasses::lanes) {
        substitute_segment(lanes, j, L, xc.first[j][0], xc.last[j][0]);
        continue;
      }
    }
    for (int l = 0; l < L; ++l) lanes.reduce((j * L + l) * K, P[j][l], Q[j][l]);
    if (segments > 1) {
      P[j][0] = {T(0), T(1), T(0), {xc.first[j][0]}};
      Q[j][L - 1] = {T(0), T(1), T(0), {xc.last[j][0]}};
    }
    const bool guarded = cuda::detail::kGuardedLanes<K, T> && coarse == CoarseSolve::guarded;
    bool segment_flagged = false;
    const auto xr = guarded ? emulate_guarded_solve(P[j], Q[j], &segment_flagged)
                            : emulate_warp_solve(P[j], Q[j]);
    if (flagged) *flagged = *flagged || segment_flagged;
    for (int l = 0; l < L; ++l) lanes.resolve((j * L + l) * K, xr.first[l][0], xr.last[l][0]);
  }
  return lanes.x();
}

/// The segment method's segments (segment_width, segment_count).
template <int K, class T, class Lanes>
std::vector<T> emulate_segment(Lanes lanes, index_t n, SegmentPasses passes = SegmentPasses::tree,
                               CoarseSolve coarse = CoarseSolve::guarded, bool* flagged = nullptr) {
  return emulate_segment<K, T>(std::move(lanes), n, cuda::detail::segment_width(n, K),
                               cuda::detail::segment_count(n, K), passes, coarse, flagged);
}

/// Whether every window's rows (sweep_window's geometry: 32·kWindowLaneRows rows) meet the window
/// method's bound at shift s as the kernels' watch checks them: WindowWatch::rows_bounded on each
/// lane's rows of each window's tables (window_matrix's rows as shifted_matrix_row lays them out:
/// a cut row's coupling outside its window zero, identity rows past its end), as the columns
/// windows and the sweep window kernel's real shifts take them (every row of the window, K per
/// lane); for complex shifts the sweep window kernel's lanes, which must find the same, check only
/// the rows the window writes (WindowWatch::lane_rows per lane) from the window's quadratics
/// (WindowWatch::set_written, written_bounded).
template <class T>
bool window_watch_bounded(const cuda::detail::ShiftedMatrix<T>& m, T s) {
  namespace dt = cuda::detail;
  constexpr int K = cuda::kWindowLaneRows, kRows = dt::kWarpLanes * K;
  constexpr int R = dt::WindowWatch::lane_rows<K>();
  const index_t inner = kRows - 2 * cuda::kWindowHaloRows;
  const dt::WindowWatch watch{nullptr, cuda::window_theta()};
  std::vector<T> ad(kRows + 1), md(kRows + 1), ao(kRows + 1), mo(kRows + 1);
  constexpr bool kSquares = !std::is_floating_point_v<T>;
  std::vector<dt::SquarePair> pairs(4 * (kRows + 1));
  const dt::WindowSquares squares{pairs.data(), kRows + 1};
  bool bounded = true, squares_bounded = true;
  for (index_t j = 0; j * inner < m.n; ++j) {
    const dt::SweepWindow w = dt::sweep_window(j, inner, kRows, m.n);
    const dt::ShiftedMatrix<T> wm = dt::window_matrix(m, w);
    for (int r = 0; r <= kRows; ++r) {
      const dt::ShiftedMatrixRow<T> e = dt::shifted_matrix_row(wm, r);
      ad[r] = e.ad;
      md[r] = e.md;
      ao[r] = e.ao;
      mo[r] = e.mo;
      if constexpr (kSquares) dt::WindowWatch::set_written<R>(squares, r - w.write_lo, e);
    }
    const auto slot = [](int r) { return r; };
    for (int lane = 0; lane < dt::kWarpLanes; ++lane) {
      bounded &=
          watch.rows_bounded<K>(ad.data(), md.data(), ao.data(), mo.data(), lane * K, slot, s);
      if constexpr (kSquares) squares_bounded &= watch.written_bounded<R>(squares, lane, s);
    }
  }
  if constexpr (kSquares) EXPECT_EQ(squares_bounded, bounded) << "the rows written, n " << m.n;
  return bounded;
}

/// The window method on one shifted system, as its kernel runs it: each window of 32·16 rows
/// (sweep_window) solved alone as a system of its own (window_matrix), by the sweep's lanes (c′
/// and v in registers: sweep_window_kernel) or by the columns method's whole pass over 32 chunks
/// (columns_pass's Windows), its inner rows kept, and every row checked with its true couplings
/// as the window method's check takes it (shifted_row_bound; `passed`: every row bounded). The
/// kernels' watch (WindowWatch: each window's rows as its tables hold them, a cut row's outside
/// coupling zero) must find what the check finds.
template <class T>
std::vector<T> emulate_window(const cuda::detail::ShiftedMatrix<T>& m, T s, const std::vector<T>& d,
                              bool& passed, WindowKernel kernel) {
  namespace dt = cuda::detail;
  constexpr int K = cuda::kWindowLaneRows, L = dt::kWarpLanes, kRows = L * K;
  const index_t inner = kRows - 2 * cuda::kWindowHaloRows;
  const double theta = cuda::window_theta();
  passed = true;
  for (index_t r = 0; r < m.n; ++r) passed &= dt::shifted_row_bound(m, r).bounded(s, theta);
  EXPECT_EQ(window_watch_bounded(m, s), passed) << "the watch, n " << m.n;
  std::vector<T> x(m.n, T(std::numeric_limits<double>::quiet_NaN()));
  for (index_t j = 0; j * inner < m.n; ++j) {
    const dt::SweepWindow w = dt::sweep_window(j, inner, kRows, m.n);
    const dt::ShiftedMatrix<T> wm = dt::window_matrix(m, w);
    const std::vector<T> dw(d.begin() + w.lo, d.begin() + w.lo + w.rows);
    const std::vector<T> xw =
        kernel == WindowKernel::sweep
            ? emulate_sweep<dt::kSweepLaneRows<T>, true>(wm, s, dw, K)
            : emulate_segment<K, T>(ColumnLanes<K, T>{wm, s, dw, std::vector<T>(dw.size()), {L}},
                                    wm.n, L, 1);
    for (int r = w.write_lo; r < w.write_hi; ++r) x[w.lo + r] = xw[r];
  }
  return x;
}

/// The block method on one system of 2 to kSegmentBlockMaxSegments segments, as
/// segment_block_kernel computes it: per segment the lanes reduce, the warp solves the reduced
/// rows for the spikes (3 right-hand sides) and forms its coarse rows from them; the coarse system
/// is solved by a warp (lane j: segment j's rows; the smallest power of two of lanes ≥ segments,
/// identity rows past the last segment); each lane's interface unknowns follow from its spikes
/// and the neighbouring segments' coarse unknowns, and it solves its interior again. `coarse` says
/// how the spikes' and the coarse system's reduced rows are solved: by the warp's tree, or guarded
/// (as guarded_reduced_solve, each solve on its own, the guard's limit `limit`).
template <int K, class T, class Lanes>
std::vector<T> emulate_block(Lanes lanes, index_t n, CoarseSolve coarse = CoarseSolve::warp_tree,
                             double limit = cuda::detail::ReducedGrowth::kLimit) {
  using cuda::detail::Row;
  using cuda::detail::Row4;
  constexpr int L = cuda::detail::kWarpLanes;
  const index_t segments = cuda::detail::segment_count(n, K);
  int width = 1;
  while (width < segments) width *= 2;
  const Row4<T> identity{T(0), T(1), T(0), {T(0)}};
  std::vector<Row4<T>> F(width, identity), Lc(width, identity);
  std::vector<LaneUnknowns<T, 3>> spikes(segments);
  EXPECT_NE(coarse, CoarseSolve::thomas) << "emulate_block: the tree or the guarded solve";
  const auto solve = [coarse, limit](const auto& P, const auto& Q) {
    return coarse == CoarseSolve::guarded ? emulate_guarded_solve(P, Q, nullptr, limit)
                                          : emulate_warp_solve(P, Q);
  };
  for (index_t j = 0; j < segments; ++j) {
    std::vector<Row<T, 3>> P3(L), Q3(L);
    for (int l = 0; l < L; ++l) {
      Row4<T> P, Q;
      lanes.reduce((j * L + l) * K, P, Q);
      cuda::detail::spike_rows(P, Q, l == 0, l == L - 1, P3[l], Q3[l]);
    }
    spikes[j] = solve(P3, Q3);
    T f[3], l[3];
    for (int r = 0; r < 3; ++r) {
      f[r] = spikes[j].first[0][r];
      l[r] = spikes[j].last[L - 1][r];
    }
    const cuda::detail::Condensed<T> c = cuda::detail::spike_coarse_rows(f, l);
    F[j] = c.F;
    Lc[j] = c.L;
  }
  const auto xc = solve(F, Lc);
  for (index_t j = 0; j < segments; ++j) {
    const T minus = j > 0 ? xc.last[j - 1][0] : T(0);
    const T plus = j + 1 < segments ? xc.first[j + 1][0] : T(0);
    for (int l = 0; l < L; ++l) {
      const auto& xf = spikes[j].first[l];
      const auto& xl = spikes[j].last[l];
      lanes.resolve((j * L + l) * K, xf[0] + xf[1] * minus + xf[2] * plus,
                    xl[0] + xl[1] * minus + xl[2] * plus);
    }
  }
  return lanes.x();
}

/// Shifted rows over the global A, M (what ShiftedForm::rows returns), in the holder interface.
template <class T>
struct ShiftedHolder {
  cuda::detail::ShiftedRows<T> r;
  cuda::detail::ShiftedRows<T> view(index_t, index_t) const { return r; }
};

/// The shifted form staged per block (what StagedShiftedForm::load builds and ::rows returns):
/// diagonals of rows [r0, r0 + lv), off-diagonals [r0 − 1, r0 + lv), in one padded tile system.
template <int M, class T>
struct StagedChunk {
  std::vector<T> ad, ao, md, mo;
  T s;
  cuda::detail::StagedShiftedRows<T, PaddedIndex<M>> view(index_t r0, index_t n) const {
    const PaddedIndex<M> idx{static_cast<int>(ad.size())};
    return {ad.data(), ao.data(), md.data(), mo.data(), idx, s, r0, n};
  }
};

template <int M, class T>
struct StagedChunks {
  cuda::detail::ShiftedMatrix<T> m;
  T s;
  StagedChunk<M, T> operator()(index_t r0, int lv) const {
    const int stride = PaddedIndex<M>::system_stride(lv);
    const PaddedIndex<M> idx{stride};
    StagedChunk<M, T> c{std::vector<T>(stride), std::vector<T>(stride), std::vector<T>(stride),
                        std::vector<T>(stride), s};
    for (int i = 0; i <= lv; ++i) {
      const index_t r = r0 + i;
      if (i < lv) {
        c.ad[idx(0, i)] = m.a_diag[r];
        c.md[idx(0, i)] = m.m_diag[r];
      }
      const bool has_off = r >= 1 && r <= m.n - 1;
      c.ao[idx(0, i)] = has_off ? m.a_off[r - 1] : T(0);
      c.mo[idx(0, i)] = has_off ? m.m_off[r - 1] : T(0);
    }
    return c;
  }
};

// The row accessors marked `symmetric` (lane_reduce's complex chains then derive the spike column
// g from γ: LaneChain) give sub(r + 1) = sup(r) exactly, on every row a lane reads: the shifted
// form's global rows, its staged chunks, the segment kernel's lane tables and the columns kernel's
// table; the accessors of general or reduced rows are not marked.
TEST(RowAccessors, MarkedSymmetricAreSymmetric) {
  namespace dt = cuda::detail;
  using Scalar = std::complex<double>;
  using T = dt::Complex;
  constexpr int K = 8;
  static_assert(dt::is_symmetric<dt::ShiftedRows<T>>::value);
  static_assert(dt::is_symmetric<dt::StagedShiftedRows<T, PaddedIndex<K>>>::value);
  static_assert(dt::is_symmetric<dt::ShiftedLaneRows<K, T>>::value);
  static_assert(dt::is_symmetric<dt::ColumnTableRows<T, K, true>>::value);
  static_assert(!dt::is_symmetric<dt::GeneralGlobalRows<T>>::value);
  static_assert(!dt::is_symmetric<dt::TileRows<T, PaddedIndex<K>>>::value);
  static_assert(!dt::is_symmetric<dt::BlockReducedRows<T>>::value);
  const index_t n = 45;  // lanes past n read identity rows
  const auto t = testing::make_shifted<Scalar>(n, 1, testing::Kind::dominant, 5);
  const dt::ShiftedMatrix<T> m = kernel_matrix(t);
  const T s = reinterpret_cast<const T&>(t.shifts[0]);
  auto expect_symmetric = [](const auto& rows, index_t first, index_t last, const char* what) {
    for (index_t r = first; r < last; ++r)
      EXPECT_TRUE(rows.sub(r + 1) == rows.sup(r)) << what << ", rows " << r << " and " << r + 1;
  };
  expect_symmetric(dt::ShiftedRows<T>{m, s}, 0, n - 1, "global rows");
  for (index_t r0 = 0; r0 < n; r0 += 2 * K) {
    const int lv = static_cast<int>(std::min<index_t>(2 * K, n - r0));
    expect_symmetric(StagedChunks<K, T>{m, s}(r0, lv).view(r0, n), r0,
                     std::min<index_t>(r0 + lv, n - 1), "staged chunk");
  }
  SegmentTables<K, T> lane_tables;
  ColumnTables<K, T> column_tables{4};
  for (index_t p = 0; p < n + K; p += K) {
    expect_symmetric(lane_tables.rows(m, s, p), p, p + K - 1, "segment lane table");
    expect_symmetric(column_tables.rows(m, s, p), p, p + K - 1, "columns table");
  }
}

// A symmetric LaneChain (g = γ/p and β = Σ γ g, turned into the spike's by symmetric_end)
// against the general one (g's own recurrence) on the same complex symmetric rows (the shifted
// form's, diagonally dominant, so that γ decays as in the solvers): e and f the same bit for bit
// at every row, and g, α, β, γ after symmetric_end at every row (a copy of the chain ended there).
TEST(LaneChain, SymmetricMatchesGeneralOnSymmetricRows) {
  namespace dt = cuda::detail;
  using Scalar = std::complex<double>;
  using T = dt::Complex;
  const index_t n = 40;
  const auto t = testing::make_shifted<Scalar>(n, 1, testing::Kind::dominant, 9);
  const dt::ShiftedMatrix<T> m = kernel_matrix(t);
  const dt::ShiftedRows<T> A{m, reinterpret_cast<const T&>(t.shifts[0])};
  const std::vector<Scalar> d = pscr::testing::random_vector<Scalar>(n, 10);
  auto as_std = [](const T& z) { return Scalar(z.re, z.im); };
  const double tol = pscr::testing::tolerance<Scalar>(n, 1.0);
  auto expect_near = [&](const T& got, const T& want, index_t r, const char* what) {
    EXPECT_LE(std::abs(as_std(got) - as_std(want)), tol * std::abs(as_std(want)))
        << what << " at row " << r;
  };
  dt::LaneChain<T> general;
  dt::LaneChain<T, true> symmetric;
  const T toward_first = A.sub(1);  // row 1's coupling to the end row, row 0
  for (index_t r = 1; r < n; ++r) {
    const T dr = reinterpret_cast<const T&>(d[r]);
    general.take(r == 1, A.sub(r), A.diag(r), A.sup(r), dr);
    symmetric.take(r == 1, A.sub(r), A.diag(r), A.sup(r), dr);
    EXPECT_TRUE(symmetric.e == general.e && symmetric.f == general.f) << "row " << r;
    dt::LaneChain<T, true> ended = symmetric;
    ended.symmetric_end(toward_first);
    expect_near(ended.g, general.g, r, "g");
    expect_near(ended.alpha, general.alpha, r, "alpha");
    expect_near(ended.beta, general.beta, r, "beta");
    expect_near(ended.gamma, general.gamma, r, "gamma");
  }
}

// The kernels' complex arithmetic (tridiag/cuda/complex.cuh) against std::complex, on values of
// the magnitudes the solvers see and on divisors far from 1.
TEST(KernelComplex, MatchesStdComplex) {
  using cuda::detail::Complex;
  const auto v = pscr::testing::random_vector<std::complex<double>>(64, 77);
  auto as_std = [](const Complex& z) { return std::complex<double>(z.re, z.im); };
  for (std::size_t i = 0; i + 1 < v.size(); ++i) {
    const double scale = i % 3 == 0 ? 1e-5 : (i % 3 == 1 ? 1.0 : 1e6);
    const std::complex<double> a = v[i], b = v[i + 1] * scale;
    const Complex ka(a.real(), a.imag()), kb(b.real(), b.imag());
    const double tol = pscr::testing::tolerance<std::complex<double>>(4, 1.0);
    EXPECT_LE(std::abs(as_std(ka * kb) - a * b), tol * std::abs(a * b)) << i;
    EXPECT_LE(std::abs(as_std(ka / kb) - a / b), tol * std::abs(a / b)) << i;
    EXPECT_LE(std::abs(as_std(ka + kb) - (a + b)), tol * (std::abs(a) + std::abs(b))) << i;
    EXPECT_LE(std::abs(as_std(ka - kb) - (a - b)), tol * (std::abs(a) + std::abs(b))) << i;
    EXPECT_EQ(as_std(-ka), -a);
    EXPECT_EQ(as_std(Complex(2.5)), std::complex<double>(2.5));
  }
}

template <class Scalar>
class EmulationTest : public ::testing::Test {};
TYPED_TEST_SUITE(EmulationTest, pscr::testing::ScalarTypes);

/// A method emulated on every system of t, all its forms: `emulate(rows_of, d)`, where given,
/// returns x for one system (rows_of: the rows accessor holders of the method's tiles, padded with
/// period P); `registers(m, s, d)`, where given, the shifted form from the method's own tables;
/// `label` names the method in failure messages.
template <int P, class Scalar, class Emulate, class Registers = std::nullptr_t>
void check_method(const testing::Batch<Scalar>& t, bool shifted, const std::string& label,
                  const Emulate& emulate, const Registers& registers = nullptr) {
  using T = cuda::detail::kernel_scalar_t<Scalar>;
  const index_t n = t.n;
  std::vector<Scalar> ref(n * t.batch), work(n);
  const BatchLayout l = BatchLayout::contiguous(n);
  reference::solve_general(n, t.batch, t.a.data(), t.b.data(), t.c.data(), t.d.data(), l,
                           ref.data(), l, work.data(), n);
  const auto cond = testing::condition_numbers(t);
  for (index_t k = 0; k < t.batch; ++k) {
    std::vector<T> d(n), a(n), b(n), c(n);
    for (index_t r = 0; r < n; ++r) {
      d[r] = reinterpret_cast<const T&>(t.d[k * n + r]);
      a[r] = reinterpret_cast<const T&>(t.a[k * n + r]);
      b[r] = reinterpret_cast<const T&>(t.b[k * n + r]);
      c[r] = reinterpret_cast<const T&>(t.c[k * n + r]);
    }
    auto check = [&](const std::vector<T>& x, const char* variant) {
      std::vector<Scalar> xs(n * t.batch);
      for (index_t r = 0; r < n; ++r) xs[k * n + r] = reinterpret_cast<const Scalar&>(x[r]);
      // Both solves are backward stable on these systems: as in test_reference.cpp.
      EXPECT_LE(testing::forward_error(xs, ref, n, k),
                pscr::testing::tolerance<Scalar>(200, cond[k]))
          << variant << ", " << label << ", n " << n << ", system " << k;
    };
    if (shifted) {
      const cuda::detail::ShiftedMatrix<T> m = kernel_matrix(t);
      const T s = reinterpret_cast<const T&>(t.shifts[k]);
      if constexpr (!std::is_null_pointer_v<Emulate>) {
        const ShiftedHolder<T> holder{{m, s}};
        check(emulate([&](index_t, int) { return holder; }, d), "shifted");
        check(emulate(StagedChunks<P, T>{m, s}, d), "shifted, staged");
      }
      if constexpr (!std::is_null_pointer_v<Registers>)
        check(registers(m, s, d), "shifted, lane tables");
    } else if constexpr (!std::is_null_pointer_v<Emulate>) {
      check(emulate(GeneralChunks<P, T>{&a, &b, &c}, d), "general");
    }
  }
}

/// The partition method with M rows per partition, chunks of chunk_partitions partitions (0:
/// whole systems in one chunk).
template <int M, class Scalar>
void check_case(const testing::Batch<Scalar>& t, index_t chunk_partitions, bool shifted) {
  const index_t chunk = chunk_partitions > 0 ? chunk_partitions * M : t.n;
  check_method<M>(
      t, shifted, "partition M " + std::to_string(M) + ", chunk " + std::to_string(chunk),
      [&](const auto& rows_of, const auto& d) { return emulate_partition<M>(rows_of, d, chunk); });
}

/// A register method (emulate_warp<K> or emulate_segment<K>) with K rows per lane.
template <int K, class Scalar, class Emulate, class Registers = std::nullptr_t>
void check_lanes(const testing::Batch<Scalar>& t, bool shifted, const char* method,
                 const Emulate& emulate, const Registers& registers = nullptr) {
  check_method<K>(t, shifted, std::string(method) + " K " + std::to_string(K), emulate, registers);
}

/// Every size up to 32·K from the issue's list (and the ones that fill all lanes exactly).
template <class Scalar, int K>
void warp_sweep(testing::Kind kind, std::uint64_t seed) {
  const std::vector<index_t> sizes = {1,  2,  3,  4,   5,   15,  16,  17,  31,  32, 33,
                                      63, 64, 65, 127, 128, 255, 256, 257, 511, 512};
  auto emulate = [](const auto& rows_of, const auto& d) { return emulate_warp<K>(rows_of, d); };
  for (index_t n : sizes) {
    if (n > cuda::detail::kWarpLanes * K) continue;
    check_lanes<K>(testing::make_shifted<Scalar>(n, 2, kind, seed++), true, "warp", emulate);
    if (kind == testing::Kind::dominant)
      check_lanes<K>(testing::make_general<Scalar>(n, 2, testing::Kind::dominant, seed++), false,
                     "warp", emulate);
  }
}

/// The segment method on sizes around lane and segment boundaries, up to 40 segments, and the
/// block method where it applies (2 to 16 segments).
template <class Scalar, int K>
void segment_sweep(testing::Kind kind, std::uint64_t seed, double scale = 1) {
  constexpr index_t lane = K, warp = cuda::detail::kWarpLanes * K;
  const std::vector<index_t> sizes = {1,
                                      2,
                                      3,
                                      lane - 1,
                                      lane + 1,
                                      warp - 1,
                                      warp,
                                      warp + 1,
                                      3 * warp + 5,
                                      8 * warp - 1,
                                      8 * warp,
                                      16 * warp,
                                      40 * warp + 3};
  auto emulate = [](const auto& rows_of, const auto& d) {
    return emulate_segment<K, typename std::decay_t<decltype(d)>::value_type>(
        tile_lanes<K>(rows_of, d), static_cast<index_t>(d.size()));
  };
  auto registers = [](const auto& m, const auto& s, const auto& d) {
    using T = std::decay_t<decltype(s)>;
    return emulate_segment<K, T>(RegisterLanes<K, T>{m, s, d, std::vector<T>(d.size())}, m.n);
  };
  auto block_emulate = [](const auto& rows_of, const auto& d) {
    return emulate_block<K, typename std::decay_t<decltype(d)>::value_type>(
        tile_lanes<K>(rows_of, d), static_cast<index_t>(d.size()));
  };
  // The general form's kernels substitute from the kept state where their rule says so.
  auto general_emulate = [](const auto& rows_of, const auto& d) {
    using T = typename std::decay_t<decltype(d)>::value_type;
    constexpr bool keep = cuda::detail::GeneralSegmentForm<T>::template substitutes_from_state<K>;
    return emulate_segment<K, T>(tile_lanes<K, keep>(rows_of, d), static_cast<index_t>(d.size()));
  };
  auto general_block_emulate = [](const auto& rows_of, const auto& d) {
    using T = typename std::decay_t<decltype(d)>::value_type;
    constexpr bool keep =
        cuda::detail::segment_block_substitutes_from_state<cuda::detail::GeneralSegmentForm<T>, K,
                                                           T>();
    return emulate_block<K, T>(tile_lanes<K, keep>(rows_of, d), static_cast<index_t>(d.size()));
  };
  auto block_registers = [](const auto& m, const auto& s, const auto& d) {
    using T = std::decay_t<decltype(s)>;
    return emulate_block<K, T>(RegisterLanes<K, T>{m, s, d, std::vector<T>(d.size())}, m.n);
  };
  for (index_t n : sizes) {
    check_lanes<K>(testing::scaled_by(testing::make_shifted<Scalar>(n, 1, kind, seed++), scale),
                   true, "segment", emulate, registers);
    if (kind == testing::Kind::dominant)
      check_lanes<K>(testing::make_general<Scalar>(n, 1, testing::Kind::dominant, seed++), false,
                     "segment", general_emulate);
    // The block method: systems of 2 to kSegmentBlockMaxSegments segments.
    const index_t segments = cuda::detail::segment_count(n, K);
    if (segments < 2 || segments > cuda::detail::kSegmentBlockMaxSegments) continue;
    check_lanes<K>(testing::scaled_by(testing::make_shifted<Scalar>(n, 1, kind, seed++), scale),
                   true, "block", block_emulate, block_registers);
    if (kind == testing::Kind::dominant)
      check_lanes<K>(testing::make_general<Scalar>(n, 1, testing::Kind::dominant, seed++), false,
                     "block", general_block_emulate);
  }
}

/// The columns method on sizes around chunk and segment boundaries (one segment up to 32 chunks,
/// segments of columns_segment_chunks beyond, which differ between the forms for complex
/// systems), its shifted form also from its ColumnTable.
template <class Scalar, int K>
void columns_sweep(testing::Kind kind, std::uint64_t seed, double scale = 1) {
  namespace dt = cuda::detail;
  constexpr index_t chunk = K, one = dt::kWarpLanes * K,
                    segment = dt::columns_segment_chunks(sizeof(Scalar), false) * K;
  const std::vector<index_t> sizes = {1,       2,   3,       chunk + 1,       8 * chunk,
                                      one - 1, one, one + 1, 5 * segment + 3, 40 * segment};
  auto emulate = [](bool general) {
    return [general](const auto& rows_of, const auto& d) {
      const auto n = static_cast<index_t>(d.size());
      return emulate_segment<K, typename std::decay_t<decltype(d)>::value_type>(
          tile_lanes<K>(rows_of, d), n, dt::columns_chunks(n, K, sizeof(Scalar), general),
          dt::columns_segments(n, K, sizeof(Scalar), general));
    };
  };
  auto table = [](const auto& m, const auto& s, const auto& d) {
    using T = std::decay_t<decltype(s)>;
    const int chunks = dt::columns_chunks(m.n, K, sizeof(Scalar), false);
    return emulate_segment<K, T>(ColumnLanes<K, T>{m, s, d, std::vector<T>(d.size()), {chunks}},
                                 m.n, chunks, dt::columns_segments(m.n, K, sizeof(Scalar), false));
  };
  // One segment through tiles, the chunks solved in place (columns_tile_sweeps).
  auto tiled = [](const auto& m, const auto& s, const auto& d) {
    using T = std::decay_t<decltype(s)>;
    const int chunks = dt::columns_chunks(m.n, K, sizeof(Scalar), false);
    return emulate_segment<K, T>(ColumnSweepLanes<K, T>(m, s, d, chunks), m.n, chunks, 1);
  };
  for (index_t n : sizes) {
    const auto batch = testing::scaled_by(testing::make_shifted<Scalar>(n, 1, kind, seed++), scale);
    check_lanes<K>(batch, true, "columns", emulate(false), table);
    if (dt::columns_tile_sweeps(K, sizeof(Scalar)) && n <= one)
      check_lanes<K>(batch, true, "columns through tiles", nullptr, tiled);
    if (kind == testing::Kind::dominant)
      check_lanes<K>(testing::make_general<Scalar>(n, 1, testing::Kind::dominant, seed++), false,
                     "columns", emulate(true));
  }
}

/// The sweep method on every size up to 2048 rows from the issue's list, lane boundaries and the
/// largest K, with K from n and K = 16 (identity rows on small n).
template <class Scalar>
void sweep_method_sizes(testing::Kind kind, std::uint64_t seed, double scale = 1) {
  const std::vector<index_t> sizes = {1,   2,   3,   4,   5,   31,   32,   33,   63,   127,
                                      128, 129, 255, 511, 512, 1000, 1023, 1025, 2047, 2048};
  for (index_t n : sizes)
    for (int requested : {0, 16}) {
      const int K = cuda::detail::sweep_rows(n, requested);
      auto emulate = [&](const auto& m, const auto& s, const auto& d) {
        return emulate_sweep(m, s, d, requested);
      };
      check_method<1>(testing::scaled_by(testing::make_shifted<Scalar>(n, 2, kind, seed++), scale),
                      true, "sweep K " + std::to_string(K), nullptr, emulate);
      using KernelScalar = cuda::detail::kernel_scalar_t<Scalar>;
      constexpr int kLaneRows = cuda::detail::kSweepLaneRows<KernelScalar>;
      if (K <= kLaneRows) {
        // c′ and v in registers, as the kernel keeps them where it stages d in two buffers (real
        // K = 8 to 24, complex K = 4 to 16; here every K up to the bound).
        auto lanes = [&](const auto& m, const auto& s, const auto& d) {
          return emulate_sweep<kLaneRows, true>(m, s, d, requested);
        };
        check_method<1>(
            testing::scaled_by(testing::make_shifted<Scalar>(n, 2, kind, seed++), scale), true,
            "sweep K " + std::to_string(K) + ", c' and v in registers", nullptr, lanes);
      }
      if constexpr (std::is_floating_point_v<KernelScalar>) {
        // c′ alone in registers, as the kernel keeps it for real systems outside the buffers'
        // range where that holds more warps per SM than c′ in shared memory.
        constexpr int kRegisterRows = cuda::detail::kSweepRegisterRows;
        if (K <= kRegisterRows) {
          auto registers = [&](const auto& m, const auto& s, const auto& d) {
            return emulate_sweep<kRegisterRows>(m, s, d, requested);
          };
          check_method<1>(
              testing::scaled_by(testing::make_shifted<Scalar>(n, 2, kind, seed++), scale), true,
              "sweep K " + std::to_string(K) + ", c' in registers", nullptr, registers);
        }
      }
    }
}

/// The lanes of the sweep method's cluster kernel for emulate_block: one warp per segment of
/// 32·K rows, each with its segment's tables and d at sweep_slot as the kernel's warps hold them
/// (d zero past n, the slots between lanes NaN: never read), lanes reducing with sweep_reduce (c′
/// and v kept per lane, SweepLaneKept) and substituting with sweep_substitute.
template <int K, class T>
struct SweepClusterLanes {
  static constexpr int kRows = cuda::detail::kWarpLanes * K;
  struct Segment {
    std::vector<T> ad, md, ao, mo, dx;
  };
  index_t n;
  T s;
  float inv_k = 1.0f / static_cast<float>(K);
  std::vector<Segment> segments;
  std::vector<cuda::detail::SweepLaneKept<T, K>> kept;  // per lane of the system

  SweepClusterLanes(const cuda::detail::ShiftedMatrix<T>& m, T shift, const std::vector<T>& d)
      : n(m.n), s(shift) {
    namespace dt = cuda::detail;
    const int count = dt::sweep_cluster_shape(n, K, static_cast<int>(sizeof(T))).segments();
    const int A = dt::sweep_array(K);
    const T nan(std::numeric_limits<double>::quiet_NaN());
    for (int g = 0; g < count; ++g) {
      Segment seg{std::vector<T>(A, nan), std::vector<T>(A, nan), std::vector<T>(A, nan),
                  std::vector<T>(A, nan), std::vector<T>(A, nan)};
      const index_t first = static_cast<index_t>(g) * kRows;
      for (int r = 0; r <= kRows; ++r) {
        const int t = dt::sweep_slot(r, inv_k);
        const dt::ShiftedMatrixRow<T> e = dt::shifted_matrix_row(m, first + r);
        seg.ad[t] = e.ad;
        seg.md[t] = e.md;
        seg.ao[t] = e.ao;
        seg.mo[t] = e.mo;
        if (r < kRows) seg.dx[t] = first + r < n ? d[first + r] : T(0);
      }
      segments.push_back(std::move(seg));
    }
    kept.resize(static_cast<std::size_t>(count) * dt::kWarpLanes);
  }
  void reduce(index_t p, cuda::detail::Row4<T>& P, cuda::detail::Row4<T>& Q) {
    Segment& seg = segments[p / kRows];
    const int base = static_cast<int>(p % kRows) / K * (K + 1);
    cuda::detail::sweep_reduce(
        cuda::detail::SweepRows<T>{seg.ad.data(), seg.md.data(), seg.ao.data(), seg.mo.data(), s},
        seg.dx.data(), kept[p / K], base, K, P, Q);
  }
  void resolve(index_t p, T first, T last) {
    Segment& seg = segments[p / kRows];
    const int base = static_cast<int>(p % kRows) / K * (K + 1);
    cuda::detail::sweep_substitute(seg.dx.data(), kept[p / K], base, K, first, last);
  }
  std::vector<T> x() const {
    std::vector<T> x(n);
    for (index_t r = 0; r < n; ++r)
      x[r] = segments[r / kRows].dx[cuda::detail::sweep_slot(static_cast<int>(r % kRows), inv_k)];
    return x;
  }
};

/// The cluster kernel's InBlock instance on its sweep lanes, per scalar type as the kernel takes
/// it (sweep_cluster_pairs): the segments' reduced rows gathered as the slot's warps write them
/// (segment g's lane l: rows 64g + 2l, + 1) and reduced by each solving lane (block_lane_reduce),
/// or, complex, each lane pair's four rows reduced to two (pair_reduce) and gathered as the
/// segment warps write them (PairSharedRows); that system solved as each warp solves it (the
/// warp's tree or, CoarseSolve::guarded, the guarded solve: `flagged`, where given, says whether
/// it flagged), the lanes' or pairs' unknowns (block_lane_unknowns, pair_unknowns), and every
/// lane's interior substituted from its two unknowns.
template <int K, class T>
std::vector<T> emulate_block_reduced(SweepClusterLanes<K, T> lanes,
                                     CoarseSolve coarse = CoarseSolve::warp_tree,
                                     bool* flagged = nullptr) {
  namespace dt = cuda::detail;
  constexpr int L = dt::kWarpLanes, Kr = dt::kSweepClusterBlockLaneRows;
  constexpr int segments = dt::kSweepClusterBlockSegments;
  static_assert(Kr == 4 && segments == 2, "a solving lane's rows are a lane pair's");
  constexpr bool pairs = dt::sweep_cluster_pairs(static_cast<int>(sizeof(T)));
  const T nan(std::numeric_limits<double>::quiet_NaN());
  std::vector<dt::Row4<T>> reduced(2 * L * segments);  // lane j's P, Q: rows 2j, 2j + 1
  for (int j = 0; j < L * segments; ++j)
    lanes.reduce(index_t{j} * K, reduced[2 * j], reduced[2 * j + 1]);
  std::vector<dt::LaneState<Kr, T>> st(L);
  std::vector<dt::Row4<T>> P(L), Q(L);  // solving lane l's rows, lane pair l's
  if constexpr (pairs) {
    std::vector<T> stored(dt::kSweepClusterPairScalars, nan);
    const dt::PairSharedRows<T> rows{stored.data()};
    for (int l = 0; l < L; ++l) {
      const dt::Row4<T> four[4] = {reduced[4 * l], reduced[4 * l + 1], reduced[4 * l + 2],
                                   reduced[4 * l + 3]};
      dt::Row4<T> first, last;
      dt::pair_reduce(four, st[l], first, last);
      rows.put(2 * l, first);  // by lanes 2l and 2l + 1 mod 32 of segment l / 16
      rows.put(2 * l + 1, last);
    }
    for (int l = 0; l < L; ++l) {
      P[l] = rows.row(2 * l);
      Q[l] = rows.row(2 * l + 1);
    }
  } else {
    std::vector<T> stored(dt::kSweepClusterBlockReducedScalars, nan);
    const dt::BlockReducedRows<T> rows{stored.data()};
    for (int r = 0; r < 2 * L * segments; ++r) rows.put(r, reduced[r]);
    for (int l = 0; l < L; ++l) dt::block_lane_reduce(rows, l, st[l], P[l], Q[l]);
  }
  EXPECT_NE(coarse, CoarseSolve::thomas) << "emulate_block_reduced: the tree or the guarded solve";
  const auto xr = coarse == CoarseSolve::guarded ? emulate_guarded_solve(P, Q, flagged)
                                                 : emulate_warp_solve(P, Q);
  std::vector<T> x(L * Kr);
  for (int l = 0; l < L; ++l) {
    T xs[Kr];
    if constexpr (pairs)
      dt::pair_unknowns(st[l], xr.first[l][0], xr.last[l][0], xs);
    else
      dt::block_lane_unknowns(st[l], l, xr.first[l][0], xr.last[l][0], xs);
    std::copy(xs, xs + Kr, x.begin() + l * Kr);
  }
  for (int j = 0; j < L * segments; ++j) lanes.resolve(index_t{j} * K, x[2 * j], x[2 * j + 1]);
  return lanes.x();
}

/// The sweep method's cluster kernel (n = 769 to 16384) on sizes around its segments and blocks:
/// the block method's spikes and coarse solve (emulate_block) over the cluster's sweep lanes, or
/// where the kernel's launch takes the InBlock instance (K = 16 up to 1024 rows) the slot's whole
/// reduced system (emulate_block_reduced), either solved by the tree or `coarse`
/// (CoarseSolve::guarded: the kernel's instance for complex systems not declared dominant). The
/// emulated segments are those that cover n; the kernel's cluster may add identity segments past
/// them (4097: 18 for 17), which leave the coarse unknowns as they are. The sizes are those a
/// launch takes with K: complex K = 16 only InBlock (solve.cu, sweep_cluster_rows).
template <class Scalar, int K>
void sweep_cluster_sizes(testing::Kind kind, std::uint64_t seed, double scale = 1,
                         CoarseSolve coarse = CoarseSolve::warp_tree) {
  namespace dt = cuda::detail;
  const index_t most = dt::sweep_cluster_max_rows(K, static_cast<int>(sizeof(Scalar)));
  for (index_t n : {index_t{769}, index_t{1000}, index_t{1024}, index_t{1025}, index_t{1281},
                    index_t{2048}, index_t{2049}, index_t{2303}, index_t{4096}, index_t{4097},
                    index_t{6000}, index_t{8191}, index_t{8192}, index_t{8193}, index_t{16384}}) {
    if (n > most) continue;
    auto emulate = [coarse](const auto& m, const auto& s, const auto& d) {
      using T = std::decay_t<decltype(s)>;
      if (dt::sweep_cluster_in_block(K,
                                     dt::sweep_cluster_shape(m.n, K, static_cast<int>(sizeof(T)))))
        return emulate_block_reduced<K, T>(SweepClusterLanes<K, T>(m, s, d), coarse);
      return emulate_block<K, T>(SweepClusterLanes<K, T>(m, s, d), m.n, coarse);
    };
    check_method<1>(testing::scaled_by(testing::make_shifted<Scalar>(n, 2, kind, seed++), scale),
                    true, "sweep cluster K " + std::to_string(K), nullptr, emulate);
  }
}

template <class Scalar, int M>
void sweep(testing::Kind kind, std::uint64_t seed) {
  const std::vector<index_t> sizes = {1, 2, 3, 4, 5, 15, 16, 17, 31, 32, 33, 63, 255, 1000, 1023};
  for (index_t n : sizes) {
    const auto ts = testing::make_shifted<Scalar>(n, 2, kind, seed++);
    const auto tg = testing::make_general<Scalar>(n, 2, testing::Kind::dominant, seed++);
    for (index_t chunk : {index_t{0}, index_t{3}, index_t{16}}) {
      check_case<M>(ts, chunk, true);
      if (kind == testing::Kind::dominant) check_case<M>(tg, chunk, false);
    }
  }
}

TYPED_TEST(EmulationTest, PartitionDominant) {
  sweep<TypeParam, 4>(testing::Kind::dominant, 1000);
  sweep<TypeParam, 8>(testing::Kind::dominant, 2000);
  sweep<TypeParam, 16>(testing::Kind::dominant, 3000);
}

// Complex Helmholtz-like shifts with a damping imaginary part (see test_reference.cpp): the
// Schur complements keep a positive definite imaginary part, so no pivoting is needed.
TYPED_TEST(EmulationTest, PartitionComplexDamped) {
  if constexpr (!is_complex_v<TypeParam>) GTEST_SKIP() << "needs a complex shift";
  sweep<TypeParam, 8>(testing::Kind::indefinite, 4000);
}

TYPED_TEST(EmulationTest, WarpDominant) {
  warp_sweep<TypeParam, 2>(testing::Kind::dominant, 5000);
  warp_sweep<TypeParam, 4>(testing::Kind::dominant, 6000);
  warp_sweep<TypeParam, 8>(testing::Kind::dominant, 7000);
  warp_sweep<TypeParam, 16>(testing::Kind::dominant, 8000);
}

TYPED_TEST(EmulationTest, SegmentDominant) {
  segment_sweep<TypeParam, 2>(testing::Kind::dominant, 10000);
  segment_sweep<TypeParam, 8>(testing::Kind::dominant, 11000);
}

TYPED_TEST(EmulationTest, SegmentComplexDamped) {
  if constexpr (!is_complex_v<TypeParam>) GTEST_SKIP() << "needs a complex shift";
  segment_sweep<TypeParam, 8>(testing::Kind::indefinite, 12000);
}

TYPED_TEST(EmulationTest, ColumnsDominant) {
  columns_sweep<TypeParam, 4>(testing::Kind::dominant, 13000);
  columns_sweep<TypeParam, 8>(testing::Kind::dominant, 14000);
}

TYPED_TEST(EmulationTest, ColumnsComplexDamped) {
  if constexpr (!is_complex_v<TypeParam>) GTEST_SKIP() << "needs a complex shift";
  columns_sweep<TypeParam, 4>(testing::Kind::indefinite, 15000);
  columns_sweep<TypeParam, 16>(testing::Kind::indefinite, 15100);
}

TYPED_TEST(EmulationTest, WarpComplexDamped) {
  if constexpr (!is_complex_v<TypeParam>) GTEST_SKIP() << "needs a complex shift";
  warp_sweep<TypeParam, 4>(testing::Kind::indefinite, 9000);
  warp_sweep<TypeParam, 16>(testing::Kind::indefinite, 9500);
}

TYPED_TEST(EmulationTest, SweepDominant) {
  sweep_method_sizes<TypeParam>(testing::Kind::dominant, 13000);
}

TYPED_TEST(EmulationTest, SweepComplexDamped) {
  if constexpr (!is_complex_v<TypeParam>) GTEST_SKIP() << "needs a complex shift";
  sweep_method_sizes<TypeParam>(testing::Kind::indefinite, 14000);
}

// The cluster kernel's algebra (the GPU's complex instances: K = 8, and K = 16 InBlock up to
// 1024 rows).
TYPED_TEST(EmulationTest, SweepClusterDominant) {
  sweep_cluster_sizes<TypeParam, 8>(testing::Kind::dominant, 15000);
  sweep_cluster_sizes<TypeParam, 16>(testing::Kind::dominant, 15100);
}

/// The window method's emulation on `t`'s systems through check_method, both kernels; `passes`:
/// whether every system must pass the decay bound (else none may).
template <class Scalar>
void check_windows(const testing::Batch<Scalar>& t, bool passes) {
  for (const WindowKernel kernel : {WindowKernel::sweep, WindowKernel::columns}) {
    const char* name = kernel == WindowKernel::sweep ? "window" : "columns window";
    check_method<1>(t, true, name, nullptr, [&](const auto& m, const auto& s, const auto& d) {
      bool passed = false;
      const auto x = emulate_window(m, s, d, passed, kernel);
      EXPECT_EQ(passed, passes) << name << ", n " << t.n;
      return x;
    });
  }
}

// Windows of strongly dominant systems (the dominant batches with A's and M's diagonals four times
// larger: |a| + |c| ≤ |b|/4 or so) pass the bound and match the reference, one window to five.
TYPED_TEST(EmulationTest, WindowStronglyDominant) {
  std::uint64_t seed = 15400;
  for (index_t n : {513, 1000, 1345, 4097, 8191}) {
    auto t = testing::make_shifted<TypeParam>(n, 2, testing::Kind::dominant, seed++);
    for (auto* diag : {&t.A.diag, &t.M.diag})
      for (TypeParam& e : *diag) e *= 4.0;
    testing::fill_explicit_from_shifted(t);
    check_windows(t, true);
  }
}

// At the bound: tridiag(ω, 1, ω) with 2|ω| = 0.32 ≤ θ ≈ 0.3219 passes, and 2|ω| = 0.33 is flagged.
// Passing, every row is within 8 eps ‖x‖∞ of the reference: the inverse decays like ρ^k with
// ρ + 1/ρ = 1/|ω| (ρ ≈ 0.166), so a halo of 16 rows would leave about |ω| ρ^17 ≈ 9e-15 ‖x‖∞ (a
// mutation of sweep_window's top halo to 16 rows fails here), 32 rows about 3e-27.
TYPED_TEST(EmulationTest, WindowAtItsBound) {
  for (const auto& [omega, passes] : {std::pair{0.16, true}, std::pair{0.165, false}}) {
    const index_t n = 2000;
    testing::Batch<TypeParam> t;
    t.n = n;
    t.batch = 1;
    // Complex: ω on the imaginary axis, whose magnitude the bound takes exactly.
    TypeParam w;
    if constexpr (is_complex_v<TypeParam>)
      w = TypeParam(0.0, omega);
    else
      w = omega;
    t.A.diag.assign(n, TypeParam(1));
    t.A.off.assign(n - 1, w);
    t.M.diag.assign(n, TypeParam(0));
    t.M.off.assign(n - 1, TypeParam(0));
    t.shifts = {TypeParam(0)};
    testing::fill_explicit_from_shifted(t);
    t.d = pscr::testing::random_vector<TypeParam>(n, 15500);
    check_windows(t, passes);
    if (!passes) continue;
    using T = cuda::detail::kernel_scalar_t<TypeParam>;
    std::vector<TypeParam> ref(n), work(n);
    const BatchLayout l = BatchLayout::contiguous(n);
    reference::solve_general(n, 1, t.a.data(), t.b.data(), t.c.data(), t.d.data(), l, ref.data(), l,
                             work.data(), n);
    const std::vector<T> d(cuda::detail::as_kernel(t.d.data()),
                           cuda::detail::as_kernel(t.d.data()) + n);
    for (const WindowKernel kernel : {WindowKernel::sweep, WindowKernel::columns}) {
      bool passed = false;
      const std::vector<T> x = emulate_window(kernel_matrix(t), T(0), d, passed, kernel);
      double largest = 0, error = 0;
      for (index_t r = 0; r < n; ++r) {
        largest = std::max(largest, std::abs(ref[r]));
        error = std::max(error, std::abs(reinterpret_cast<const TypeParam&>(x[r]) - ref[r]));
      }
      EXPECT_LE(error, 8 * std::numeric_limits<double>::epsilon() * largest)
          << (kernel == WindowKernel::sweep ? "sweep" : "columns") << " window";
    }
  }
}

/// Whether every row of t's first system passes the window method's row test (shifted_row_bound
/// with θ = window_theta()).
template <class Scalar>
bool first_system_bounded(const testing::Batch<Scalar>& t) {
  namespace dt = cuda::detail;
  const double theta = cuda::window_theta();
  const auto m = kernel_matrix(t);
  const auto s = *dt::as_kernel(t.shifts.data());
  bool bounded = true;
  for (index_t r = 0; r < t.n; ++r) bounded &= dt::shifted_row_bound(m, r).bounded(s, theta);
  return bounded;
}

// The window method's row test (shifted_row_bound, as its check takes every row of every system)
// against the reference's dominance check with θ (reference::shifted_dominant), on systems whose
// largest row ratio (|a| + |c|) / |b| lies within 12% of θ either way: the same answer, real and
// complex (complex rows through the squares of their entries as quadratics in the shift).
TYPED_TEST(EmulationTest, WindowRowBoundAgainstTheReference) {
  const double theta = cuda::window_theta();
  std::mt19937_64 gen(15600);
  std::uniform_real_distribution<double> spread(0.88, 1.12);
  int passed = 0, failed = 0;
  for (int trial = 0; trial < 400; ++trial) {
    const auto t =
        testing::make_shifted_at_ratio<TypeParam>(64, theta * spread(gen), 15700 + trial);
    const bool bounded = first_system_bounded(t);
    SCOPED_TRACE("trial " + std::to_string(trial));
    EXPECT_EQ(bounded, reference::shifted_dominant(t.A, t.M, t.shifts.data(), 1, theta));
    ++(bounded ? passed : failed);
  }
  EXPECT_GT(passed, 100);
  EXPECT_GT(failed, 100);
}

// Rows far from 1 in scale: WindowRowBoundAgainstTheReference's systems scaled by 2^±600
// (entries about 10^±180, whose squares underflow or overflow). Real rows are compared as they
// are: the reference's answer, as unscaled. Complex rows fail (window_squares_bounded's band), so
// that such systems take the exact method rather than pass on squares of zero.
TYPED_TEST(EmulationTest, WindowRowBoundFarFromOne) {
  const double theta = cuda::window_theta();
  std::mt19937_64 gen(16000);
  std::uniform_real_distribution<double> spread(0.88, 1.12);
  int passed = 0;
  for (int trial = 0; trial < 100; ++trial)
    for (double factor : {0x1p-600, 0x1p600}) {
      const auto t = testing::scaled_by(
          testing::make_shifted_at_ratio<TypeParam>(64, theta * spread(gen), 16050 + trial),
          factor);
      const bool bounded = first_system_bounded(t);
      SCOPED_TRACE("trial " + std::to_string(trial) + ", factor " + std::to_string(factor));
      if constexpr (is_complex_v<TypeParam>)
        EXPECT_FALSE(bounded);
      else
        EXPECT_EQ(bounded, reference::shifted_dominant(t.A, t.M, t.shifts.data(), 1, theta));
      passed += bounded;
    }
  if constexpr (!is_complex_v<TypeParam>) EXPECT_GT(passed, 40);
}

// An infinite shift fails the row test, real and complex: tridiag(0.1, 1, 0.1) for A and M gives
// rows of infinities, which |a| + |c| ≤ θ|b| would pass as inf ≤ inf; a finite shift passes.
TEST(WindowRowBound, InfiniteShiftFails) {
  namespace dt = cuda::detail;
  const index_t n = 3;
  const double theta = cuda::window_theta();
  const auto rows = [&](auto unit) {
    using T = decltype(unit);
    const std::vector<T> diag(n, T(1.0)), off(n - 1, T(0.1));
    const dt::ShiftedMatrix<T> m{diag.data(), off.data(), diag.data(), off.data(), n};
    for (const double s : {1.0, HUGE_VAL, -HUGE_VAL})
      for (index_t r = 0; r < n; ++r)
        EXPECT_EQ(dt::shifted_row_bound(m, r).bounded(T(s), theta), s == 1.0)
            << "shift " << s << ", row " << r;
  };
  rows(1.0);
  rows(dt::Complex{1.0});
}

// SquareInShift bounds |α + sμ|² above (side +1) and below (−1) whatever its rounding, against
// the square formed in long double: random α, μ and s over 2^±40 in magnitude, and shifts within
// 2^-20 to 2^-50 of −α/μ, where α + sμ nearly cancels and the quadratic's terms are far larger
// than its value.
TEST(SquareInShift, BoundsTheSquareAboveAndBelow) {
  namespace dt = cuda::detail;
  std::mt19937_64 gen(16100);
  std::uniform_real_distribution<double> unit(-1.0, 1.0), octave(-40.0, 40.0), near(-50.0, -20.0);
  const auto scaled = [&] {
    const double m = std::exp2(octave(gen));
    return dt::Complex{m * unit(gen), m * unit(gen)};
  };
  for (int trial = 0; trial < 20000; ++trial) {
    const dt::Complex alpha = scaled(), mu = scaled();
    dt::Complex s = scaled();
    if (trial % 2 == 1) {  // s = −α/μ · (1 + ε)
      const std::complex<double> root =
          -std::complex<double>(alpha.re, alpha.im) / std::complex<double>(mu.re, mu.im) *
          (1.0 + std::exp2(near(gen)) * std::complex<double>(unit(gen), unit(gen)));
      s = {root.real(), root.imag()};
    }
    using L = long double;
    const L re = L(alpha.re) + L(s.re) * L(mu.re) - L(s.im) * L(mu.im);
    const L im = L(alpha.im) + L(s.re) * L(mu.im) + L(s.im) * L(mu.re);
    const L exact = re * re + im * im;
    const double rho = std::fma(s.re, s.re, s.im * s.im);
    const double above = dt::square_in_shift(alpha, mu, 1.0).at(s.re, s.im, rho);
    const double below = dt::square_in_shift(alpha, mu, -1.0).at(s.re, s.im, rho);
    SCOPED_TRACE("trial " + std::to_string(trial));
    ASSERT_GE(L(above), exact);
    ASSERT_LE(L(below), exact);
  }
}

// The check of real shifts as window_shift_range_kernel and window_range_bound_kernel run it: the
// batch's range through ordered keys (ordered_key, ordered_value: its least and largest shift),
// then window_row_over_range per row, each shift in turn where that is undecided; against the
// reference's dominance check with θ. 600 batches of 16 shifts on systems of 40 rows
// (Kind::dominant's A and M, diagonals about 4 and 2, off-diagonals scaled by 0.2 to 2.5), the
// shifts in [0, 2], or in a third of the batches in [−3, 3], where diagonals vanish between
// shifts: the same answer every time, each verdict of the row test met.
/// WindowWatch.FindsWhatTheCheckFinds on scalars T: tridiag(ω, 1, ω) with |ω| = 0.1 and shift 0,
/// one coupling's magnitude raised to `coupling`.
template <class T>
void watch_finds_what_the_check_finds(T unit) {
  namespace dt = cuda::detail;
  const index_t n = 2000;
  for (index_t row : {0, 1, 415, 416, 417, 447, 448, 510, 511, 512, 863, 864, 927, 928, 1999})
    for (int side : {-1, 1})
      for (const double coupling : {0.35, 0.2}) {
        const index_t e = side < 0 ? row - 1 : row;  // off[e] couples rows e and e + 1
        if (e < 0 || e >= n - 1) continue;
        std::vector<T> ad(n, T(1.0)), ao(n - 1, T(0.1 * unit)), zero_d(n, T(0.0)),
            zero_o(n - 1, T(0.0));
        ao[e] = T(coupling * unit);
        ad[side < 0 ? row - 1 : row + 1] = T(10.0);
        const dt::ShiftedMatrix<T> m{ad.data(), ao.data(), zero_d.data(), zero_o.data(), n};
        bool checked = true;
        for (index_t r = 0; r < n; ++r)
          checked &= dt::shifted_row_bound(m, r).bounded(T(0.0), cuda::window_theta());
        SCOPED_TRACE("row " + std::to_string(row) + ", side " + std::to_string(side));
        EXPECT_EQ(checked, coupling < 0.3);
        EXPECT_EQ(window_watch_bounded(m, T(0.0)), checked);
      }
}

// The window kernels' watch (WindowWatch: each window's rows as its tables hold them) finds what
// the check finds on every row, real and complex (couplings on the imaginary axis): tridiag(0.1,
// 1, 0.1), one coupling raised to 0.35 (its row's ratio 0.45, 0.35 at an end: past θ ≈ 0.32) or
// 0.2 (0.3: within), the other row it couples given a diagonal of 10 so that it stays within, for
// rows at and next to the windows' cuts (the first window's last row 511, the second's first row
// 416, ...) and the system's ends, each row past the bound through its coupling on either side: a
// cut row past it only through its coupling outside its window is caught by the neighbouring
// window, where it lies inside.
TEST(WindowWatch, FindsWhatTheCheckFinds) {
  watch_finds_what_the_check_finds(1.0);
  watch_finds_what_the_check_finds(cuda::detail::Complex{0.0, 1.0});
}

TEST(WindowRangeBound, AgainstTheReference) {
  namespace dt = cuda::detail;
  const double theta = cuda::window_theta();
  std::mt19937_64 gen(15800);
  std::uniform_real_distribution<double> scale(0.2, 2.5), near(0.0, 2.0), wide(-3.0, 3.0);
  int passed = 0, failed = 0;
  int verdicts[3] = {0, 0, 0};
  for (int trial = 0; trial < 600; ++trial) {
    const index_t n = 40, batch = 16;
    auto t = testing::make_shifted<double>(n, batch, testing::Kind::dominant, 15900 + trial);
    const double f = scale(gen);
    for (auto* off : {&t.A.off, &t.M.off})
      for (double& e : *off) e *= f;
    for (double& s : t.shifts) s = trial % 3 == 0 ? wide(gen) : near(gen);
    unsigned long long lo = ~0ull, hi = 0;
    for (double s : t.shifts) {
      lo = std::min(lo, dt::ordered_key(s));
      hi = std::max(hi, dt::ordered_key(s));
    }
    const double s_lo = dt::ordered_value(lo), s_hi = dt::ordered_value(hi);
    ASSERT_EQ(s_lo, *std::min_element(t.shifts.begin(), t.shifts.end()));
    ASSERT_EQ(s_hi, *std::max_element(t.shifts.begin(), t.shifts.end()));
    const dt::ShiftedMatrix<double> m = kernel_matrix(t);
    bool bounded = true;
    for (index_t r = 0; r < n; ++r) {
      const dt::ShiftedRowBound<double> row = dt::shifted_row_bound(m, r);
      const dt::RangeBound v = dt::window_row_over_range(row, s_lo, s_hi, theta);
      ++verdicts[static_cast<int>(v)];
      bool bounded_row = v != dt::RangeBound::fails;
      if (v == dt::RangeBound::undecided)
        for (double s : t.shifts) bounded_row &= row.bounded(s, theta);
      bounded &= bounded_row;
    }
    SCOPED_TRACE("trial " + std::to_string(trial));
    EXPECT_EQ(bounded, reference::shifted_dominant(t.A, t.M, t.shifts.data(), batch, theta));
    ++(bounded ? passed : failed);
  }
  EXPECT_GT(passed, 60);
  EXPECT_GT(failed, 60);
  for (int v : verdicts) EXPECT_GT(v, 20);
}

// The complex instances not declared dominant: their spike, coarse and InBlock solves guarded.
TYPED_TEST(EmulationTest, SweepClusterComplexDamped) {
  if constexpr (!is_complex_v<TypeParam>) GTEST_SKIP() << "needs a complex shift";
  sweep_cluster_sizes<TypeParam, 8>(testing::Kind::indefinite, 15200, 1, CoarseSolve::guarded);
  sweep_cluster_sizes<TypeParam, 16>(testing::Kind::indefinite, 15300, 1, CoarseSolve::guarded);
}

// Thomas's chains (LaneChain, sweep_reduce) and the methods' reduced and coarse solves are
// homogeneous in the rows' scale: systems whose entries and right-hand sides are scaled by 2^±100
// (about 1e±30; a mesh in other units) solve as the unscaled ones do. A chain on products of
// unscaled rows (leading minors: docs/tridiag-performance.md, 2026-12-03) failed this with NaN.
TYPED_TEST(EmulationTest, ScaledSystemsSolveAsTheUnscaled) {
  for (const double scale : {std::ldexp(1.0, 100), std::ldexp(1.0, -100)}) {
    sweep_method_sizes<TypeParam>(testing::Kind::dominant, 16000, scale);
    sweep_cluster_sizes<TypeParam, 16>(testing::Kind::dominant, 16100, scale);
    segment_sweep<TypeParam, 8>(testing::Kind::dominant, 16200, scale);
    columns_sweep<TypeParam, 16>(testing::Kind::dominant, 16300, scale);
  }
}

/// Tiled PCR on the CPU, x of every system of the batch (contiguous): every block's
/// tiled_pcr_block walked as the kernel walks it, TiledPcrBlock::phase for every thread per level
/// (the kernel has a barrier after each level, so a loop over the threads is exact), the
/// independent systems solved in place by the CPU reference (Thomas), pcr_scatter for every
/// element. The workspace starts as NaN: a level-k row the PCR stage does not write reaches x.
template <class Scalar, class T, class Form>
std::vector<T> emulate_tiled_pcr(const Form& form, index_t n, index_t batch,
                                 const std::vector<T>& d, int steps) {
  namespace dt = cuda::detail;
  const dt::PcrGeometry geo = dt::pcr_geometry(n, steps);
  const index_t subsystems = batch * geo.span;
  const index_t rows = geo.rows(batch);
  const T nan(std::numeric_limits<double>::quiet_NaN());
  std::vector<T> ws(4 * rows, nan), x(n * batch, nan);
  std::vector<T> window(3 * dt::pcr_window_total(steps));
  const dt::PcrLevels<T> levels = geo.levels(ws.data(), batch);
  const dt::Strides s{n, 1};
  for (index_t b = 0; b < batch * geo.chunks; ++b) {
    std::fill(window.begin(), window.end(), T(0));
    const auto block =
        dt::tiled_pcr_block(form, geo, n, batch, d.data(), s, b, window.data(), ws.data());
    block.walk([&](int tile, int level, dt::PcrBuffer below, dt::PcrBuffer here) {
      for (int i = 0; i < dt::kPcrThreads; ++i) block.phase(tile, level, i, below, here);
    });
  }
  auto as_scalar = [](T* p) { return reinterpret_cast<Scalar*>(p); };
  const BatchLayout sl = BatchLayout::interleaved(subsystems);
  std::vector<Scalar> work(geo.sub_rows * subsystems);
  reference::solve_general(geo.sub_rows, subsystems, as_scalar(levels.a), as_scalar(levels.b),
                           as_scalar(levels.c), as_scalar(levels.d), sl, as_scalar(levels.d), sl,
                           work.data(), static_cast<index_t>(work.size()));
  for (index_t e = 0; e < rows; ++e) dt::pcr_scatter(geo, n, batch, e, levels.d, x.data(), s);
  return x;
}

/// Tiled PCR with k steps on the whole batch t against the CPU reference.
/// The twisted elimination of thomas_twisted_kernel on one system of n ≤ 2R rows, as its pair of
/// lanes runs it: TwistedTables built with twisted_table_row, the top and bottom TwistedHalf
/// (couplings in registers, or Shared: in an array as the kernel's shared memory holds them, at a
/// stride of 3), twisted_join, then both substitutes; x of the system.
template <int R, bool Shared, class T>
std::vector<T> emulate_twisted(const cuda::detail::ShiftedMatrix<T>& m, T s,
                               const std::vector<T>& d) {
  namespace dt = cuda::detail;
  const index_t n = m.n;
  std::vector<T> ad(2 * R), md(2 * R), ao(2 * R), mo(2 * R);
  for (int p = 0; p < 2 * R; ++p) {
    const dt::ShiftedMatrixRow<T> row = dt::twisted_table_row(m, R, p);
    ad[p] = row.ad;
    md[p] = row.md;
    ao[p] = row.ao;
    mo[p] = row.mo;
  }
  const dt::TwistedTables<T> tables{ad.data(), md.data(), ao.data(), mo.data()};
  using Couplings = dt::TwistedCouplings<R, T, Shared>;
  constexpr int kStride = 3;
  std::vector<T> shared(2 * kStride * R);
  dt::TwistedHalf<R, false, T, Couplings> top;
  dt::TwistedHalf<R, true, T, Couplings> bottom;
  if constexpr (Shared) {
    top.c = Couplings{shared.data(), kStride};
    bottom.c = Couplings{shared.data() + kStride * R, kStride};
  }
  auto load = [&](auto& half) {
    for (int i = 0; i < R; ++i) {
      const index_t r = dt::twisted_row(n, R, half.at(i));
      half.d[i] = r >= 0 && r < n ? d[r] : T(0);
    }
  };
  load(top);
  load(bottom);
  T c_top, d_top, c_bottom, d_bottom, x_top, x_bottom;
  top.eliminate(tables, s, c_top, d_top);
  bottom.eliminate(tables, s, c_bottom, d_bottom);
  dt::twisted_join(c_top, d_top, c_bottom, d_bottom, x_top, x_bottom);
  top.substitute(x_top);
  bottom.substitute(x_bottom);
  std::vector<T> x(n, T(std::numeric_limits<double>::quiet_NaN()));
  auto store = [&](const auto& half) {
    for (int i = 0; i < R; ++i) {
      const index_t r = dt::twisted_row(n, R, half.at(i));
      if (r >= 0 && r < n) x[r] = half.d[i];
    }
  };
  store(top);
  store(bottom);
  return x;
}

/// The twisted elimination on systems of 1 to 64 rows (odd and even, both halves' padding, the
/// instances' boundaries), each with the smallest R the host picks and with R = 32 (padding),
/// couplings in registers and in shared memory.
template <class Scalar, int R>
void twisted_sizes(testing::Kind kind, std::uint64_t seed) {
  for (index_t n : {1, 2, 3, 4, 7, 8, 9, 15, 16, 17, 31, 32, 33, 62, 63, 64}) {
    if (n > 2 * R) continue;
    if (R != cuda::detail::kTwistedMaxRows && R != cuda::detail::twisted_rows(n)) continue;
    const std::string label = "twisted R " + std::to_string(R);
    check_method<1>(testing::make_shifted<Scalar>(n, 3, kind, seed++), true, label, nullptr,
                    [](const auto& m, const auto& s, const auto& d) {
                      return emulate_twisted<R, false>(m, s, d);
                    });
    check_method<1>(testing::make_shifted<Scalar>(n, 3, kind, seed++), true,
                    label + ", couplings in shared memory", nullptr,
                    [](const auto& m, const auto& s, const auto& d) {
                      return emulate_twisted<R, true>(m, s, d);
                    });
  }
}

TYPED_TEST(EmulationTest, ThomasTwistedDominant) {
  twisted_sizes<TypeParam, 8>(testing::Kind::dominant, 18000);
  twisted_sizes<TypeParam, 16>(testing::Kind::dominant, 18100);
  twisted_sizes<TypeParam, 32>(testing::Kind::dominant, 18200);
}

TYPED_TEST(EmulationTest, ThomasTwistedComplexDamped) {
  if constexpr (!is_complex_v<TypeParam>) GTEST_SKIP() << "needs a complex shift";
  twisted_sizes<TypeParam, 32>(testing::Kind::indefinite, 18300);
}

template <class Scalar>
void check_tiled_pcr(const testing::Batch<Scalar>& t, bool shifted, int steps) {
  using T = cuda::detail::kernel_scalar_t<Scalar>;
  const index_t n = t.n, batch = t.batch;
  std::vector<Scalar> ref(n * batch), work(n);
  const BatchLayout l = BatchLayout::contiguous(n);
  reference::solve_general(n, batch, t.a.data(), t.b.data(), t.c.data(), t.d.data(), l, ref.data(),
                           l, work.data(), n);
  const T* d = cuda::detail::as_kernel(t.d.data());
  const std::vector<T> dv(d, d + n * batch);
  std::vector<T> x;
  if (shifted) {
    const cuda::detail::ShiftedMatrix<T> m = kernel_matrix(t);
    x = emulate_tiled_pcr<Scalar>(
        cuda::detail::ShiftedForm<T>{m, cuda::detail::as_kernel(t.shifts.data())}, n, batch, dv,
        steps);
  } else {
    x = emulate_tiled_pcr<Scalar>(
        cuda::detail::GeneralForm<T>{cuda::detail::as_kernel(t.a.data()),
                                     cuda::detail::as_kernel(t.b.data()),
                                     cuda::detail::as_kernel(t.c.data()), n},
        n, batch, dv, steps);
  }
  const Scalar* xp = reinterpret_cast<const Scalar*>(x.data());
  const std::vector<Scalar> xs(xp, xp + n * batch);
  const auto cond = testing::condition_numbers(t);
  for (index_t k = 0; k < batch; ++k)
    ASSERT_LE(testing::forward_error(xs, ref, n, k), pscr::testing::tolerance<Scalar>(200, cond[k]))
        << "tiled PCR k " << steps << (shifted ? ", shifted" : ", general") << ", n " << n
        << ", system " << k;
}

/// Sizes of the issue's list and chunk boundaries (n = 12289 with one step: four chunks, the last
/// one row; 8191 with eight steps: two chunks, a padded subsystem row) for 1, 3 and 8 steps.
template <class Scalar>
void tiled_pcr_sizes(testing::Kind kind, std::uint64_t seed) {
  for (index_t n : {1, 2, 3, 31, 33, 255, 1000, 4097, 8191, 12289})
    for (int steps : {1, 3, cuda::kTiledPcrMaxSteps}) {
      check_tiled_pcr(testing::make_shifted<Scalar>(n, 3, kind, seed++), true, steps);
      if (kind == testing::Kind::dominant)
        check_tiled_pcr(testing::make_general<Scalar>(n, 2, kind, seed++), false, steps);
    }
}

TYPED_TEST(EmulationTest, TiledPcrDominant) {
  tiled_pcr_sizes<TypeParam>(testing::Kind::dominant, 16000);
}

TYPED_TEST(EmulationTest, TiledPcrComplexDamped) {
  if constexpr (!is_complex_v<TypeParam>) GTEST_SKIP() << "needs a complex shift";
  tiled_pcr_sizes<TypeParam>(testing::Kind::indefinite, 17000);
}

// sweep_slot: r / K from the float product exactly for every row of every K, one slot per row,
// and a phase of the lanes' accesses to their i-th rows (16 lanes of 8 bytes, 8 of 16 bytes) on
// distinct banks (slot mod 16, slot mod 8).
TEST(SweepSlot, ExactAndNoBankConflicts) {
  namespace dt = cuda::detail;
  for (int K = 4; K <= cuda::kSweepMaxLaneRows; K += 2) {
    SCOPED_TRACE(::testing::Message() << "K " << K);
    const float inv_k = 1.0f / static_cast<float>(K);
    std::vector<int> row_at(dt::sweep_array(K), -1);
    for (int r = 0; r <= dt::kWarpLanes * K; ++r) {
      const int t = dt::sweep_slot(r, inv_k);
      ASSERT_EQ(t, r + r / K) << "row " << r;
      ASSERT_LT(t, dt::sweep_array(K));
      ASSERT_EQ(row_at[t], -1);
      row_at[t] = r;
    }
    for (int i = 0; i < K; ++i)
      for (int phase : {8, 16}) {
        std::vector<bool> used(phase, false);
        for (int l = 0; l < phase; ++l) {
          const int bank = dt::sweep_slot(l * K + i, inv_k) % phase;
          EXPECT_FALSE(used[bank]) << "row " << i << ", lanes of " << phase;
          used[bank] = true;
        }
      }
  }
}

// The columns method's table (ColumnTable): for every K, chunk count and block of G systems, each
// table row a lane of chunk c reads (c·K to c·K + K) at slot row + c within chunk c's K + 1 slots,
// holding that row (the row after a chunk held by both chunks), and a phase of a warp's reads of
// the same row of their chunks (P = 128 / bytes threads, thread t of chunk t / G) on distinct
// banks (slot mod P) for the distinct chunks among them. The segmented passes, which read the
// table unchunked (columns_chunked_table), need none of that: their blocks' G systems are whole
// phases (a multiple of P), so a phase's threads read one row of one chunk.
TEST(ColumnsTable, ChunkSlotsHoldTheirRowsAndNoBankConflicts) {
  namespace dt = cuda::detail;
  auto check = [](auto k) {
    constexpr int K = decltype(k)::value;
    for (std::size_t bytes : {std::size_t{8}, std::size_t{16}}) {
      const int G = dt::columns_systems(dt::columns_segment_chunks(bytes, false), K, bytes, false);
      EXPECT_EQ(G % static_cast<int>(128 / bytes), 0) << "K " << K << ", " << bytes << " bytes";
    }
    for (int chunks : {1, 2, 3, 4, 8, 16, 32, 64}) {
      const int slots = dt::columns_table_column(chunks, K, true);
      // Row of each slot as ColumnTable::load fills it.
      std::vector<int> row(slots);
      for (int slot = 0; slot < slots; ++slot) row[slot] = slot - slot / (K + 1);
      for (int c = 0; c < chunks; ++c)
        for (int i = c * K; i <= c * K + K; ++i) {
          const int slot = i + c;  // ColumnTableRows: r − (p0 − c)
          ASSERT_LT(slot, slots) << "chunk " << c << ", row " << i;
          ASSERT_GE(slot, c * (K + 1)) << "chunk " << c << ", row " << i;
          ASSERT_LT(slot, (c + 1) * (K + 1)) << "chunk " << c << ", row " << i;
          ASSERT_EQ(row[slot], i) << "chunk " << c << ", row " << i;
        }
      for (std::size_t bytes : {std::size_t{8}, std::size_t{16}}) {
        const int P = static_cast<int>(128 / bytes);
        for (int G = 1; G <= P && G <= 32; G *= 2)
          for (int first = 0; first < G * chunks; first += P)
            for (int r = 0; r <= K; ++r) {
              std::vector<int> bank_chunk(P, -1);
              for (int t = first; t < std::min(first + P, G * chunks); ++t) {
                const int c = t / G, bank = (c * K + r + c) % P;
                ASSERT_TRUE(bank_chunk[bank] < 0 || bank_chunk[bank] == c)
                    << "K " << K << ", " << bytes << "-byte rows, G " << G << ", chunks " << c
                    << " and " << bank_chunk[bank] << ", row " << r;
                bank_chunk[bank] = c;
              }
            }
      }
    }
  };
  check(std::integral_constant<int, 2>{});
  check(std::integral_constant<int, 4>{});
  check(std::integral_constant<int, 8>{});
  check(std::integral_constant<int, 16>{});
}

// The columns method's tiles (ColumnsStage::tiles, complex) for every one-segment n and K:
// one slot per row of the block's G systems within the tile, each run of its bulk copies
// (columns_tile_run_rows) on consecutive slots, no more runs than threads, and each phase of a
// warp's reads of its threads' i-th rows (P = 128 / bytes threads, thread t reading system t mod
// G's chunk t / G) on distinct banks (slot mod P).
TEST(ColumnsTiles, OneSlotPerRowRunsInOneRunAndNoBankConflicts) {
  namespace dt = cuda::detail;
  auto check = [](auto k, std::size_t bytes) {
    constexpr int K = decltype(k)::value;
    const int P = static_cast<int>(128 / bytes);
    for (index_t n = 1; n <= dt::kWarpLanes * K; ++n) {
      SCOPED_TRACE(::testing::Message() << "K " << K << ", " << bytes << " bytes, n " << n);
      const int chunks = dt::columns_chunks(n, K, bytes, false);
      ASSERT_EQ(dt::columns_segments(n, K, bytes, false), 1);
      const int G = dt::columns_systems(chunks, K, bytes, false);
      const int stride = dt::columns_tile_stride(n, K, G, bytes);
      const bool pads = dt::columns_tile_pads(G, bytes);
      std::vector<bool> taken(dt::columns_tile_elements(n, K, G, bytes), false);
      for (int h = 0; h < G; ++h)
        for (int i = 0; i < n; ++i) {
          const int slot = dt::columns_tile_slot<K>(h, i, stride, pads);
          ASSERT_LT(slot, static_cast<int>(taken.size()));
          ASSERT_FALSE(taken[slot]) << "system " << h << ", row " << i;
          taken[slot] = true;
        }
      // Each run of the bulk copies (columns_tile_run_rows) is one run of slots too, and a system
      // takes at most its chunks' count of runs, so that each thread has one run at most.
      const int run_rows = dt::columns_tile_run_rows(n, K, pads);
      ASSERT_LE((n + run_rows - 1) / run_rows, chunks);
      for (int h = 0; h < G; ++h)
        for (int i = 0; i < n; i += run_rows) {
          const int first = dt::columns_tile_slot<K>(h, i, stride, pads);
          for (int j = 1; j < std::min<int>(run_rows, n - i); ++j)
            ASSERT_EQ(dt::columns_tile_slot<K>(h, i + j, stride, pads), first + j)
                << "system " << h << ", run from row " << i;
        }
      for (int first = 0; first < G * chunks; first += P)
        for (int i = 0; i < K; ++i) {
          std::vector<bool> used(P, false);
          for (int t = first; t < std::min(first + P, G * chunks); ++t) {
            const int c = t / G;
            if (c * K + i >= n) continue;  // rows past n are not read
            const int bank = dt::columns_tile_slot<K>(t % G, c * K + i, stride, pads) % P;
            EXPECT_FALSE(used[bank]) << "threads from " << first << ", row " << i;
            used[bank] = true;
          }
        }
    }
  };
  const std::size_t bytes = sizeof(cuda::detail::Complex);
  check(std::integral_constant<int, 2>{}, bytes);
  check(std::integral_constant<int, 4>{}, bytes);
  check(std::integral_constant<int, 8>{}, bytes);
  check(std::integral_constant<int, 16>{}, bytes);
}

// The cluster kernel's shapes for every n it takes (769 to its largest, real K = 8 and 16,
// complex K = 8, complex K = 16 up to kSweepClusterBlockMaxRows, where it is InBlock alone):
// its segments cover n with fewer identity segments than blocks, clusters stay
// within the portable 8 blocks and blocks within kSweepClusterMaxWarps warps at one slot (complex
// within 4 up to kSweepClusterComplexPairedBlocks blocks, so that two blocks fit an SM), K = 16
// takes 2 to 4 segment warps per block (so slots fit: at most 6 of 2 within
// kSweepClusterMaxSlotWarps, 4 in the InBlock instance's blocks), K = 8 one slot (its kernel's only
// instance), and the shared-memory layout of every slot count keeps the coarse rows, tables and
// buffers 16-byte aligned inside sweep_cluster_elements, real and complex.
TEST(SweepClusterShape, CoversEverySizeWithinPortableClusters) {
  namespace dt = cuda::detail;
  for (const auto& [K, bytes] :
       {std::pair{8, 8}, {16, 8}, {dt::kSweepClusterComplexRows, 16}, {16, 16}}) {
    const index_t rows = static_cast<index_t>(dt::kWarpLanes) * K;
    for (index_t n = dt::kSweepClusterMinRows; n <= dt::sweep_cluster_max_rows(K, bytes); ++n) {
      const dt::SweepClusterShape shape = dt::sweep_cluster_shape(n, K, bytes);
      SCOPED_TRACE(::testing::Message() << "K " << K << ", n " << n << ", scalars of " << bytes);
      const int needed = static_cast<int>((n + rows - 1) / rows);
      ASSERT_GE(shape.segments(), needed);
      ASSERT_LT(shape.segments() - needed, shape.blocks);
      ASSERT_LE(shape.blocks, dt::kSweepClusterMaxBlocks);
      ASSERT_LE(shape.segments(), dt::kSweepClusterMaxSegments);
      ASSERT_EQ(shape.slots, 1);
      ASSERT_LE(shape.block_warps(), dt::kSweepClusterMaxWarps);
      if (bytes == 16 && needed <= 4 * dt::kSweepClusterComplexPairedBlocks)
        ASSERT_LE(shape.warps, 4);
      if (K == 16) {
        ASSERT_GE(shape.warps, 2);
        ASSERT_LE(shape.warps, 4);
      }
      // The slots a launch may take: within the block's warps, and one for K = 8, whose kernel
      // instance is compiled for one slot only.
      const int slots = dt::sweep_cluster_max_slots(K, shape);
      ASSERT_GE(slots, 1);
      ASSERT_LE(shape.warps * slots, dt::kSweepClusterMaxSlotWarps);
      if (K == 8) ASSERT_EQ(slots, 1);
      if (bytes == 16 && K == 16) ASSERT_TRUE(dt::sweep_cluster_in_block(K, shape));
    }
  }
  // The kernel's layout: 2S mbarriers (16 bytes per slot), 2S·segments coarse rows of 8 scalars,
  // 4W tables and 2WS buffers of sweep_array(K) scalars, in scalars of 8 and 16 bytes.
  for (int bytes : {8, 16})
    for (int K : {8, 16})
      for (int W = 1; W <= dt::kSweepClusterMaxWarps; ++W)
        for (int S = 1; W * S <= dt::kSweepClusterMaxSlotWarps; ++S) {
          const dt::SweepClusterShape shape{3, W, S};
          const int coarse = 16 * S / bytes, tables = coarse + 2 * S * shape.segments() * 8;
          const int buffers = tables + dt::kSweepTables * W * dt::sweep_array(K);
          EXPECT_EQ(coarse * bytes % 16, 0);
          EXPECT_EQ(tables * bytes % 16, 0);
          EXPECT_EQ(buffers * bytes % 16, 0);
          EXPECT_EQ(dt::sweep_array(K) * bytes % 16, 0);
          EXPECT_EQ(buffers + 2 * W * S * dt::sweep_array(K),
                    dt::sweep_cluster_elements(K, shape, bytes));
        }
  // The InBlock instance's layout (K = 16, one block of kSweepClusterBlockSegments segment warps;
  // the only launches that take it, 769 to kSweepClusterBlockMaxRows rows): in place of the
  // coarse rows, real, the reduced rows' a, b, c, d (64 rows per segment) in each of two buffers
  // per slot, complex, the lane pairs' rows (32 per segment) in one; the tables after them 16-byte
  // aligned; complex blocks of four slots within the 232448 bytes a block may take on compute
  // capability 9.0 (three with the reduced rows' two buffers).
  const int W = dt::kSweepClusterBlockSegments;
  for (int bytes : {8, 16}) {
    SCOPED_TRACE(::testing::Message() << "InBlock, scalars of " << bytes);
    EXPECT_TRUE(dt::sweep_cluster_in_block(16, dt::sweep_cluster_shape(1024, 16, bytes)));
    EXPECT_TRUE(dt::sweep_cluster_in_block(16, dt::sweep_cluster_shape(769, 16, bytes)));
    EXPECT_FALSE(dt::sweep_cluster_in_block(16, dt::sweep_cluster_shape(1025, 16, bytes)));
    EXPECT_FALSE(dt::sweep_cluster_in_block(8, dt::sweep_cluster_shape(1024, 8, bytes)));
    const int exchanged = bytes == 16 ? 4 * dt::kWarpLanes * W : 2 * 4 * 2 * dt::kWarpLanes * W;
    EXPECT_EQ(dt::sweep_cluster_pairs(bytes), bytes == 16);
    for (int S = 1; S <= dt::sweep_cluster_max_slots(16, dt::SweepClusterShape{1, W}); ++S) {
      const dt::SweepClusterShape shape{1, W, S};
      const int reduced = 16 * S / bytes;
      const int tables = reduced + S * exchanged;
      EXPECT_EQ(tables * bytes % 16, 0);
      EXPECT_EQ(tables + (dt::kSweepTables * W + 2 * W * S) * dt::sweep_array(16),
                dt::sweep_cluster_elements(16, shape, bytes));
    }
  }
  EXPECT_EQ(dt::sweep_cluster_max_slots(16, dt::SweepClusterShape{1, W}), 4);
  EXPECT_LE(16 * dt::sweep_cluster_elements(16, dt::SweepClusterShape{1, W, 4}, 16), 232448);
  EXPECT_EQ(dt::kSweepClusterBlockMaxRows, dt::kWarpLanes * 16 * W);
}

/// A swizzled layout of R rows in shared memory (`Rows::at`, row to slot; BlockReducedRows,
/// PairSharedRows), for both scalar types: one slot per row, and each phase of a warp's accesses
/// on distinct banks (slot mod 16 for 8-byte scalars, mod 8 for 16-byte ones) for every access
/// `accesses(distinct)` names by calling distinct(row_of_lane, what).
template <template <class> class Rows, class Accesses>
void expect_one_slot_per_row_and_no_bank_conflicts(int R, const Accesses& accesses) {
  namespace dt = cuda::detail;
  auto check = [&](auto scalar) {
    using T = decltype(scalar);
    const int phase = 128 / static_cast<int>(sizeof(T));
    SCOPED_TRACE(::testing::Message() << "scalars of " << sizeof(T));
    std::vector<int> row_at(R, -1);
    for (int r = 0; r < R; ++r) {
      const int t = Rows<T>::at(r);
      ASSERT_GE(t, 0);
      ASSERT_LT(t, R);
      ASSERT_EQ(row_at[t], -1) << "row " << r;
      row_at[t] = r;
    }
    auto distinct = [&](auto row_of_lane, const char* what) {
      for (int first = 0; first < dt::kWarpLanes; first += phase) {
        std::vector<bool> used(phase, false);
        for (int l = first; l < first + phase && l < dt::kWarpLanes; ++l) {
          const int bank = Rows<T>::at(row_of_lane(l)) % phase;
          EXPECT_FALSE(used[bank]) << what << ", lane " << l;
          used[bank] = true;
        }
      }
    };
    accesses(distinct);
  };
  check(double{});
  check(dt::Complex{});
}

// The InBlock instance's reduced rows (BlockReducedRows): the segment warps' writes of rows 2j and
// 2j + 1 (lane j of segment g: j = 32g + lane) and block_reduced_solve's reads of rows 4l + i
// (lane l, i = 0..3).
TEST(BlockReducedRows, OneSlotPerRowAndNoBankConflicts) {
  namespace dt = cuda::detail;
  constexpr int Kr = dt::kSweepClusterBlockLaneRows;
  expect_one_slot_per_row_and_no_bank_conflicts<dt::BlockReducedRows>(
      dt::kSweepClusterBlockReducedRows, [](const auto& distinct) {
        for (int g = 0; g < dt::kSweepClusterBlockSegments; ++g)
          for (int h = 0; h < 2; ++h)
            distinct([&](int l) { return 2 * (dt::kWarpLanes * g + l) + h; }, "write");
        for (int i = 0; i < Kr; ++i) distinct([&](int l) { return Kr * l + i; }, "read");
      });
}

// The complex InBlock instance's lane pairs' rows (PairSharedRows): the segment warps' writes
// (lane j of segment g: row 32g + j) and pair_shared_solve's reads of rows 2l and 2l + 1 (lane l).
TEST(PairSharedRows, OneSlotPerRowAndNoBankConflicts) {
  namespace dt = cuda::detail;
  expect_one_slot_per_row_and_no_bank_conflicts<dt::PairSharedRows>(
      dt::kSweepClusterPairRows, [](const auto& distinct) {
        for (int g = 0; g < dt::kSweepClusterBlockSegments; ++g)
          distinct([&](int l) { return dt::kWarpLanes * g + l; }, "write");
        for (int h = 0; h < 2; ++h) distinct([&](int l) { return 2 * l + h; }, "read");
      });
}

// The walk of the segment kernels (tridiag's and pscr's segment stage) over the (system, segment)
// units: never more warps than resident, every unit taken by exactly one group, and a warp
// changing segment as rarely as the walk allows: never in the cyclic order where the warps' groups
// cover the segments, at most once per `batch` units (plus one) in the blocked order (taken only
// where the warps keep data per segment).
TEST(SegmentWalk, EveryUnitOnceAndFewSegmentChanges) {
  using cuda::detail::GroupUnits;
  using cuda::detail::segment_walk;
  for (index_t segments : {1, 2, 3, 7, 8, 64, 130, 4096})
    for (index_t groups : {1, 2, 4, 8}) {
      if (segments > 1 && groups > 1) continue;  // narrow segments: one-segment systems only
      for (index_t batch : {1, 5, 16, 1000})
        for (index_t resident : {1, 31, 528, 2112})
          for (bool segment_data : {false, true}) {
            SCOPED_TRACE(::testing::Message()
                         << "segments " << segments << ", groups " << groups << ", batch " << batch
                         << ", resident " << resident << ", segment data " << segment_data);
            const index_t units = batch * segments;
            const auto walk = segment_walk(batch, segments, groups, resident, segment_data);
            ASSERT_GE(walk.warps, 1);
            ASSERT_LE(walk.warps, std::min((units + groups - 1) / groups, resident));
            EXPECT_EQ(walk.chunk > 0, segment_data && segments > walk.warps * groups);
            std::vector<int> taken(static_cast<std::size_t>(units), 0);
            for (index_t w = 0; w < walk.warps; ++w) {
              index_t changes = 0, steps = 0;
              for (index_t g = 0; g < groups; ++g) {
                index_t seg = -1;
                for (GroupUnits u(walk, batch, segments, w, groups, g); u.more(); u.next()) {
                  if (!u.active()) continue;
                  ASSERT_LT(u.segment(), segments);
                  ASSERT_LT(u.system(), batch);
                  ++taken[static_cast<std::size_t>(u.system() * segments + u.segment())];
                  if (u.segment() != seg && seg >= 0) ++changes;
                  seg = u.segment();
                  ++steps;
                }
              }
              if (walk.chunk == 0 && walk.warps * groups % segments == 0)
                EXPECT_EQ(changes, 0) << "warp " << w;
              if (walk.chunk > 0) EXPECT_LE(changes, steps / batch + 1) << "warp " << w;
            }
            for (index_t u = 0; u < units; ++u)
              ASSERT_EQ(taken[static_cast<std::size_t>(u)], 1) << "unit " << u;
          }
    }
}

/// Whether the shared-memory slots lie in distinct banks, `banks` of them (slot mod banks): 16 for
/// 8-byte slots in a phase of 16 lanes, 8 for 16-byte slots in a phase of 8.
bool distinct_banks(const std::vector<int>& slots, int banks) {
  std::vector<bool> used(banks, false);
  for (int t : slots) {
    if (used[t % banks]) return false;
    used[t % banks] = true;
  }
  return true;
}

// The block pass's staging of d (LaneStage, 8-byte rows): every row of a warp's segment gets its
// own slot, and a phase of the copies (16 consecutive rows, lanes u / K) and a phase of the reads
// (16 lanes, row e each) both meet 16 distinct 8-byte bank pairs (slot mod 16).
template <int K>
void check_lane_stage_slots() {
  SCOPED_TRACE(::testing::Message() << "K " << K);
  using Stage = cuda::detail::LaneStage<K, double>;
  constexpr int rows = cuda::detail::kWarpLanes * K;
  std::vector<int> row_at(rows, -1);
  for (int u = 0; u < rows; ++u) {
    const int slot = Stage::slot(u / K, u % K);
    ASSERT_GE(slot, 0);
    ASSERT_LT(slot, rows);
    ASSERT_EQ(row_at[slot], -1) << "rows " << row_at[slot] << " and " << u << " share a slot";
    row_at[slot] = u;
  }
  for (int first = 0; first < rows; first += 16) {
    std::vector<int> copies;
    for (int u = first; u < first + 16; ++u) copies.push_back(Stage::slot(u / K, u % K));
    EXPECT_TRUE(distinct_banks(copies, 16)) << "copies of rows " << first << "..";
  }
  for (int e = 0; e < K; ++e)
    for (int half : {0, 16}) {
      std::vector<int> reads;
      for (int l = half; l < half + 16; ++l) reads.push_back(Stage::slot(l, e));
      EXPECT_TRUE(distinct_banks(reads, 16)) << "reads of row " << e << ", lanes " << half << "..";
    }
}

TEST(LaneStage, OneSlotPerRowAndNoBankConflicts) {
  check_lane_stage_slots<2>();
  check_lane_stage_slots<4>();
  check_lane_stage_slots<8>();
  check_lane_stage_slots<16>();
}

// The whole pass's staging (whole_pass_rows_in_one_run): where it stages, row e of lane l (row
// (l mod width)·K + e of the warp's system l / width) lies at l·K + e of the run that
// segment_kernel's fetch copies from the first system's row 0, and the fetch's
// min(32·K, systems·n) rows are exactly the lanes' rows below n of the warp's systems (the rest
// zero-filled, as load_lane pads identity rows): every n of one segment at K = 4, 8, 16, a warp
// of 1 to 32 / width systems, systems back to back, padded, and with strided rows.
TEST(SegmentWholePass, StagesOnlyWhereAWarpsRowsAreOneRun) {
  namespace dt = cuda::detail;
  int staged_layouts = 0;
  for (int K : {4, 8, 16}) {
    const index_t run = static_cast<index_t>(dt::kWarpLanes) * K;
    for (index_t n = 1; n <= run; ++n) {
      const int width = dt::segment_width(n, K);
      ASSERT_EQ(dt::segment_count(n, K), 1) << "n " << n << ", K " << K;
      const int groups = dt::kWarpLanes / width;
      for (const dt::Strides s :
           {dt::Strides{n, 1}, dt::Strides{n + 3, 1}, dt::Strides{2 * n + 3, 2}}) {
        if (!dt::whole_pass_rows_in_one_run(n, K, s)) continue;
        ++staged_layouts;
        for (int systems = 1; systems <= groups; ++systems) {
          SCOPED_TRACE(::testing::Message() << "n " << n << ", K " << K << ", system stride "
                                            << s.system << ", systems " << systems);
          const index_t fetched = std::min<index_t>(run, systems * n);
          for (int l = 0; l < dt::kWarpLanes; ++l)
            for (int e = 0; e < K; ++e) {
              const index_t row = (l % width) * K + e, u = l * K + e;
              const bool real_row = row < n && l / width < systems;
              ASSERT_EQ(u < fetched, real_row) << "lane " << l << ", row " << e;
              if (real_row) ASSERT_EQ(s.at(l / width, row), u) << "lane " << l << ", row " << e;
            }
        }
      }
    }
  }
  // The shapes measured staged: 64 rows at K = 8 back to back, 127 at K = 4 padded.
  EXPECT_TRUE(dt::whole_pass_rows_in_one_run(64, 8, {64, 1}));
  EXPECT_TRUE(dt::whole_pass_rows_in_one_run(127, 4, {130, 1}));
  EXPECT_FALSE(dt::whole_pass_rows_in_one_run(100, 8, {100, 1}));
  EXPECT_GT(staged_layouts, 0);
}

// segment_lanes_reduce_kernel's stages: one slot per piece, and the 8 lanes of a phase of 16-byte
// accesses (reads: piece q of units w..w+7; copies: the 8 pieces of one unit) on 8 distinct 16-byte
// bank groups (slot mod 8).
TEST(SegmentLanes, OneSlotPerPieceAndNoBankConflicts) {
  namespace dt = cuda::detail;
  constexpr int pieces = dt::kLanesTilePieces;
  std::vector<int> piece_at(dt::kLanesDPieces, -1);
  for (int w = 0; w < dt::kWarpLanes; ++w)
    for (int q = 0; q < pieces; ++q) {
      const int t = dt::lanes_slot(w, q);
      ASSERT_GE(t, 0);
      ASSERT_LT(t, dt::kLanesDPieces);
      ASSERT_EQ(piece_at[t], -1) << "unit " << w << ", piece " << q;
      piece_at[t] = w * pieces + q;
    }
  for (int q = 0; q < pieces; ++q)
    for (int w0 = 0; w0 < dt::kWarpLanes; w0 += 8) {
      std::vector<int> reads;
      for (int w = w0; w < w0 + 8; ++w) reads.push_back(dt::lanes_slot(w, q));
      EXPECT_TRUE(distinct_banks(reads, 8)) << "reads of piece " << q << ", units " << w0 << "..";
    }
  for (int w = 0; w < dt::kWarpLanes; ++w) {
    std::vector<int> copies;
    for (int q = 0; q < pieces; ++q) copies.push_back(dt::lanes_slot(w, q));
    EXPECT_TRUE(distinct_banks(copies, 8)) << "copies of unit " << w;
  }
}

// warp_twisted_solve's algebra (emulate_twisted_solve): the reduced rows of a group of L lanes,
// 3 right-hand sides, solved from both ends give what the reference's Thomas gives on the 2L-row
// system (one right-hand side at a time), for every group width the kernels use; the group's
// first a and (L ≥ 2) last c are NaN here, and not read.
TYPED_TEST(EmulationTest, TwistedSolveIsThomas) {
  using T = cuda::detail::kernel_scalar_t<TypeParam>;
  namespace dt = cuda::detail;
  constexpr int R = 3;
  for (int L : {1, 2, 4, 8, 16, 32}) {
    SCOPED_TRACE(::testing::Message() << "L " << L);
    const auto v = pscr::testing::random_vector<TypeParam>(2 * L * (3 + R), 18000 + L);
    const auto at = [&](std::size_t i) { return reinterpret_cast<const T&>(v[i]); };
    std::vector<dt::Row<T, R>> P(L), Q(L);
    for (int e = 0; e < 2 * L; ++e) {
      const std::size_t o = static_cast<std::size_t>(e) * (3 + R);
      dt::Row<T, R>& r = e % 2 == 0 ? P[e / 2] : Q[e / 2];
      r.a = at(o);
      r.b = at(o + 1) + T(4);
      r.c = at(o + 2);
      for (int j = 0; j < R; ++j) r.d[j] = at(o + 3 + j);
    }
    const T nan(std::numeric_limits<double>::quiet_NaN());
    P[0].a = nan;
    Q[L - 1].c = L >= 2 ? nan : T(0);
    const LaneUnknowns<T, R> u = emulate_twisted_solve(P, Q);
    for (int j = 0; j < R; ++j) {
      std::vector<dt::Row4<T>> P1(L), Q1(L);
      for (int l = 0; l < L; ++l) {
        P1[l] = {P[l].a, P[l].b, P[l].c, {P[l].d[j]}};
        Q1[l] = {Q[l].a, Q[l].b, Q[l].c, {Q[l].d[j]}};
      }
      const LaneUnknowns<T, 1> want = thomas_reduced_solve(P1, Q1);
      const auto mag = [](const T& x) { return std::abs(reinterpret_cast<const TypeParam&>(x)); };
      for (int l = 0; l < L; ++l) {
        EXPECT_LE(mag(u.first[l][j] - want.first[l][0]), 1e-14) << "lane " << l << ", rhs " << j;
        EXPECT_LE(mag(u.last[l][j] - want.last[l][0]), 1e-14) << "lane " << l << ", rhs " << j;
      }
    }
  }
}

/// The segment kernels' lanes on system k of a shifted batch.
template <int K, class Scalar>
RegisterLanes<K, cuda::detail::kernel_scalar_t<Scalar>> register_lanes(
    const testing::Batch<Scalar>& t, index_t k) {
  namespace dt = cuda::detail;
  using T = dt::kernel_scalar_t<Scalar>;
  const index_t n = t.n;
  const dt::ShiftedMatrix<T> m = kernel_matrix(t);
  std::vector<T> d(n);
  for (index_t r = 0; r < n; ++r) d[r] = reinterpret_cast<const T&>(t.d[k * n + r]);
  return {m, reinterpret_cast<const T&>(t.shifts[k]), std::move(d), std::vector<T>(n)};
}

// segment_lanes_reduce_kernel's lanes: a LaneChain down a whole segment of 32·K rows
// (eliminate_segment) gives the coarse rows F, L that the lanes of K rows and warp_condense's tree
// give in segment_kernel's reduce pass, to rounding; past n the rows are identity rows with a zero
// right-hand side (the last segment here ends 219 rows past n).
TYPED_TEST(EmulationTest, SegmentLanesCoarseRows) {
  using T = cuda::detail::kernel_scalar_t<TypeParam>;
  namespace dt = cuda::detail;
  constexpr int K = 8;
  constexpr index_t rows = dt::kWarpLanes * K;
  const index_t n = 3 * rows + 37, segments = dt::segment_count(n, K);
  ASSERT_EQ(segments, 4);
  const auto t = testing::make_shifted<TypeParam>(n, 2, testing::Kind::dominant, 17000);
  for (index_t k = 0; k < t.batch; ++k) {
    RegisterLanes<K, T> lanes = register_lanes<K>(t, k);
    auto mag = [](const T& x) { return std::abs(reinterpret_cast<const TypeParam&>(x)); };
    for (index_t j = 0; j < segments; ++j) {
      const dt::Condensed<T> tree = condense_segment<K, T>(lanes, j, dt::kWarpLanes);
      const auto [F, L] = eliminate_segment(lanes, j, dt::kWarpLanes);
      const std::pair<dt::Row4<T>, dt::Row4<T>> pairs[] = {{F, tree.F}, {L, tree.L}};
      for (const auto& [got, want] : pairs) {
        const T g[] = {got.a, got.b, got.c, got.d[0]}, w[] = {want.a, want.b, want.c, want.d[0]};
        const double scale = mag(want.b) + mag(want.d[0]);
        for (int f = 0; f < 4; ++f)
          EXPECT_LE(mag(g[f] - w[f]), 1e-13 * scale)
              << "system " << k << ", segment " << j << ", field " << f;
      }
    }
  }
}

// The segment method by lanes in both passes (eliminate_segment, the reference's coarse solve,
// substitute_segment), as complex shifted systems run it: relative residuals at rounding on
// dominant systems of 6 segments at K = 4, the last one 91 rows past n.
TYPED_TEST(EmulationTest, SegmentLanesSolve) {
  using T = cuda::detail::kernel_scalar_t<TypeParam>;
  namespace dt = cuda::detail;
  constexpr int K = 4;
  const index_t n = 5 * dt::kWarpLanes * K + 37;
  ASSERT_EQ(dt::segment_count(n, K), 6);
  auto t = testing::make_shifted<TypeParam>(n, 3, testing::Kind::dominant, 17100);
  testing::fill_explicit_from_shifted(t);
  for (index_t k = 0; k < t.batch; ++k) {
    const std::vector<T> x =
        emulate_segment<K, T>(register_lanes<K>(t, k), n, SegmentPasses::lanes);
    std::vector<TypeParam> xs(n * t.batch);
    for (index_t r = 0; r < n; ++r) xs[k * n + r] = reinterpret_cast<const TypeParam&>(x[r]);
    EXPECT_LE(testing::relative_residual(t, xs, k), 1e-14) << "system " << k;
  }
}

/// The systems of testing::HelmholtzPencil, one at a time: `shifts` shifts evenly across the
/// spectrum.
class HelmholtzShifts {
 public:
  using S = testing::HelmholtzPencil::S;
  using T = cuda::detail::Complex;

  HelmholtzShifts(index_t n, int seed, int shifts)
      : pencil_(n, seed), shifts_(shifts), t_(pencil_.batch({S(0)})) {
    const pscr::Factor<S>& f = pencil_.factor;
    m = {cuda::detail::as_kernel(f.A.diag.data()), cuda::detail::as_kernel(f.A.off.data()),
         cuda::detail::as_kernel(f.M.diag.data()), cuda::detail::as_kernel(f.M.off.data()), n};
    d.resize(n);
    for (index_t i = 0; i < n; ++i) d[i] = reinterpret_cast<const T&>(t_.d[i]);
  }
  /// Shift j of the sweep (also set as the system's, for residual()).
  T shift(int j) {
    const S s = pencil_.shift(j, shifts_);
    t_.shifts[0] = s;
    testing::fill_explicit_from_shifted(t_);
    return {s.real(), s.imag()};
  }
  /// Relative residual of x for the system of the last shift().
  double residual(const std::vector<T>& x) const {
    const S* xs = reinterpret_cast<const S*>(x.data());
    return testing::relative_residual(t_, std::vector<S>(xs, xs + x.size()), 0);
  }
  cuda::detail::ShiftedMatrix<T> m;
  std::vector<T> d;  ///< the right-hand side, kernel scalars

 private:
  testing::HelmholtzPencil pencil_;
  int shifts_;
  testing::Batch<S> t_;
};

// The segment method with 4 rows per lane (the most bench/tridiag_select.py lets the complex table
// use) on HelmholtzShifts: non-pivoting elimination meets near-singular sub-blocks at a few
// shifts. Measured on these shifts, with lanes of K rows, the tree and the warp's solve: relative
// residuals above 1e-10 at 1 shift for K = 4 (worst 4.9e-10), 5 for K = 2 (1.4e-9), 19 for K = 8
// (2.0e-7); the Thomas reference is below 1e-12 at all of them (docs/tridiag-performance.md). The
// bounds fail K = 8. With both passes one lane per segment (eliminate_segment, substitute_segment:
// Thomas down each segment's interior, as complex shifted systems now run), none: measured (4000
// shifts each, n = 1023, 2047, 4095, seeds 5, 7, 11), 0 shifts above 1e-10 against the tree's
// 0–3 per problem, the worst 2.3e-11 against 3.8e-9.
TEST(EmulationHelmholtz, SegmentFourRowsPerLane) {
  using T = HelmholtzShifts::T;
  constexpr int K = 4;
  const index_t n = 2047;
  const int shifts = 10000;
  HelmholtzShifts h(n, 7, shifts);
  double worst[2] = {0, 0};
  int inaccurate[2] = {0, 0};  // shifts with a relative residual above 1e-10, tree and lanes
  for (int j = 0; j < shifts; ++j) {
    const T s = h.shift(j);
    for (SegmentPasses pass : {SegmentPasses::tree, SegmentPasses::lanes}) {
      const int q = pass == SegmentPasses::lanes;
      const double residual = h.residual(
          emulate_segment<K, T>(RegisterLanes<K, T>{h.m, s, h.d, std::vector<T>(n)}, n, pass));
      worst[q] = std::max(worst[q], residual);
      if (residual > 1e-10) ++inaccurate[q];
    }
  }
  EXPECT_GE(inaccurate[0], 1) << "no shift where the tree loses accuracy";
  EXPECT_LE(inaccurate[0], 5) << "segment K = " << K << ", n = " << n << ", of " << shifts;
  EXPECT_LE(worst[0], 1e-8) << "segment K = " << K << ", n = " << n;
  EXPECT_EQ(inaccurate[1], 0) << "one lane per segment";
  EXPECT_LE(worst[1], 1e-10) << "one lane per segment";
}

/// A guarded solve on HelmholtzShifts problems (n, seed), 4000 shifts each: `solve(h, s, coarse,
/// flagged)` is a method's x for shift s of h with its reduced rows solved by the warp's tree
/// (CoarseSolve::warp_tree) or guarded (CoarseSolve::guarded, `flagged` set where the guard
/// flagged). Guarded, every shift meets 1e-10 and the guard flags at least one and at most 2.5% of
/// each problem's shifts. Returns the shifts where the tree alone does not meet 1e-10.
template <class Solve>
int expect_guard_holds(std::initializer_list<std::pair<index_t, int>> problems, Solve solve) {
  using T = HelmholtzShifts::T;
  const int shifts = 4000;
  int tree_inaccurate = 0;
  for (const auto& [n, seed] : problems) {
    HelmholtzShifts h(n, seed, shifts);
    int inaccurate = 0, flagged = 0;
    double worst = 0;
    for (int j = 0; j < shifts; ++j) {
      const T s = h.shift(j);
      bool flag = false;
      if (!(h.residual(solve(h, s, CoarseSolve::warp_tree, nullptr)) <= 1e-10)) ++tree_inaccurate;
      const double residual = h.residual(solve(h, s, CoarseSolve::guarded, &flag));
      worst = std::isnan(residual) ? HUGE_VAL : std::max(worst, residual);
      if (!(residual <= 1e-10)) ++inaccurate;
      flagged += flag;
    }
    SCOPED_TRACE(::testing::Message() << "n " << n << ", seed " << seed);
    EXPECT_EQ(inaccurate, 0) << "worst " << worst;
    EXPECT_GE(flagged, 1);
    EXPECT_LE(flagged, shifts / 40);
  }
  return tree_inaccurate;
}

// The sweep kernel's guard for complex systems not declared dominant (ReducedGrowth; sections of
// 2026-11-27 in docs/tridiag-performance.md): the warp's tree loses accuracy at a few
// HelmholtzShifts (K = 16 and 24 here), the guard flags them among at most 2.5% of the shifts, and
// the flagged ones' reduced rows solved again in order (warp_twisted_solve) meet 1e-10. Measured on
// 30 problems (n = 255, 511, 767, 1023, 2047, K = 8 to 64; seeds 3, 5, 7, 11, 13, 17; 4000 shifts
// each): 52–62 shifts flagged per problem, every one where the tree failed (26 in all) among them;
// after, 1 of the 120000 above 1e-10 (1.06e-10, n = 767, seed 13), the rest at most 2.1e-11.
TEST(EmulationHelmholtz, GuardedSweepMeetsTheResidualWhereTheTreeFails) {
  using T = HelmholtzShifts::T;
  const int tree_inaccurate =
      expect_guard_holds({{511, 5}, {511, 11}, {767, 3}, {767, 7}},
                         [](const HelmholtzShifts& h, T s, CoarseSolve coarse, bool* flagged) {
                           return emulate_sweep<0>(h.m, s, h.d, 0, coarse, flagged);
                         });
  EXPECT_GE(tree_inaccurate, 1) << "no shift where the warp's tree loses accuracy";
}

// The same guard in the segment and columns methods' solve of a segment's reduced rows (their
// kernels guard complex systems of more than 4 rows per lane): one segment of K = 8 or 16 rows on
// HelmholtzShifts, where the tree loses accuracy at a few shifts and the guarded solve at none.
// Measured on 27 problems (n = 63 to 511, K = 4, 8, 16, seeds 3, 5, 7, 4000 shifts each): the tree
// 9 shifts above 1e-10 (up to 6.8e-10), guarded none (worst 5.4e-11); here three of the failing
// ones.
template <int K>
int expect_guarded_segment_holds(std::initializer_list<std::pair<index_t, int>> problems) {
  using T = HelmholtzShifts::T;
  return expect_guard_holds(
      problems, [](const HelmholtzShifts& h, T s, CoarseSolve coarse, bool* flagged) {
        const auto n = static_cast<index_t>(h.d.size());
        return emulate_segment<K, T>(RegisterLanes<K, T>{h.m, s, h.d, std::vector<T>(n)}, n,
                                     SegmentPasses::tree, coarse, flagged);
      });
}

TEST(EmulationHelmholtz, GuardedSegmentMeetsTheResidualWhereTheTreeFails) {
  const int tree_inaccurate = expect_guarded_segment_holds<16>({{127, 7}, {511, 5}}) +
                              expect_guarded_segment_holds<8>({{255, 7}});
  EXPECT_GE(tree_inaccurate, 1) << "no shift where the tree loses accuracy";
}

// A one-pass kernel for complex systems beyond 4 rows per lane (docs/tridiag-performance.md,
// section of 2026-11-27 on the sweep method's reduced rows solved in order): the sweep method's
// lanes (sweep_reduce, sweep_substitute) with K = (n + 1)/32 and the 64 reduced rows solved in
// order (Thomas, as one lane would) lose accuracy at no shift of HelmholtzShifts; with the warp's
// solve of the reduced rows (the kernel's warp_reduced_solve) some shifts do. Measured on 15
// problems (n = 511, 1023, 2047; seeds 3, 5, 7, 11, 13; 4000 shifts each): in order 0 shifts above
// 1e-10 (worst 3.5e-11), the warp's solve 10 (worst 3.6e-7). Here three of the problems where the
// warp's solve fails. (One lane per segment with a LaneChain, the lanes passes' numerics,
// with the reduced rows in order: 0 of 80000 shifts up to n = 4095.)
TEST(EmulationHelmholtz, SweepWithReducedRowsInOrder) {
  using T = HelmholtzShifts::T;
  const int shifts = 4000;
  for (const auto& [n, seed] : {std::pair<index_t, int>{511, 5}, {1023, 3}, {2047, 7}}) {
    const int K = static_cast<int>((n + 1) / cuda::detail::kWarpLanes);
    HelmholtzShifts h(n, seed, shifts);
    int inaccurate[2] = {0, 0};  // in order, the warp's solve
    double worst[2] = {0, 0};
    for (int j = 0; j < shifts; ++j) {
      const T s = h.shift(j);
      for (CoarseSolve coarse : {CoarseSolve::thomas, CoarseSolve::warp_tree}) {
        const int q = coarse == CoarseSolve::warp_tree;
        const double residual = h.residual(emulate_sweep<0>(h.m, s, h.d, K, coarse));
        worst[q] = std::isnan(residual) ? HUGE_VAL : std::max(worst[q], residual);
        if (!(residual <= 1e-10)) ++inaccurate[q];
      }
    }
    SCOPED_TRACE(::testing::Message() << "n " << n << ", seed " << seed << ", K " << K);
    EXPECT_EQ(inaccurate[0], 0) << "worst " << worst[0];
    EXPECT_LE(worst[0], 1e-10);
    EXPECT_GE(inaccurate[1], 1) << "no shift where the warp's solve loses accuracy";
  }
}

// The cluster kernel on complex systems not declared dominant (K = 8, kSweepClusterComplexRows):
// the warp's tree loses accuracy at a few HelmholtzShifts in the spike solve and the coarse solve,
// which the kernel therefore guards (each solve watched by ReducedGrowth and solved again in order
// where it flags). Measured (K = 8, guarded, seeds 3, 5, 7, 11, 1000 shifts each, n = 1023, 1500,
// 2047, 3000, 4095, 6000, 8191): 0 of 28000 shifts above 1e-10 (worst 1.0e-10); with 2000 shifts
// at n = 1023 (seeds 3, 5), 2047 (7), 4095 (3), 8191 (5) the tree 17 of 10000, guarded 1 (n = 2047,
// 1.9e-9, where the reduced rows solved in order fail as well: a segment's block of 256 rows near
// singular, which only pivoting avoids). Here a problem where the tree fails and the guard holds,
// and where a guard three times looser (ReducedGrowth's limit 30) lets failures through: the
// limit is no tighter than it needs to be (at 30 two shifts above 1e-10, up to 1.1e-9).
TEST(EmulationHelmholtz, GuardedSweepClusterMeetsTheResidualWhereTheTreeFails) {
  using T = HelmholtzShifts::T;
  constexpr int K = cuda::detail::kSweepClusterComplexRows;
  constexpr double kLoose = 3 * cuda::detail::ReducedGrowth::kLimit;
  const index_t n = 4095;
  const int shifts = 2000;
  HelmholtzShifts h(n, 3, shifts);
  int inaccurate[3] = {0, 0, 0};  // the tree, guarded, guarded with the looser limit
  double worst = 0;
  for (int j = 0; j < shifts; ++j) {
    const T s = h.shift(j);
    for (int q = 0; q < 3; ++q) {
      const CoarseSolve coarse = q == 0 ? CoarseSolve::warp_tree : CoarseSolve::guarded;
      const double limit = q == 2 ? kLoose : cuda::detail::ReducedGrowth::kLimit;
      const double residual =
          h.residual(emulate_block<K, T>(SweepClusterLanes<K, T>(h.m, s, h.d), n, coarse, limit));
      if (q == 1) worst = std::isnan(residual) ? HUGE_VAL : std::max(worst, residual);
      if (!(residual <= 1e-10)) ++inaccurate[q];
    }
  }
  EXPECT_GE(inaccurate[0], 1) << "no shift where the tree loses accuracy";
  EXPECT_EQ(inaccurate[1], 0) << "guarded, worst " << worst;
  EXPECT_GE(inaccurate[2], 1) << "no shift lost with the guard's limit at " << kLoose;
}

// The cluster kernel's InBlock instance for complex systems not declared dominant (K = 16, 769 to
// 1024 rows: two segments of 512 rows, their 128 reduced rows solved by every warp of the slot):
// the warp's tree over the lanes' reduced rows loses accuracy at a few HelmholtzShifts, which the
// guard (block_reduced_solve<true>) flags and solves again in order. Measured (seeds 3, 5, 7, 11,
// 13, n = 769, 1000, 1023, 1024, 4000 shifts each): the tree 17 of 80000 shifts above 1e-10 (up to
// 1.9e-7), guarded 2 (1.17e-10 at n = 769, seed 11; 1.22e-10 at n = 1024, seed 3), the guard
// flagging 51–64 shifts per problem. Here three problems where the tree fails and the guard holds.
TEST(EmulationHelmholtz, GuardedSweepClusterInBlockMeetsTheResidualWhereTheTreeFails) {
  using T = HelmholtzShifts::T;
  constexpr int K = 16;
  for (index_t n : {1000, 1023, 1024})
    ASSERT_TRUE(cuda::detail::sweep_cluster_in_block(
        K, cuda::detail::sweep_cluster_shape(n, K, static_cast<int>(sizeof(T)))));
  const int tree_inaccurate = expect_guard_holds(
      {{1000, 13}, {1023, 3}, {1024, 5}},
      [](const HelmholtzShifts& h, T s, CoarseSolve coarse, bool* flagged) {
        return emulate_block_reduced<K, T>(SweepClusterLanes<K, T>(h.m, s, h.d), coarse, flagged);
      });
  EXPECT_GE(tree_inaccurate, 3) << "the tree lost no accuracy on these problems";
}

/// Rows and right-hand side of one system for the lane steps alone, unpadded: identity rows past
/// n come from lane_row's bounds checks.
template <class T>
struct PlainRows {
  const T* a;
  const T* b;
  const T* c;
  PSCR_HD T sub(index_t r) const { return a[r]; }
  PSCR_HD T diag(index_t r) const { return b[r]; }
  PSCR_HD T sup(index_t r) const { return c[r]; }
};
template <class T>
struct PlainVector {
  T* v;
  PSCR_HD T get(index_t r) const { return v[r]; }
  PSCR_HD void set(index_t r, T x) const { v[r] = x; }
};

/// lane_reduce and lane_resolve meeting at interior row M of each lane (1..K − 2): on a diagonally
/// dominant system of n rows with d = A x, each lane's reduced rows P, Q hold for x, and the
/// interior solved again from the lane's end values is x, for every lane including the last,
/// which runs past n (identity rows, x = 0 there).
template <int K, int M, class Scalar>
void check_lane_meeting(index_t n, std::uint64_t seed) {
  using T = cuda::detail::kernel_scalar_t<Scalar>;
  using cuda::detail::as_kernel;
  const auto scalar = [](const T& z) { return reinterpret_cast<const Scalar&>(z); };
  std::vector<Scalar> a = pscr::testing::random_vector<Scalar>(n, seed),
                      c = pscr::testing::random_vector<Scalar>(n, seed + 1),
                      x = pscr::testing::random_vector<Scalar>(n, seed + 2), b(n), d(n);
  a[0] = Scalar(0);
  c[n - 1] = Scalar(0);
  // |b| ≥ 4 − |a|/2 > |a| + |c| (entries of modulus at most √2), complex b off the real axis.
  for (index_t r = 0; r < n; ++r) b[r] = Scalar(4) + Scalar(0.5) * a[r];
  const auto at = [&](index_t r) { return r >= 0 && r < n ? x[r] : Scalar(0); };
  for (index_t r = 0; r < n; ++r) d[r] = a[r] * at(r - 1) + b[r] * x[r] + c[r] * at(r + 1);
  const PlainRows<T> rows{as_kernel(a.data()), as_kernel(b.data()), as_kernel(c.data())};
  for (index_t p = 0; p < n; p += K) {
    std::vector<Scalar> v = d;
    cuda::detail::Row4<T> P, Q;
    cuda::detail::lane_reduce<K, M>(rows, PlainVector<T>{as_kernel(v.data())}, p, n, P, Q);
    const Scalar rp = scalar(P.a) * at(p - 1) + scalar(P.b) * at(p) + scalar(P.c) * at(p + K - 1) -
                      scalar(P.d[0]);
    const Scalar rq = scalar(Q.a) * at(p) + scalar(Q.b) * at(p + K - 1) + scalar(Q.c) * at(p + K) -
                      scalar(Q.d[0]);
    EXPECT_LE(std::abs(rp), 1e-13 * (1 + std::abs(scalar(P.d[0]))))
        << "P, K " << K << ", M " << M << ", n " << n << ", lane at " << p;
    EXPECT_LE(std::abs(rq), 1e-13 * (1 + std::abs(scalar(Q.d[0]))))
        << "Q, K " << K << ", M " << M << ", n " << n << ", lane at " << p;
    cuda::detail::lane_resolve<K, M>(rows, PlainVector<T>{as_kernel(v.data())}, p, n,
                                     as_kernel(x.data())[p],
                                     p + K - 1 < n ? as_kernel(x.data())[p + K - 1] : T(0));
    for (index_t r = p; r < std::min(p + K, n); ++r)
      EXPECT_LE(std::abs(v[r] - x[r]), 1e-13 * (1 + std::abs(x[r])))
          << "x, K " << K << ", M " << M << ", n " << n << ", row " << r;
  }
}

template <int K, class Scalar, int... Ms>
void check_lane_meetings(std::integer_sequence<int, Ms...>) {
  for (index_t n : {index_t{1}, index_t{K - 1}, index_t{3 * K}, index_t{5 * K + 2}})
    (check_lane_meeting<K, Ms + 1, Scalar>(n, 11 * K + n), ...);
}

TYPED_TEST(EmulationTest, LaneStepsMeetAtAnyInteriorRow) {
  check_lane_meetings<3, TypeParam>(std::make_integer_sequence<int, 1>{});
  check_lane_meetings<4, TypeParam>(std::make_integer_sequence<int, 2>{});
  check_lane_meetings<5, TypeParam>(std::make_integer_sequence<int, 3>{});
  check_lane_meetings<8, TypeParam>(std::make_integer_sequence<int, 6>{});
  check_lane_meetings<16, TypeParam>(std::make_integer_sequence<int, 14>{});
}

// Why complex systems not declared dominant keep K ≤ 4 (kMaxComplexLaneRows) on the segment
// method's lanes passes too: a lane eliminates its whole segment (32·K rows) without pivoting, and
// at K = 16 (segments of 512 rows) a shift of HelmholtzShifts meets a near-singular leading block
// that segments of 128 rows (K = 4) do not. Measured (both passes one lane per segment, 4000 shifts
// each): n = 4095, seed 3: K = 16 1 shift above 1e-10 (shift 40, 1.4e-8; the GPU's solve with
// K = 16 there 7.7e-9, docs/tridiag-performance.md, 2026-12-04), K = 4 none (worst 1.9e-11);
// n = 8191, seed 5: K = 16 1 (shift 32, 2.7e-10), K = 4 none; n = 1023, seed 3: none either way.
// Here shift 40 of the first.
TEST(EmulationHelmholtz, LanesBeyondFourRowsPerLaneLoseAccuracy) {
  using T = HelmholtzShifts::T;
  const index_t n = 4095;
  HelmholtzShifts h(n, 3, 4000);
  const T s = h.shift(40);
  const double k4 = h.residual(emulate_segment<4, T>(
      RegisterLanes<4, T>{h.m, s, h.d, std::vector<T>(n)}, n, SegmentPasses::lanes));
  const double k16 = h.residual(emulate_segment<16, T>(
      RegisterLanes<16, T>{h.m, s, h.d, std::vector<T>(n)}, n, SegmentPasses::lanes));
  EXPECT_LE(k4, 1e-10) << "K = 4";
  EXPECT_GT(k16, 1e-9) << "K = 16 accurate here: the bound kMaxComplexLaneRows may not be needed "
                          "on the lanes passes (probe every shift before lifting it)";
}

}  // namespace
}  // namespace pscr::tridiag
