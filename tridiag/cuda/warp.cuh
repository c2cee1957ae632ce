#pragma once
/// @file The register partition method ("warp"): one warp per system of n ≤ 32·K rows. Lane l
/// owns rows [lK, lK + K) and keeps them in registers: it eliminates its interior rows
/// (lK + 1 .. lK + K − 2), expressing each as x_i = D_i + G_i x_first + H_i x_last, which leaves
/// two rows per lane (its first and last row) coupled only to the neighbouring lanes' interface
/// unknowns: a reduced tridiagonal system of 64 rows (the Schur complement of RPTS, klein2021).
/// One cyclic-reduction step (kim2011 eq. 3) removes the last rows, five PCR steps (kim2011
/// eqs. 5–6) on the remaining one-row-per-lane system decouple it, all with warp shuffles; the
/// last rows follow from their own equation, and each lane writes x_i = D_i + G_i x_first +
/// H_i x_last. Shared memory holds only the block's d/x tile (loaded and stored coalesced, see
/// rows.cuh) and, for the shifted form, the staged A and M tables; each row of the tile is read
/// once and written once by its lane. Rows at or past n are identity rows (a = c = d = 0,
/// b = 1) that never touch memory.
///
/// The per-lane steps (lane_reduce, cr_even, pcr_combine, lane_substitute) are host and device
/// functions: tests/tridiag/test_cuda_emulation.cu runs them on the CPU in lockstep over 32
/// emulated lanes. Include only from .cu files.

#include <type_traits>

#include "tridiag/cuda/rows.cuh"

namespace pscr::tridiag::cuda::detail {

/// Lanes per system.
constexpr int kWarpLanes = 32;
/// Largest block of the warp kernel (warps = systems per block).
constexpr int kMaxWarpThreads = 256;

/// One row a x_{i−1} + b x_i + c x_{i+1} = d of a (reduced) tridiagonal system, with R
/// right-hand sides d[0..R) that share the matrix row (the kernels use R = 1).
template <class T, int R = 1>
struct Row {
  T a, b, c;
  T d[R];
};
template <class T>
using Row4 = Row<T, 1>;

/// Whether a row accessor (or vector) is padded: it gives identity rows (zero right-hand sides)
/// past n and zero couplings at the ends by itself, and may be read and written there, so the
/// lane steps need no bounds checks (`static constexpr bool padded = true`; default false).
template <class X, class = void>
struct is_padded : std::false_type {};
template <class X>
struct is_padded<X, std::void_t<decltype(X::padded)>> : std::bool_constant<X::padded> {};
template <class Rows, class Vec>
constexpr bool padded_lane = (is_padded<Rows>::value && is_padded<Vec>::value);

/// Whether a row accessor's rows are symmetric: sub(r + 1) = sup(r) for every r (the shifted
/// form's rows of A + s M, whose couplings both read the same table entry;
/// `static constexpr bool symmetric = true`; default false).
template <class X, class = void>
struct is_symmetric : std::false_type {};
template <class X>
struct is_symmetric<X, std::void_t<decltype(X::symmetric)>> : std::bool_constant<X::symmetric> {};

/// Row r of a system of n rows (identity past n): coefficients from `A` (sub/diag/sup by global
/// row), right-hand side from `v` (get by global row).
template <class T, class Rows, class Vec>
PSCR_HD Row4<T> lane_row(const Rows& A, const Vec& v, index_t r, index_t n) {
  if constexpr (!padded_lane<Rows, Vec>)
    if (r >= n) return {T(0), T(1), T(0), T(0)};
  return {A.sub(r), A.diag(r), A.sup(r), v.get(r)};
}

/// One elimination chain of a lane (lane_eliminate, lane_reduce, lane_resolve), downward from the
/// lane's first row or upward from its last (its end row, x_end). Each interior row it takes, with
/// coupling `toward` the rows taken before (a downward, c upward), diagonal b, coupling `away` (c
/// downward, a upward) and right-hand side d, becomes x = e + g x_end − f x_next; the chain's first
/// interior row is carried along as α + β x_end + γ x_next (α += γ e, β += γ g, γ ← −γ f at each
/// row).
///
/// Symmetric (complex symmetric rows, lane_reduce: each row's `toward` is the row before's `away`):
/// then g_i = −t γ_{i−1}/p_i, with t the first row's `toward` and p_i the row's pivot (both
/// products run over the same couplings), so β = −t Σ γ_{i−1}² / p_i. The chain keeps
/// g = γ_{i−1}/p_i and β = Σ γ_{i−1} g instead, 8 FP64 operations a complex row against the
/// 12 of g's and β's own recurrences, and symmetric_end turns them into g and β with t: the
/// columns method's complex K = 16 whole pass 1.5–2.8% faster over the copy at 64 × 2^18 (H200;
/// docs/tridiag-performance.md, "Lane chains of symmetric rows without the spike's own
/// recurrence").
template <class T, bool Symmetric = false>
struct LaneChain {
  T e = T(0), g = T(0), f = T(0), alpha = T(0), beta = T(0), gamma = T(0);

  /// The state before a chain whose first row is taken as any other, take(false, …) (loops not
  /// unrolled, segment_lanes.cuh): the end row itself, x_end = 0 + 1·x_end − 0·x_next, and γ = 1.
  static PSCR_HD LaneChain before_first() {
    static_assert(!Symmetric, "a symmetric chain starts at its first row");
    LaneChain c;
    c.g = T(1);
    c.gamma = T(1);
    return c;
  }

  /// Takes the next row (`first`: the chain's first, next to its end row).
  PSCR_HD void take(bool first, T toward, T b, T away, T d) {
    const T inv = recip(first ? b : b - toward * f);
    e = (first ? d : d - toward * e) * inv;
    if constexpr (Symmetric)
      g = first ? inv : gamma * inv;
    else
      g = -toward * (first ? T(1) : g) * inv;
    f = away * inv;
    if (first) {
      alpha = e;
      beta = g;
      gamma = -f;
    } else {
      alpha += gamma * e;
      beta += gamma * g;
      gamma = -gamma * f;
    }
  }

  /// Symmetric: g and β of the rows taken, from the first row's coupling toward the end row
  /// (`toward_first`). A no-op otherwise.
  PSCR_HD void symmetric_end(const T& toward_first) {
    if constexpr (Symmetric) {
      g = -toward_first * g;
      beta = -toward_first * beta;
    }
  }

  /// The chain's first interior row in the lane's end unknowns, α + β x_end + γ x_other, once
  /// the middle row is x_M = D + G x_end + H x_other (`empty`: the chain took no row, its first
  /// interior row is the middle one).
  PSCR_HD void meet(bool empty, T D, T G, T H) {
    if (empty) {
      alpha = D;
      beta = G;
      gamma = H;
    } else {
      alpha += gamma * D;
      beta += gamma * G;
      gamma = gamma * H;
    }
  }
};

/// Thomas downward on the interior rows p+1..p+K−2 of the lane's rows [p, p + K) with the x_p
/// column carried along: interior row i becomes x_i = d′_i + g′_i x_p − c′_i x_{i+1}, passed to
/// `visit(i, d′, g′, c′)` in order. Returns the lane's first and last rows.
template <int K, class T, class Rows, class Vec, class Visit>
PSCR_HD void lane_eliminate(const Rows& A, const Vec& v, index_t p, index_t n, Row4<T>& first,
                            Row4<T>& last, Visit&& visit) {
  static_assert(K >= 2, "a lane needs at least its two interface rows");
  first = lane_row<T>(A, v, p, n);
  last = lane_row<T>(A, v, p + K - 1, n);
  LaneChain<T> down;  // its e, g, f are d′, g′, c′; α, β, γ go unused
#pragma unroll
  for (int i = 1; i < K - 1; ++i) {
    const Row4<T> r = lane_row<T>(A, v, p + i, n);
    down.take(i == 1, r.a, r.b, r.c, r.d[0]);
    visit(i, down.e, down.g, down.f);
  }
}

/// The lane's reduced rows from its first and last rows and its interior's end rows expressed in
/// its interface unknowns, x_{p+1} = D1 + G1 x_p + H1 x_{p+K−1} and x_{p+K−2} = Dl + Gl x_p +
/// Hl x_{p+K−1}: P (row p: couples the previous lane's last unknown, x_p, x_{p+K−1}) and Q (row
/// p + K − 1: couples x_p, x_{p+K−1}, the next lane's first unknown).
template <class T>
PSCR_HD void lane_reduced_rows(const Row4<T>& first, const Row4<T>& last, T D1, T G1, T H1, T Dl,
                               T Gl, T Hl, Row4<T>& P, Row4<T>& Q) {
  P = {first.a, first.b + first.c * G1, first.c * H1, first.d[0] - first.c * D1};
  Q = {last.a * Gl, last.b + last.a * Hl, last.c, last.d[0] - last.a * Dl};
}

/// The interior row at which a lane's elimination (lane_reduce, lane_resolve) meets by default:
/// rows p+1..p+M−1 are eliminated downward and rows p+K−2..p+M+1 upward, two independent chains,
/// and row p + M from both. Downward alone (M = K − 2), a lane's K − 2 reciprocals depend on each
/// other in one chain, which bounds the complex kernels by FP64 latency (Nsight Compute,
/// docs/tridiag-performance.md); twisted at the middle, the longest chain has K/2 of them. The
/// second chain's state costs registers: the columns passes held under a register cap and the
/// shifted form's real ones take M = K − 2 (columns.cuh, columns_lane_middle).
template <int K>
constexpr int kLaneMiddle = (K - 1) / 2;

/// Steps of a lane's elimination: the longer of its two chains (lane_reduce, lane_resolve).
template <int K, int M>
constexpr int kLaneChainRows = (M - 1 > K - 2 - M) ? M - 1 : K - 2 - M;

/// Eliminates the interior rows of the lane's rows [p, p + K) and returns its two reduced rows P,
/// Q (lane_reduced_rows): a LaneChain downward over rows p+1..p+M−1 and one upward over rows
/// p+K−2..p+M+1, meeting at row p + M (kLaneMiddle), which with both neighbours substituted gives
/// x_{p+M} in x_p and x_{p+K−1}, and with it the chains' first rows x_{p+1} and x_{p+K−2}. No
/// row's factors are kept, each chain's six scalars whatever K; lane_resolve solves the interior
/// again once x_p and x_{p+K−1} are known.
template <int K, int M = kLaneMiddle<K>, class T, class Rows, class Vec>
PSCR_HD void lane_reduce(const Rows& A, const Vec& v, index_t p, index_t n, Row4<T>& P,
                         Row4<T>& Q) {
  if constexpr (K == 2) {
    lane_eliminate<K, T>(A, v, p, n, P, Q, [](int, T, T, T) {});
  } else {
    static_assert(M >= 1 && M <= K - 2, "the lanes meet at an interior row");
    const Row4<T> first = lane_row<T>(A, v, p, n), last = lane_row<T>(A, v, p + K - 1, n);
    LaneChain<T, is_symmetric<Rows>::value && !std::is_floating_point_v<T>> down, up;
#pragma unroll
    for (int j = 0; j < kLaneChainRows<K, M>; ++j) {
      if (const int i = 1 + j; i < M) {
        const Row4<T> r = lane_row<T>(A, v, p + i, n);
        down.take(i == 1, r.a, r.b, r.c, r.d[0]);
      }
      if (const int i = K - 2 - j; i > M) {
        const Row4<T> r = lane_row<T>(A, v, p + i, n);
        up.take(i == K - 2, r.c, r.b, r.a, r.d[0]);
      }
    }
    // The chains' first rows couple to the lane's end rows as those couple to them (symmetric).
    down.symmetric_end(first.c);
    up.symmetric_end(last.a);
    // Row p + M: a x_{M−1} + b x_M + c x_{M+1} = d with x_{M−1} = e + g x_p − f x_M from the
    // downward chain (x_p at M = 1) and x_{M+1} = e + g x_{p+K−1} − f x_M from the upward one
    // (x_{p+K−1} at M = K − 2).
    const Row4<T> r = lane_row<T>(A, v, p + M, n);
    T pivot = r.b, dm = r.d[0], gm = -r.a, hm = -r.c;
    if constexpr (M > 1) {
      pivot = pivot - r.a * down.f;
      dm = dm - r.a * down.e;
      gm = gm * down.g;
    }
    if constexpr (M < K - 2) {
      pivot = pivot - r.c * up.f;
      dm = dm - r.c * up.e;
      hm = hm * up.g;
    }
    const T inv = recip(pivot);
    const T D = dm * inv, G = gm * inv, H = hm * inv;  // x_{p+M} = D + G x_p + H x_{p+K−1}
    down.meet(M == 1, D, G, H);
    up.meet(M == K - 2, D, H, G);
    lane_reduced_rows(first, last, down.alpha, down.beta, down.gamma, up.alpha, up.gamma, up.beta,
                      P, Q);
  }
}

/// What a lane keeps between the reduction and the substitution (the warp method): interior row i
/// is x_i = D[i] + G[i] x_first + H[i] x_last (i = 1..K−2; compile-time indices, registers).
template <int K, class T>
struct LaneState {
  T D[K], G[K], H[K];
};

/// lane_reduce that keeps every interior row's expression in x_p and x_{p+K−1} (substituted
/// upward over the elimination's factors) for lane_substitute, which then needs neither the rows
/// nor d again. 3(K − 2) values in registers against the other lane_reduce's six scalars; the
/// segment kernel uses it without keeping them (measured faster there, segment.cuh).
template <int K, class T, class Rows, class Vec>
PSCR_HD void lane_reduce(const Rows& A, const Vec& v, index_t p, index_t n, LaneState<K, T>& s,
                         Row4<T>& P, Row4<T>& Q) {
  if constexpr (K == 2) {
    lane_eliminate<K, T>(A, v, p, n, P, Q, [](int, T, T, T) {});
  } else {
    Row4<T> first, last;
    lane_eliminate<K, T>(A, v, p, n, first, last, [&](int i, T dp, T gp, T cp) {
      s.D[i] = dp;
      s.G[i] = gp;
      s.H[i] = cp;  // c′ for now
    });
    s.H[K - 2] = -s.H[K - 2];
#pragma unroll
    for (int i = K - 3; i >= 1; --i) {
      const T c = s.H[i];
      s.D[i] -= c * s.D[i + 1];
      s.G[i] -= c * s.G[i + 1];
      s.H[i] = -c * s.H[i + 1];
    }
    lane_reduced_rows(first, last, s.D[1], s.G[1], s.H[1], s.D[K - 2], s.G[K - 2], s.H[K - 2], P,
                      Q);
  }
}

/// Writes x of the lane's rows (those below n) into `v` from the interface values (LaneState).
template <int K, class T, class Vec>
PSCR_HD void lane_substitute(const LaneState<K, T>& s, const Vec& v, index_t p, index_t n,
                             T x_first, T x_last) {
  if (p < n) v.set(p, x_first);
#pragma unroll
  for (int i = 1; i < K - 1; ++i)
    if (p + i < n) v.set(p + i, s.D[i] + s.G[i] * x_first + s.H[i] * x_last);
  if (p + K - 1 < n) v.set(p + K - 1, x_last);
}

/// Writes x of the lane's rows (those below n) into `v` from the interface values by solving the
/// interior again (Thomas on rows p+1..p+K−2 with x_p = x_first, x_{p+K−1} = x_last moved to the
/// right-hand side, meeting as lane_reduce: downward to row p + M − 1, upward to row p + M + 1,
/// row p + M from both, then each half substituted back from the middle; rows at or past n are
/// identity rows): the alternative to lane_substitute that keeps no LaneState across the
/// interface solve (K − 2 factors live only here).
template <int K, int M = kLaneMiddle<K>, class T, class Rows, class Vec>
PSCR_HD void lane_resolve(const Rows& A, const Vec& v, index_t p, index_t n, T x_first, T x_last) {
  constexpr bool padded = padded_lane<Rows, Vec>;  // rows past n are identity rows: x = 0 there
  if (padded || p < n) v.set(p, x_first);
  if constexpr (K > 2) {
    static_assert(M >= 1 && M <= K - 2, "the lanes meet at an interior row");
    // The chains of lane_reduce with x_p and x_{p+K−1} known (moved into the first rows' d, so
    // that each chain's g, α, β, γ go unused): row i becomes x_i = e − f x_next; e is kept in v
    // and f in f[i] (c′ above the middle row, a″ below it) for the substitution back.
    T f[K];
    LaneChain<T> down, up;
#pragma unroll
    for (int j = 0; j < kLaneChainRows<K, M>; ++j) {
      if (const int i = 1 + j; i < M) {
        const Row4<T> r = lane_row<T>(A, v, p + i, n);
        down.take(i == 1, r.a, r.b, r.c, i == 1 ? r.d[0] - r.a * x_first : r.d[0]);
        f[i] = down.f;
        if (padded || p + i < n) v.set(p + i, down.e);
      }
      if (const int i = K - 2 - j; i > M) {
        const Row4<T> r = lane_row<T>(A, v, p + i, n);
        up.take(i == K - 2, r.c, r.b, r.a, i == K - 2 ? r.d[0] - r.c * x_last : r.d[0]);
        f[i] = up.f;
        if (padded || p + i < n) v.set(p + i, up.e);
      }
    }
    const Row4<T> r = lane_row<T>(A, v, p + M, n);
    T pivot = r.b, dm = r.d[0] - r.a * (M == 1 ? x_first : down.e);
    dm = dm - r.c * (M == K - 2 ? x_last : up.e);
    if constexpr (M > 1) pivot = pivot - r.a * down.f;
    if constexpr (M < K - 2) pivot = pivot - r.c * up.f;
    const T xm = dm * recip(pivot);
    if (padded || p + M < n) v.set(p + M, xm);
    T xd = xm, xu = xm;
#pragma unroll
    for (int j = 1; j <= kLaneChainRows<K, M>; ++j) {
      if (const int i = M - j; i >= 1 && (padded || p + i < n)) {
        xd = v.get(p + i) - f[i] * xd;
        v.set(p + i, xd);
      }
      if (const int i = M + j; i <= K - 2 && (padded || p + i < n)) {
        xu = v.get(p + i) - f[i] * xu;
        v.set(p + i, xu);
      }
    }
  }
  if (padded || p + K - 1 < n) v.set(p + K - 1, x_last);
}

/// Row r divided by its diagonal (b = 1): the form the PCR steps keep their rows in, so that a
/// step shuffles a, c, d only and needs one reciprocal (of its new diagonal), not one per
/// neighbour.
template <class T, int R>
PSCR_HD Row<T, R> unit_row(Row<T, R> r) {
  const T inv = recip(r.b);
  r.a = r.a * inv;
  r.c = r.c * inv;
#pragma unroll
  for (int j = 0; j < R; ++j) r.d[j] = r.d[j] * inv;
  r.b = T(1);
  return r;
}

/// What the warp's reduced solve reports of its eliminations without pivoting: each step's fill
/// (the products its multipliers add to the row's entries) against the row's own magnitude.
/// NoGrowth ignores them (real systems; complex ones where the kernel runs unguarded: the sweep's
/// declared dominant, the segment and columns kernels' of at most 4 rows per lane).
struct NoGrowth {
  template <class T>
  PSCR_HD void note(const T&, const T&, const T&, const T&, const T&) {}
};

/// The guard of complex systems (guarded_reduced_solve: the sweep's not declared dominant, the
/// segment and columns kernels' of more than 4 rows per lane; docs/tridiag-performance.md, sections
/// of 2026-11-27 on where complex systems lose accuracy and on the guarded sweep): flagged once a
/// step's fill, |f₁| + |f₂|, exceeds kLimit times its row's |a| + |b| + |c| (magnitudes abs1:
/// |re| + |im|, no square roots), or is not a number. On the CPU emulation of the sweep method on
/// 2D Helmholtz systems (30 problems of 255 to 2047 rows, 4000 shifts each) it flagged 1.3–1.6%
/// of the shifts, every one where cyclic reduction and PCR lost accuracy among them, and with the
/// flagged ones' reduced rows solved again in order (Thomas down then, from both ends now:
/// warp_twisted_solve) 1 of the 120000 shifts stayed above 1e-10 (1.06e-10, n = 767). The limit
/// cannot be looser: in the cluster kernel's emulation (K = 8, n = 4095, 2000 shifts) a limit of
/// 30 let 2 shifts through above 1e-10 (up to 1.1e-9), where kLimit lets none, although on PSCR's
/// shifts it would flag a third fewer systems (docs/tridiag-performance.md, section on the guard's
/// fallback solved from both ends).
struct ReducedGrowth {
  static constexpr double kLimit = 10;
  double limit = kLimit;  ///< kLimit in the kernels; the CPU emulation's tests try others
  bool flagged = false;
  template <class T>
  PSCR_HD void note(const T& f1, const T& f2, const T& a, const T& b, const T& c) {
    flagged |= !(abs1(f1) + abs1(f2) <= limit * (abs1(a) + abs1(b) + abs1(c)));
  }
};

/// Cyclic reduction of the last rows: the lane's first row P with the previous lane's last row
/// `qp` (absent on lane 0) and its own last row Q eliminated; the result couples the previous
/// and next lanes' first unknowns, as a unit row (unit_row). `growth` sees the fills k₂ Q.a and
/// k₁ qp.c against P.
template <class T, int R, class Growth = NoGrowth>
PSCR_HD Row<T, R> cr_even(const Row<T, R>& P, const Row<T, R>& qp, bool has_prev,
                          const Row<T, R>& Q, Growth&& growth = Growth{}) {
  const T k2 = P.c * recip(Q.b);
  const T f2 = k2 * Q.a;
  Row<T, R> r{T(0), P.b - f2, -k2 * Q.c};
#pragma unroll
  for (int j = 0; j < R; ++j) r.d[j] = P.d[j] - k2 * Q.d[j];
  T f1(0);
  if (has_prev) {
    const T k1 = P.a * recip(qp.b);
    f1 = k1 * qp.c;
    r.a = -k1 * qp.a;
    r.b -= f1;
#pragma unroll
    for (int j = 0; j < R; ++j) r.d[j] -= k1 * qp.d[j];
  }
  growth.note(f1, f2, P.a, P.b, P.c);
  return unit_row(r);
}

/// One PCR step (kim2011 eqs. 5–6) of the unit row r with the unit rows `lo` (stride below, if
/// has_lo) and `hi` (stride above, if has_hi); absent rows count as identity rows. With b = 1 in
/// all three the multipliers are r.a and r.c themselves (zero for an absent row: no branch, the
/// absent row's finite values are multiplied by zero); the result is a unit row again. `growth`
/// sees the fills lo.c r.a and hi.a r.c against r.
template <class T, int R, class Growth = NoGrowth>
PSCR_HD Row<T, R> pcr_combine(const Row<T, R>& r, const Row<T, R>& lo, bool has_lo,
                              const Row<T, R>& hi, bool has_hi, Growth&& growth = Growth{}) {
  const T k1 = has_lo ? r.a : T(0);
  const T k2 = has_hi ? r.c : T(0);
  const T f1 = lo.c * k1, f2 = hi.a * k2;
  Row<T, R> o{lo.a * -k1, T(1) - f1 - f2, hi.c * -k2};
#pragma unroll
  for (int j = 0; j < R; ++j) o.d[j] = r.d[j] - lo.d[j] * k1 - hi.d[j] * k2;
  growth.note(f1, f2, r.a, T(1), r.c);
  return unit_row(o);
}

/// The last row's unknown for right-hand side j once the first rows' unknowns (own x_p, next
/// lane's) are known.
template <class T, int R>
PSCR_HD T solve_last(const Row<T, R>& Q, int j, T x_first, T x_next) {
  return (Q.d[j] - Q.a * x_first - Q.c * x_next) * recip(Q.b);
}

// Shuffles within groups of `width` lanes (a power of two ≤ 32).
__device__ __forceinline__ double shfl_up(double v, int s, int width) {
  return __shfl_up_sync(0xffffffffu, v, s, width);
}
__device__ __forceinline__ double shfl_down(double v, int s, int width) {
  return __shfl_down_sync(0xffffffffu, v, s, width);
}
__device__ __forceinline__ Complex shfl_up(const Complex& v, int s, int width) {
  return {shfl_up(v.re, s, width), shfl_up(v.im, s, width)};
}
__device__ __forceinline__ Complex shfl_down(const Complex& v, int s, int width) {
  return {shfl_down(v.re, s, width), shfl_down(v.im, s, width)};
}
/// Waits at named barrier `id` until `threads` threads (a multiple of the warp size, the calling
/// warp included) wait there; orders shared-memory accesses as __syncthreads.
__device__ __forceinline__ void barrier_sync(int id, int threads) {
  asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(threads) : "memory");
}

/// Lane `src` of the caller's group of `width` lanes.
__device__ __forceinline__ double shfl_from(double v, int src, int width = kWarpLanes) {
  return __shfl_sync(0xffffffffu, v, src, width);
}
__device__ __forceinline__ Complex shfl_from(const Complex& v, int src, int width = kWarpLanes) {
  return {shfl_from(v.re, src, width), shfl_from(v.im, src, width)};
}
/// Row r moved between lanes by `move` (the shuffle of one value); of a unit row (b = 1, Unit)
/// a, c, d only.
template <bool Unit, class T, int R, class Move>
__device__ __forceinline__ Row<T, R> shfl_row(const Row<T, R>& r, Move move) {
  Row<T, R> o;
  o.a = move(r.a);
  if constexpr (Unit)
    o.b = T(1);
  else
    o.b = move(r.b);
  o.c = move(r.c);
#pragma unroll
  for (int j = 0; j < R; ++j) o.d[j] = move(r.d[j]);
  return o;
}
template <bool Unit = false, class T, int R>
__device__ __forceinline__ Row<T, R> shfl_up(const Row<T, R>& r, int s, int width) {
  return shfl_row<Unit>(r, [&](const T& v) { return shfl_up(v, s, width); });
}
template <bool Unit = false, class T, int R>
__device__ __forceinline__ Row<T, R> shfl_down(const Row<T, R>& r, int s, int width) {
  return shfl_row<Unit>(r, [&](const T& v) { return shfl_down(v, s, width); });
}

/// Solves the reduced system of each group of `width` lanes (a power of two ≤ 32; lane l of the
/// group: rows 2l = P, 2l + 1 = Q of 2·width) for R right-hand sides with shuffles: one
/// cyclic-reduction step, log2(width) PCR steps on unit rows, each reported to `growth` (the
/// lane's own steps). Every lane of the warp calls it.
template <class T, int R, class Growth = NoGrowth>
__device__ void warp_reduced_solve(const Row<T, R>& P, const Row<T, R>& Q, T (&x_first)[R],
                                   T (&x_last)[R], int width = kWarpLanes,
                                   Growth&& growth = Growth{}) {
  const int lane = threadIdx.x & (width - 1);
  Row<T, R> r = cr_even(P, shfl_up(Q, 1, width), lane > 0, Q, growth);
#pragma unroll
  for (int s = 1; s < kWarpLanes; s <<= 1) {
    if (s >= width) break;                            // uniform over the warp
    const Row<T, R> lo = shfl_up<true>(r, s, width);  // unit rows
    const Row<T, R> hi = shfl_down<true>(r, s, width);
    r = pcr_combine(r, lo, lane >= s, hi, lane + s < width, growth);
  }
#pragma unroll
  for (int j = 0; j < R; ++j) {
    x_first[j] = r.d[j];  // a unit row with no couplings left
    const T next = shfl_down(x_first[j], 1, width);
    x_last[j] = solve_last(Q, j, x_first[j], lane + 1 < width ? next : T(0));
  }
}

/// A lane's reduced rows P, Q after Thomas's elimination in order, for R right-hand sides:
/// x_first + c1 x_last = d1, x_last + c2 x_next = d2 (x_next: the next lane's first unknown).
template <class T, int R = 1>
struct EliminatedPair {
  T c1, c2;
  T d1[R], d2[R];
};

/// Thomas's step on a lane's rows P, Q after the previous lane's eliminated last row (`prev`;
/// none before lane 0: `first`).
template <class T, int R>
PSCR_HD EliminatedPair<T, R> eliminate_pair(const Row<T, R>& P, const Row<T, R>& Q, bool first,
                                            const EliminatedPair<T, R>& prev) {
  EliminatedPair<T, R> e;
  const T a = first ? T(0) : P.a;
  const T inv1 = recip(P.b - a * prev.c2);
  e.c1 = P.c * inv1;
  const T inv2 = recip(Q.b - Q.a * e.c1);
  e.c2 = Q.c * inv2;
#pragma unroll
  for (int j = 0; j < R; ++j) {
    e.d1[j] = (P.d[j] - a * prev.d2[j]) * inv1;
    e.d2[j] = (Q.d[j] - Q.a * e.d1[j]) * inv2;
  }
  return e;
}

/// A lane's rows P, Q as the elimination from the group's last lane upward takes them: Q first,
/// each row's couplings swapped (a ↔ c), so that eliminate_pair serves both directions.
template <class T, int R>
PSCR_HD Row<T, R> mirrored(const Row<T, R>& r) {
  Row<T, R> m{r.c, r.b, r.a};
#pragma unroll
  for (int j = 0; j < R; ++j) m.d[j] = r.d[j];
  return m;
}

/// Where warp_twisted_solve's two eliminations meet, lanes h − 1 and h: each has its second row
/// (in the order of its elimination) eliminated toward the other, x₂ + c₂ y = d₂ (`mine`) and
/// y + c₂′ x₂ = d₂′ (`across`), y the other lane's second row's unknown; returns y, right-hand
/// side j: (d₂′ − c₂′ d₂) / (1 − c₂′ c₂), the twisted factorization's pivot.
template <class T, int R>
PSCR_HD T twisted_across(const EliminatedPair<T, R>& mine, const EliminatedPair<T, R>& across,
                         int j) {
  return (across.d2[j] - across.c2 * mine.d2[j]) * recip(T(1) - across.c2 * mine.c2);
}

/// A lane's unknowns (x₁, x₂: its rows in the order of its elimination) from its eliminated rows
/// and the unknown beyond its second row, right-hand side j.
template <class T, int R>
PSCR_HD void substitute_pair(const EliminatedPair<T, R>& e, int j, const T& beyond, T& x1, T& x2) {
  x2 = e.d2[j] - e.c2 * beyond;
  x1 = e.d1[j] - e.c1 * x2;
}

/// Solves the reduced system of each group of `width` lanes (as warp_reduced_solve: lane l of the
/// group, rows 2l = P, 2l + 1 = Q) in order from both ends (a twisted factorization): at step l
/// lane l eliminates its rows after lane l − 1's (Thomas down, eliminate_pair) while lane
/// width − 1 − l eliminates its rows after lane width − l's (Thomas up, the rows mirrored), the
/// eliminated rows passed on by shuffles; the two meet between lanes width/2 − 1 and width/2
/// (twisted_across), and each half substitutes back outward. width/2 dependent steps each way
/// against warp_reduced_solve's one CR and log2(width) PCR steps, and against width for Thomas in
/// one direction, but without the reordering that loses accuracy on indefinite complex systems:
/// the guarded solve's where ReducedGrowth flags the tree (guarded_reduced_solve). Every lane of
/// the warp calls it; the group's first P and last Q couple nothing outside it (P's a is not read,
/// nor Q's c where width ≥ 2).
template <class T, int R>
__device__ void warp_twisted_solve(const Row<T, R>& P, const Row<T, R>& Q, T (&x_first)[R],
                                   T (&x_last)[R], int width = kWarpLanes) {
  const int lane = static_cast<int>(threadIdx.x) & (width - 1);
  const int h = width / 2;
  const bool down = lane < h || width == 1;  // lanes [0, h) eliminate downward, the rest upward
  const int steps = width == 1 ? 1 : h;
  const Row<T, R> first = down ? P : mirrored(Q), second = down ? Q : mirrored(P);
  EliminatedPair<T, R> e{}, prev{};  // prev: the eliminated second row of the half's lane before
  for (int l = 0; l < steps; ++l) {
    const int active = down ? l : width - 1 - l;
    if (lane == active) e = eliminate_pair(first, second, l == 0, prev);
    prev.c2 = shfl_from(e.c2, active, width);
#pragma unroll
    for (int j = 0; j < R; ++j) prev.d2[j] = shfl_from(e.d2[j], active, width);
  }
  T beyond[R], x1[R], x2[R];  // beyond: the unknown past the lane's second row
  {
    EliminatedPair<T, R> across{};  // the other half's lane at the meeting
    const int other = down ? h : h - 1;
    across.c2 = shfl_from(e.c2, other, width);
#pragma unroll
    for (int j = 0; j < R; ++j) {
      across.d2[j] = shfl_from(e.d2[j], other, width);
      beyond[j] = width == 1 ? T(0) : twisted_across(e, across, j);
      x1[j] = x2[j] = T(0);
    }
  }
  for (int l = steps - 1; l >= 0; --l) {
    const int active = down ? l : width - 1 - l;
    const int done = down ? l + 1 : width - 2 - l;  // the lane beyond, solved the step before
#pragma unroll
    for (int j = 0; j < R; ++j) {
      if (l < steps - 1) beyond[j] = shfl_from(x1[j], done, width);
      if (lane == active) substitute_pair(e, j, beyond[j], x1[j], x2[j]);
    }
  }
#pragma unroll
  for (int j = 0; j < R; ++j) {
    x_first[j] = down ? x1[j] : x2[j];
    x_last[j] = down ? x2[j] : x1[j];
  }
}

/// Whether the segment and columns kernels with K rows per lane guard their solve of a segment's
/// reduced rows (guarded_reduced_solve): complex systems beyond 4 rows per lane (the most the
/// selection table gave complex systems unguarded, selection.hpp: kMaxComplexLaneRows). The CPU
/// emulation of one segment on indefinite Helmholtz shifts: the tree lost accuracy at K = 8 and 16,
/// the guarded solve nowhere (docs/tridiag-performance.md). At K ≤ 4 the guard measured up to 13%
/// slower (complex contiguous 64 × 2^18, segment K = 4, H100), where the tree lost no shift of a
/// single segment (n = 63, 127).
template <int K, class T>
inline constexpr bool kGuardedLanes = !std::is_floating_point_v<T> && K > 4;

/// The reduced rows' solve of the kernels, for R right-hand sides: the warp's tree over groups of
/// `width` lanes (warp_reduced_solve), Guarded or not: guarded, its growth is watched
/// (ReducedGrowth) and, where any lane of the warp flags a step, every group solves its rows again
/// in order (warp_twisted_solve). Every lane of the warp calls it.
template <bool Guarded, class T, int R>
__device__ void guarded_reduced_solve(const Row<T, R>& P, const Row<T, R>& Q, T (&x_first)[R],
                                      T (&x_last)[R], int width = kWarpLanes) {
  if constexpr (Guarded) {
    ReducedGrowth growth;
    warp_reduced_solve(P, Q, x_first, x_last, width, growth);
    if (__any_sync(0xffffffffu, growth.flagged)) warp_twisted_solve(P, Q, x_first, x_last, width);
  } else {
    warp_reduced_solve(P, Q, x_first, x_last, width);
  }
}
/// The same for the kernels that take one right-hand side.
template <bool Guarded, class T>
__device__ void guarded_reduced_solve(const Row4<T>& P, const Row4<T>& Q, T& first, T& last,
                                      int width = kWarpLanes) {
  T f[1], l[1];
  guarded_reduced_solve<Guarded>(P, Q, f, l, width);
  first = f[0];
  last = l[0];
}

/// A block of W warps takes groups of G systems (G ≥ W, so that each load phase has enough bytes
/// in flight): warp w solves systems w, w + W, ... of the group; blocks loop over the groups
/// (grid sized to the resident blocks). Shared memory: the d/x tile of the group
/// (PaddedIndex<K>: lane l's rows are K + 1 elements apart, no bank conflicts), then the Form's
/// coefficient tiles per system (general form) or tables per block (staged shifted form, loaded
/// once).
template <int K, class T, class Form>
__global__ void __launch_bounds__(kMaxWarpThreads)
    warp_partition_kernel(Form form, index_t n, index_t batch, int G, const T* d, Strides ds,
                          bool d_row_fastest, T* x, Strides xs, bool x_row_fastest) {
  extern __shared__ __align__(16) unsigned char smem_raw[];
  T* smem = reinterpret_cast<T*>(smem_raw);
  using Index = PaddedIndex<K>;
  const int ni = static_cast<int>(n);
  const Index idx{Index::system_stride(ni)};
  const int warps = static_cast<int>(blockDim.x) / kWarpLanes;
  const int tile = G * idx.stride;
  T* dt = smem;
  T* coef = dt + tile;
  if constexpr (Form::tiles == 0) form.load(ds, 0, G, 0, ni, d_row_fastest, coef, idx, tile);

  const int warp = static_cast<int>(threadIdx.x) / kWarpLanes;
  const index_t p = static_cast<index_t>(threadIdx.x & (kWarpLanes - 1)) * K;
  const index_t groups = (batch + G - 1) / G;
  for (index_t group = blockIdx.x; group < groups; group += gridDim.x) {
    const index_t k0 = group * G;
    const int gv = static_cast<int>(min(static_cast<index_t>(G), batch - k0));
    load_tile(d, ds, k0, gv, 0, ni, d_row_fastest, dt, idx);
    if constexpr (Form::tiles > 0) form.load(ds, k0, gv, 0, ni, d_row_fastest, coef, idx, tile);
    __syncthreads();
    for (int g = warp; g < gv; g += warps) {  // warp-uniform
      const auto rows = form.rows(k0 + g, g, 0, coef, idx, tile);
      const TileVector<T, Index> v{dt, idx, g, 0};
      LaneState<K, T> st;
      Row4<T> P, Q;
      lane_reduce<K>(rows, v, p, n, st, P, Q);
      T x_first[1], x_last[1];
      warp_reduced_solve(P, Q, x_first, x_last);
      lane_substitute<K>(st, v, p, n, x_first[0], x_last[0]);
    }
    __syncthreads();
    store_tile(x, xs, k0, gv, 0, ni, x_row_fastest, dt, idx);
    __syncthreads();
  }
}

}  // namespace pscr::tridiag::cuda::detail
