#pragma once
/// @file The sweep method (`Method::sweep`, shifted form): one warp per system of n ≤ 32·K rows,
/// lane l owning rows [lK, lK + K), as in the warp method (warp.cuh), but what a lane keeps per
/// row may live in the warp's shared memory, not in registers, so that K reaches 64 at 64–128
/// registers per thread; where K allows, the lanes keep c′ and v in registers instead (real K =
/// 8–24, complex 4–16, 91–242 registers: SweepLaneKept), or, real K = 26–32 when asked for, c′
/// alone (SweepRegisterKept). Per system:
///  1. the warp copies d into its shared array with coalesced asynchronous copies (cp.async) and
///     waits for them, or has them there already (SweepStaging: copied into its second array, or
///     loaded into its lanes' registers and written from there, while it solved its previous
///     system);
///  2. each lane sweeps its interior rows p+1..p+K−2 downward (Thomas with the x_p column carried
///     along): row i becomes x_i + c′_i x_{i+1} + v_i x_p = d′_i, with d′ over d and c′, v kept
///     in shared memory or in registers; the lane's last row then couples x_p, x_{p+K−1} and the
///     next lane's first unknown (Q), and an upward pass over the kept rows writes x_{p+1} = D
///     − G x_p − H x_{p+K−1}, which turns the first row into P (RPTS's Schur complement,
///     klein2021);
///  3. the 64-row reduced system of P and Q is solved with shuffles (warp_reduced_solve); for
///     complex systems not declared dominant (Guarded) the warp's growth guard watches that
///     solve, and where it flags any lane's step the warp solves the reduced rows again in order
///     (guarded_reduced_solve), which cyclic reduction and PCR's reordering may not afford on
///     indefinite shifts (about 1.5% of Helmholtz shifts flagged: ReducedGrowth);
///  4. each lane substitutes upward, x_i = d′_i − c′_i x_{i+1} − v_i x_p, over d′;
///  5. the warp stores x with coalesced stores.
/// d is read once and x written once; the lanes' arithmetic per row is one reciprocal and a few
/// FMA, against the block method's spike solve of three right-hand sides per segment. The
/// shifted form's A and M stay in shared memory for the whole launch (one copy per block), as
/// identity rows past n so that no lane step checks bounds. Lane l's rows sit at slots
/// l(K + 1) + i of every array (sweep_slot), K even, so that K + 1 is odd and the 16 lanes of a
/// phase of 8-byte accesses (8 of 16-byte ones) meet distinct banks.
///
/// The lane steps (sweep_reduce, sweep_substitute) and the table layout (shifted_matrix_row,
/// sweep_slot) are host and device code: tests/tridiag/test_cuda_emulation.cu runs them on the CPU.
/// Include only from .cu files.

#include <cfloat>
#include <cmath>
#include <cstring>
#include <type_traits>

#include "tridiag/cuda/solve.hpp"
#include "tridiag/cuda/warp.cuh"

namespace pscr::tridiag::cuda::detail {

/// Most warps (systems in flight) per block of the sweep kernel.
constexpr int kSweepMaxWarps = 16;

/// Rows per lane up to which the sweep kernel may keep c′ alone in registers (SweepRegisterKept),
/// real systems only: 32 doubles (complex ones keep c′ and v there up to kSweepLaneRows).
constexpr int kSweepRegisterRows = 32;

/// Rows per lane up to which the sweep kernel may keep c′ and v in registers (SweepLaneKept,
/// SweepStaging::buffers, one instance per even K): real 24 (48 doubles), complex 16 (64); and
/// from which: real 8, complex 4. sweep_lane_rows_taken says which K between them have an
/// instance (launch_sweep, solve.cu, where the measurements are).
template <class T>
constexpr int kSweepLaneRows = std::is_floating_point_v<T> ? 24 : 16;
template <class T>
constexpr int kSweepLaneMinRows = std::is_floating_point_v<T> ? 8 : 4;

/// Whether sweep_kernel has a SweepStaging::buffers instance for K rows per lane: every even K
/// from kSweepLaneMinRows to kSweepLaneRows.
template <class T>
constexpr bool sweep_lane_rows_taken(int K) {
  return K % 2 == 0 && K >= kSweepLaneMinRows<T> && K <= kSweepLaneRows<T>;
}

/// How sweep_kernel stages each system's d in the warp's shared array (step 1):
///  - wait: the warp copies it (cp.async) and waits for it;
///  - registers: each lane loads its rows of the warp's next system into registers before it
///    solves the current one and writes them into the array when it gets there (real systems of
///    up to 32·kSweepPrefetchRows rows, c′ and v in shared memory);
///  - buffers: the warp copies its next system (cp.async) into the second of two arrays while it
///    solves the current one, c′ and v in registers (SweepLaneKept, K = RegisterRows), so that a
///    lane's row costs 9 shared accesses in steps 2 and 4 (d's load, the four tables', d′'s store
///    and two loads, x's store) instead of 15.
enum class SweepStaging { wait, registers, buffers };

/// Most warps per block of sweep_kernel<T, RegisterRows, Staging>, its launch bounds, so that
/// ptxas may give each thread 65536 / (32 · warps) registers, warps rounded up to a multiple of 4
/// (each of the SM's four register files holds a quarter of them: 11 warps get 12's 168):
///  - c′ in shared memory (RegisterRows = 0), real c′ alone in registers, real buffers up to
///    K = 16: kSweepMaxWarps (128 registers; real buffers take 91 at K = 8 to 128 at K = 16, no
///    spill);
///  - real buffers from K = 18: 11 (148 registers at K = 18 to 168 at K = 24);
///  - complex buffers up to K = 10: 11 (120 registers at K = 4 to 168 at K = 10, guarded 131 to
///    168 with 32 bytes of spill at K = 10);
///  - complex buffers from K = 12: 8 (198, 220 and 236 registers at K = 12, 14, 16; guarded 222,
///    236, 242).
template <class T, int RegisterRows, SweepStaging Staging>
constexpr int sweep_max_warps() {
  if constexpr (Staging != SweepStaging::buffers) return kSweepMaxWarps;
  if constexpr (std::is_floating_point_v<T>) return RegisterRows > 16 ? 11 : kSweepMaxWarps;
  return RegisterRows > 10 ? 8 : 11;
}

/// Rows per lane for systems of n rows: the smallest even K ≥ 4 with 32·K ≥ n, or `requested`
/// (made even) if larger.
PSCR_HD int sweep_rows(index_t n, int requested) {
  int k = 4;
  while (static_cast<index_t>(kWarpLanes) * k < n) k += 2;
  const int r = requested + (requested & 1);
  return k > r ? k : r;
}

/// Slot of row r (0 ≤ r ≤ 32·K) in the warp's arrays and the tables: lane r / K's rows K + 1
/// apart. `inv_k` = 1 / K in float: r / K as the truncated product, exact for r ≤ 32·64 (the
/// product is within 2^-22 relative of r / K, whose distance to the next integer is at least
/// 1 / (2K)): an integer division per row would cost more than the copy it addresses.
PSCR_HD int sweep_slot(int r, float inv_k) {
  return r + static_cast<int>((static_cast<float>(r) + 0.5f) * inv_k);
}

/// Elements of one array (32 lanes of K + 1 slots, the slot past the last lane: the tables' row
/// 32·K, whose coupling the last lane reads), rounded up to keep 16-byte alignment.
PSCR_HD int sweep_array(int K) {
  return kWarpLanes * (K + 1) + 2;
}

/// Shared arrays per block: 4 tables (A and M: diagonal, coupling to the row before); the warps'
/// arrays: sweep_warp_arrays.
constexpr int kSweepTables = 4;

/// Rows of A + s M read from the tables by slot: diag(t) and off(t), the coupling of the row at
/// slot t to the row before it. The next lane's first row is NextFirst slots on from a lane's last:
/// 2 in the sweep's arrays (sweep_slot: K + 1 slots per lane, the last one unused), 1 in the
/// columns method's chunked table (ColumnTable: the slot after a chunk's rows holds the next
/// chunk's first row).
template <class T, int NextFirst = 2>
struct SweepRows {
  const T* ad;
  const T* md;
  const T* ao;
  const T* mo;
  T s;
  PSCR_HD T diag(int t) const { return ad[t] + s * md[t]; }
  PSCR_HD T off(int t) const { return ao[t] + s * mo[t]; }
};

/// What a lane keeps of its interior rows i = 1..K−2 for the substitution, c′_i and v_i: v_i in
/// the warp's shared array at slot base + i, c′_i likewise (SweepSharedKept, any K) or in
/// registers (SweepRegisterKept) for K up to a compile-time bound.
template <class T>
struct SweepSharedV {
  T* vv;
  int base;
  PSCR_HD T& v(int i) { return vv[base + i]; }
};

template <class T>
struct SweepSharedKept : SweepSharedV<T> {
  static constexpr int kRows = 0;  // no bound: the lane steps loop to K
  T* cp;
  PSCR_HD T& c(int i) { return cp[this->base + i]; }
};

/// c′ in registers for K ≤ Rows: the lane steps' loops run to Rows, fully unrolled, so that every
/// index is a constant, and skip the rows from K on. A warp then needs two shared arrays instead
/// of three: at real K = 32 (n ≤ 1024) 11 warps per SM instead of 7 (sweep_block_warps), at 128
/// registers (ptxas, CUDA 13, Rows = 32: no spills). With v in registers as well (one
/// shared array) ptxas spilled 292 bytes at 128 registers and 96 at 168: the unrolled loops'
/// shared loads are issued early, each holding a register.
template <class T, int Rows>
struct SweepRegisterKept : SweepSharedV<T> {
  static constexpr int kRows = Rows;
  T cs[Rows];  // left uninitialized: sweep_reduce writes every c′ the substitution reads
  PSCR_HD T& c(int i) { return cs[i]; }
};

/// c′ and v of a lane's interior rows in registers (K ≤ Rows): the cluster kernel's, and the
/// sweep kernel's where it stages d in buffers (SweepStaging::buffers): a warp's shared arrays
/// then hold only d, x over it.
template <class T, int Rows>
struct SweepLaneKept {
  static constexpr int kRows = Rows;
  T cs[Rows];  // left uninitialized: sweep_reduce writes every c′ and v the substitution reads
  T vs[Rows];
  PSCR_HD T& c(int i) { return cs[i]; }
  PSCR_HD T& v(int i) { return vs[i]; }
};

/// Shared arrays per warp: d′ and x over d, v, and c′ unless it is kept in registers; or, c′ and v
/// in registers (SweepStaging::buffers), two of d′ and x over d.
PSCR_HD constexpr int sweep_warp_arrays(int register_rows) {
  return register_rows > 0 ? 2 : 3;
}

/// Runs step(i) for i = 1, ..., K − 1 − skip (`up`: the other way): a loop to K where Kept keeps
/// its rows in shared memory, else fully unrolled over its bound, the indices from K − 1 − skip
/// on skipped, so that every i is a constant and the kept rows can live in registers.
template <class Kept, class Step>
PSCR_HD void sweep_lane_rows(int K, int skip, bool up, Step step) {
  constexpr int R = Kept::kRows;
  if constexpr (R > 0) {
#pragma unroll
    for (int j = 1; j < R - 1; ++j) {
      const int i = up ? R - 1 - j : j;
      if (i < K - 1 - skip) step(i);
    }
  } else {
    if (up)
      for (int i = K - 2 - skip; i >= 1; --i) step(i);
    else
      for (int i = 1; i < K - 1 - skip; ++i) step(i);
  }
}

/// Step 2 of the file comment for the lane whose first row is at slot `base`: overwrites the
/// interior of `dx` (d) with d′ and fills c′ and v into `kept`, and returns the lane's reduced
/// rows P (couples the previous lane's last unknown, x_p, x_{p+K−1}) and Q (x_p, x_{p+K−1}, the
/// next lane's first unknown). K ≥ 3 (and K ≤ Kept::kRows where that is a bound).
template <class T, int NextFirst, class Kept>
PSCR_HD void sweep_reduce(const SweepRows<T, NextFirst>& rows, T* dx, Kept& kept, int base, int K,
                          Row4<T>& P, Row4<T>& Q) {
  T off = rows.off(base + 1);  // coupling of rows p and p + 1
  const T a_f = rows.off(base), b_f = rows.diag(base), c_f = off;
  T c = T(0), d = T(0), v = T(0);  // c′, d′, v of the row before
  sweep_lane_rows<Kept>(K, 0, false, [&](int i) {
    const int t = base + i;
    const T a = off;
    const T b = rows.diag(t);
    off = rows.off(t + 1);
    const T inv = recip(i == 1 ? b : b - a * c);
    d = (i == 1 ? dx[t] : dx[t] - a * d) * inv;
    v = (i == 1 ? a : -a * v) * inv;
    c = off * inv;
    dx[t] = d;
    kept.c(i) = c;
    kept.v(i) = v;
  });
  const int tl = base + K - 1;
  const T a_l = off, b_l = rows.diag(tl), c_l = rows.off(tl + NextFirst);
  Q = {-a_l * v, b_l - a_l * c, c_l, {dx[tl] - a_l * d}};
  // x_{p+1} = D − G x_p − H x_{p+K−1}: the kept rows from the bottom up (the last one is D, G, H).
  T D = d, G = v, H = c;
  sweep_lane_rows<Kept>(K, 1, true, [&](int i) {
    const int t = base + i;
    const T ci = kept.c(i);
    D = dx[t] - ci * D;
    G = kept.v(i) - ci * G;
    H = -ci * H;
  });
  P = {a_f, b_f - c_f * G, -c_f * H, {dx[base] - c_f * D}};
}

/// Step 4: x of the lane's rows over d′ from its interface values x_p = `first`,
/// x_{p+K−1} = `last`.
template <class T, class Kept>
PSCR_HD void sweep_substitute(T* dx, Kept& kept, int base, int K, T first, T last) {
  dx[base] = first;
  dx[base + K - 1] = last;
  T x = last;
  sweep_lane_rows<Kept>(K, 0, true, [&](int i) {
    const int t = base + i;
    x = dx[t] - kept.c(i) * x - kept.v(i) * first;
    dx[t] = x;
  });
}

/// Rows per lane of a system that sweep_kernel's SweepStaging::registers instances hold in
/// registers for the next system (lane l rows l, l + 32, ...): systems of up to 512 rows.
constexpr int kSweepPrefetchRows = 16;

/// Warps of W = blockDim.x / 32 take systems gw, gw + warps in the grid, ... (gw: the warp's
/// index in the grid), each on its own arrays; the block's tables are loaded once. RegisterRows
/// > 0: c′ in registers (K ≤ RegisterRows), and v too where Staging is buffers (K = RegisterRows,
/// `lane_rows` ignored; else K = lane_rows). Guarded: step 3 with the growth guard. Staging:
/// SweepStaging (launch_sweep, solve.cu, takes registers for real systems only: complex ones
/// spilled 264–644 bytes with it).
template <class T, int RegisterRows, bool Guarded, SweepStaging Staging>
__global__ void __launch_bounds__(kWarpLanes* sweep_max_warps<T, RegisterRows, Staging>())
    sweep_kernel(ShiftedMatrix<T> m, const T* shifts, index_t batch, int lane_rows, const T* d,
                 Strides ds, T* x, Strides xs, Gate gate) {
  if (gate.closed()) return;
  constexpr bool kPrefetch = Staging == SweepStaging::registers;
  constexpr bool kBuffers = Staging == SweepStaging::buffers;
  static_assert(!kBuffers || RegisterRows > 0, "buffers keep c′ and v in registers");
  extern __shared__ __align__(16) unsigned char smem_raw[];
  // Where kBuffers, K = RegisterRows at compile time: the lane loops run to K with no bound to
  // check, and a row's slot is r + r / K by a constant (sweep_slot's float product otherwise).
  const int K = kBuffers ? RegisterRows : lane_rows;
  const float inv_k = 1.0f / static_cast<float>(K);
  const auto slot = [&](int r) {
    if constexpr (kBuffers)
      return r + r / RegisterRows;
    else
      return sweep_slot(r, inv_k);
  };
  const int A = sweep_array(K);
  T* ad = reinterpret_cast<T*>(smem_raw);
  T* md = ad + A;
  T* ao = md + A;
  T* mo = ao + A;
  const int warp = static_cast<int>(threadIdx.x) / kWarpLanes;
  const int lane = static_cast<int>(threadIdx.x) % kWarpLanes;
  T* arrays = mo + A + warp * sweep_warp_arrays(RegisterRows) * A;
  const int n = static_cast<int>(m.n);
  const int rows = kWarpLanes * K;
  for (int r = static_cast<int>(threadIdx.x); r <= rows; r += static_cast<int>(blockDim.x)) {
    const int t = slot(r);
    const ShiftedMatrixRow<T> e = shifted_matrix_row(m, r);
    ad[t] = e.ad;
    md[t] = e.md;
    ao[t] = e.ao;
    mo[t] = e.mo;
  }
  // Rows past n: d = 0 (identity rows), and x = 0 there after every solve (in both buffers).
  for (int r = n + lane; r < rows; r += kWarpLanes) {
    const int t = slot(r);
    arrays[t] = T(0);
    if constexpr (kBuffers) arrays[A + t] = T(0);
  }
  __syncthreads();

  const index_t warps = static_cast<index_t>(blockDim.x) / kWarpLanes;
  const index_t step = gridDim.x * warps;
  const int base = lane * (K + 1);
  // The warp's next system's shift, and where kPrefetch the lane's rows lane + 32j of its d.
  constexpr int kNext = kPrefetch ? kSweepPrefetchRows : 1;
  T next[kNext];
  T next_shift{};
  auto prefetch = [&](index_t k) {
    next_shift = shifts[k];
    const T* row = d + ds.at(k, lane);
    const index_t apart = kWarpLanes * ds.row;  // rows l and l + 32
#pragma unroll
    for (int j = 0; j < kNext; ++j, row += apart)
      if (lane + kWarpLanes * j < n) next[j] = *row;
  };
  // Where kBuffers: system k's d copied into `buffer`, one group of copies.
  auto fetch = [&](index_t k, T* buffer) {
    const T* row = d + ds.at(k, lane);
    for (int r = lane; r < n; r += kWarpLanes, row += kWarpLanes * ds.row)
      copy_async(buffer + slot(r), row);
    copy_async_commit();
  };
  const index_t first = blockIdx.x * warps + warp;
  if (first < batch) {
    if constexpr (kPrefetch) prefetch(first);
    if constexpr (kBuffers) {
      next_shift = shifts[first];
      fetch(first, arrays);
    }
  }
  int parity = 0;  // where kBuffers: the array holding system k's d
  for (index_t k = first; k < batch; k += step, parity ^= kBuffers ? 1 : 0) {
    T* dx = arrays + parity * A;
    T shift;
    if constexpr (kPrefetch) {
#pragma unroll
      for (int j = 0; j < kNext; ++j)
        if (lane + kWarpLanes * j < n) dx[slot(lane + kWarpLanes * j)] = next[j];
      shift = next_shift;
      if (k + step < batch) prefetch(k + step);
    } else if constexpr (kBuffers) {
      shift = next_shift;
      if (k + step < batch) {
        next_shift = shifts[k + step];
        fetch(k + step, arrays + (parity ^ 1) * A);
        copy_async_wait_pending<1>();
      } else {
        copy_async_wait();
      }
    } else {
      // The shift loaded before the wait for d, so that its load and the copy overlap (loaded
      // after the wait, it was a second round trip per system).
      shift = shifts[k];
      for (int r = lane; r < n; r += kWarpLanes) copy_async(dx + slot(r), d + ds.at(k, r));
      copy_async_wait();
    }
    __syncwarp();
    const auto solve = [&](auto& kept) {
      Row4<T> P, Q;
      sweep_reduce(SweepRows<T>{ad, md, ao, mo, shift}, dx, kept, base, K, P, Q);
      T first, last;
      guarded_reduced_solve<Guarded>(P, Q, first, last);
      sweep_substitute(dx, kept, base, K, first, last);
    };
    if constexpr (kBuffers) {
      SweepLaneKept<T, RegisterRows> kept;
      solve(kept);
    } else if constexpr (RegisterRows > 0) {
      SweepRegisterKept<T, RegisterRows> kept;
      kept.vv = dx + A;
      kept.base = base;
      solve(kept);
    } else {
      SweepSharedKept<T> kept{{dx + 2 * A, base}, dx + A};
      solve(kept);
    }
    __syncwarp();
    for (int r = lane; r < n; r += kWarpLanes) x[xs.at(k, r)] = dx[slot(r)];
    __syncwarp();
  }
}

// The window method (Method::window, shifted form, contiguous rows): a system of n > 32·K rows is
// cut into windows of 32·K rows that overlap by 2·kWindowHaloRows, and each window is solved as
// a system of its own (its couplings to the rows outside taken as zero) by one warp, as the sweep
// kernel solves a system, writing only its inner rows, those at least kWindowHaloRows rows from a
// cut end. Where every row of a window satisfies |a| + |c| ≤ θ|b| (a, c its true couplings), the
// inner rows' x differs from the whole system's by at most 2θ^(L+1)‖x‖∞ (L = kWindowHaloRows):
// the influence of x beyond the cut on row i is (T_W⁻¹)_{i,last}·c, whose magnitude is
// Π_{j=i}^{last−1} |c′_j| · |c/w_last|, each factor at most |c_j| / (|b_j| − |a_j|) ≤ θ (by
// induction |c′| ≤ θ ≤ 1), L + 1 of them at least; likewise from the top. With θ = 2^(−54/(L+1))
// (window_theta) that is at most 2^-53 ‖x‖∞, rounding's own size: d read once (and the halos
// again, mostly from L2), x written once, for any n. The bound is checked on every row of the
// batch with its true couplings, unless the caller assures it (Options::window_bound), by the
// window kernels themselves as they solve (WindowWatch); the exact method follows, gated on their
// count (Gate), so that where a row fails it solves the batch (solve.cu, solve_device).
// window_bound_holds checks a batch before any solve: real shifts with window_range_bound_kernel,
// complex ones with window_bound_kernel.

/// Where the window method cuts systems of n rows with windows of `rows` = 32·K rows: each window
/// writes `inner` = rows − 2·kWindowHaloRows of them, window j rows [j·inner, (j + 1)·inner),
/// and reads rows [j·inner − halo, j·inner − halo + rows) within [0, n).
struct SweepWindows {
  index_t inner;  // rows each window writes
  index_t count;  // windows per system
};

/// Window j's rows in a system of n rows (SweepWindows' geometry): it reads global rows
/// [lo, lo + rows) and writes its rows [write_lo, write_hi) (window-local), global
/// [j·inner, (j + 1)·inner) within [0, n).
struct SweepWindow {
  index_t lo;
  int rows, write_lo, write_hi;
};
PSCR_HD SweepWindow sweep_window(index_t j, index_t inner, int window_rows, index_t n) {
  const index_t top = j * inner;  // the window's first row written
  const index_t lo = top > kWindowHaloRows ? top - kWindowHaloRows : 0;
  const index_t hi = lo + window_rows < n ? lo + window_rows : n;
  const index_t end = top + inner < n ? top + inner : n;
  return {lo, static_cast<int>(hi - lo), static_cast<int>(top - lo), static_cast<int>(end - lo)};
}

/// A window's rows of A and M (SweepWindow) as a system of its own: its first row couples nothing
/// before it, its last nothing after it.
template <class T>
PSCR_HD ShiftedMatrix<T> window_matrix(const ShiftedMatrix<T>& m, const SweepWindow& w) {
  return {m.a_diag + w.lo, m.a_off + w.lo, m.m_diag + w.lo, m.m_off + w.lo, w.rows};
}

/// Whether a real row (a, b, c) meets the window method's bound |a| + |c| ≤ θ|b| (false for NaN,
/// and for an infinite b, which an infinite shift gives and which would pass infinite couplings),
/// compared as they are: squares would underflow below 2^-537 and pass a row of zeros against a
/// zero diagonal.
PSCR_HD bool window_row_bounded(double a, double b, double c, double theta) {
  return fabs(a) + fabs(c) <= theta * fabs(b) && fabs(b) <= DBL_MAX;
}

/// Whether |a| + |c| ≤ θ|b| from the squares A ≥ |a|², C ≥ |c|² and B ≤ |b|² (θ² given):
/// A + C + 2√(AC) ≤ θ²B, i.e. D = θ²B − A − C ≥ 0 and 4AC ≤ D², with no square root. False for
/// NaN, and wherever B lies outside [2^-500, 2^500] (|b| beyond 2^±250, about 10^±75), where
/// the squares and D² could underflow or overflow and pass a row past the bound: such rows go to
/// the exact method.
PSCR_HD bool window_squares_bounded(double A, double C, double B, double theta2) {
  const double D = theta2 * B - A - C;
  return B >= 0x1p-500 && B <= 0x1p500 && D >= 0 && 4 * A * C <= D * D;
}

/// θ² of window_squares_bounded on the squares of SquareInShift: lowered by 2^-48 (about 32
/// roundings of D's few operations), so that rounding never lets a row past the bound.
PSCR_HD double window_squares_theta2(double theta) {
  return theta * theta * (1 - 0x1p-48);
}

/// |α + s·μ|² as a quadratic in the complex shift s = x + iy: q0 + q1·x + q2·y + q3·(x² + y²),
/// with q0 = |α|², q1 = 2 Re(ᾱμ), q2 = −2 Im(ᾱμ), q3 = |μ|² (|α + β|² = |α|² + 2 Re(ᾱβ) + |β|²,
/// β = sμ). Evaluated in rounding (each coefficient, x² + y², three fused steps), it is off by at
/// most 7u·S (u = 2^-53), S the sum of its terms' magnitudes, and S ≤ (1 + √2)(q0 + q3|s|²)
/// (|q1 x + q2 y| ≤ 2√2 |α||μ||s| ≤ √2 (|α|² + |μ|²|s|²)): about 17u (q0 + q3|s|²). `side` +1
/// raises q0 and q3 by 2^-48 ≈ 32u of themselves, so that the value bounds the square above
/// whatever the rounding; −1 lowers them, so that it bounds it below. The window method's check of
/// complex shifts (window_bound_kernel) evaluates these instead of forming each row of each system.
struct SquareInShift {
  double q0, q1, q2, q3;
  PSCR_HD double at(double x, double y, double rho) const {
    return fma(q3, rho, fma(q2, y, fma(q1, x, q0)));
  }
};
PSCR_HD SquareInShift square_in_shift(const Complex& alpha, const Complex& mu, double side) {
  const double widen = 1 + side * 0x1p-48;
  const double re = fma(alpha.re, mu.re, alpha.im * mu.im);   // Re(ᾱμ)
  const double im = fma(alpha.re, mu.im, -alpha.im * mu.re);  // Im(ᾱμ)
  return {widen * fma(alpha.re, alpha.re, alpha.im * alpha.im), 2 * re, -2 * im,
          widen * fma(mu.re, mu.re, mu.im * mu.im)};
}
/// The window method's check in the workspace, zeroed before it: the count of warps that found a
/// row past the bound (the window method's Gate), and for real shifts their range [lo, hi] as
/// ordered keys (ordered_key; lo's inverted), each the atomicMax of its kernel's warps.
struct WindowCheck {
  unsigned failed;
  unsigned long long lo_inverted;
  unsigned long long hi;
};

/// A double as a key that orders as the values do (NaN aside): the bits of x ≥ +0 with the sign
/// bit set, those of x ≤ −0 inverted.
PSCR_HD unsigned long long ordered_key(double x) {
  unsigned long long b;
  memcpy(&b, &x, sizeof b);
  return (b >> 63) != 0 ? ~b : b | (1ull << 63);
}
PSCR_HD double ordered_value(unsigned long long key) {
  const unsigned long long b = (key >> 63) != 0 ? key & ~(1ull << 63) : ~key;
  double x;
  memcpy(&x, &b, sizeof x);
  return x;
}

/// Row r of A and M with its couplings to both neighbours (zero past the ends), for the window
/// method's check: `bounded(s)` whether row r of A + s M meets the bound. Real: the row formed
/// (window_row_bounded); complex: the squares of its entries as quadratics in s (SquareInShift:
/// above for the couplings, below for the diagonal), as window_bound_kernel evaluates them.
template <class T>
struct ShiftedRowBound;
template <>
struct ShiftedRowBound<double> {
  double ad, md, ao_before, mo_before, ao_after, mo_after;
  PSCR_HD bool bounded(double s, double theta) const {
    return window_row_bounded(ao_before + s * mo_before, ad + s * md, ao_after + s * mo_after,
                              theta);
  }
};
/// Whether R consecutive rows meet the bound at the complex shift s from the quadratics of their
/// entries' squares (SquareInShift): coupling(i) that of the rows i − 1 and i (i = 0..R),
/// diagonal(i) row i's; each coupling taken once, for the rows on both its sides. θ² from
/// window_squares_theta2.
template <int R, class Coupling, class Diagonal>
PSCR_HD bool squares_rows_bounded(Coupling coupling, Diagonal diagonal, const Complex& s,
                                  double theta2) {
  const double rho = fma(s.re, s.re, s.im * s.im);
  double before = coupling(0).at(s.re, s.im, rho);
  bool bounded = true;
#pragma unroll
  for (int i = 0; i < R; ++i) {
    const double after = coupling(i + 1).at(s.re, s.im, rho);
    bounded &= window_squares_bounded(before, after, diagonal(i).at(s.re, s.im, rho), theta2);
    before = after;
  }
  return bounded;
}
template <>
struct ShiftedRowBound<Complex> {
  SquareInShift before, diag, after;
  PSCR_HD bool bounded(const Complex& s, double theta) const {
    return squares_rows_bounded<1>([&](int i) { return i == 0 ? before : after; },
                                   [&](int) { return diag; }, s, window_squares_theta2(theta));
  }
};
/// The square of a coupling's entry ao + s·mo bounded above, of a diagonal's ad + s·md bounded
/// below, as quadratics in the shift: the sides on which the window method's check (and its
/// watch) takes them, so that rounding never lets a row past the bound.
PSCR_HD SquareInShift coupling_square(const Complex& ao, const Complex& mo) {
  return square_in_shift(ao, mo, 1.0);
}
PSCR_HD SquareInShift diagonal_square(const Complex& ad, const Complex& md) {
  return square_in_shift(ad, md, -1.0);
}
/// The same of the coupling of rows e − 1 and e of a system (none past the ends), and of row r's
/// diagonal (1 at and past n, a padded row).
PSCR_HD SquareInShift coupling_square(const ShiftedMatrix<Complex>& m, index_t e) {
  return e >= 1 && e < m.n ? coupling_square(m.a_off[e - 1], m.m_off[e - 1])
                           : SquareInShift{0, 0, 0, 0};
}
PSCR_HD SquareInShift diagonal_square(const ShiftedMatrix<Complex>& m, index_t r) {
  return r < m.n ? diagonal_square(m.a_diag[r], m.m_diag[r]) : SquareInShift{1, 0, 0, 0};
}
/// ShiftedRowBound of a row from its entries: the diagonals of A and M and their couplings to the
/// rows before and after (zero where there is none).
PSCR_HD ShiftedRowBound<double> row_bound(double ad, double md, double ao_before, double mo_before,
                                          double ao_after, double mo_after) {
  return {ad, md, ao_before, mo_before, ao_after, mo_after};
}
PSCR_HD ShiftedRowBound<Complex> row_bound(const Complex& ad, const Complex& md,
                                           const Complex& ao_before, const Complex& mo_before,
                                           const Complex& ao_after, const Complex& mo_after) {
  return {coupling_square(ao_before, mo_before), diagonal_square(ad, md),
          coupling_square(ao_after, mo_after)};
}
/// Two coefficients of a SquareInShift, 16 bytes as a complex entry of the tables.
struct alignas(16) SquarePair {
  double first, second;
};
/// A window's rows as quadratics in the shift, for the watch of complex shifts in the sweep window
/// kernel: formed once per window from its tables' entries (as row_bound forms them: the
/// diagonal's square bounded below, the coupling's to the row before above) for all of the
/// window's systems, so that a row and shift take two quadratics' evaluations and a test. Four
/// arrays of `slots` SquarePairs (the diagonal's q0 q1 and q2 q3, the coupling's likewise), 16
/// bytes a slot as the tables of complex entries, so that the lanes' rows, R + 1 slots apart
/// (WindowWatch::set_written), are read without bank conflicts (one array of 64-byte quadratic
/// pairs put them 16 banks apart mod 32: 16-way conflicts, 25–35% more time on the H100,
/// docs/tridiag-performance.md).
struct WindowSquares {
  SquarePair* base;
  int slots;
  PSCR_HD void set(int t, const ShiftedMatrixRow<Complex>& e) const {
    const SquareInShift d = diagonal_square(e.ad, e.md), c = coupling_square(e.ao, e.mo);
    base[t] = {d.q0, d.q1};
    base[slots + t] = {d.q2, d.q3};
    base[2 * slots + t] = {c.q0, c.q1};
    base[3 * slots + t] = {c.q2, c.q3};
  }
  PSCR_HD SquareInShift diagonal(int t) const { return at(t, 0); }
  PSCR_HD SquareInShift coupling(int t) const { return at(t, 2); }

 private:
  PSCR_HD SquareInShift at(int t, int array) const {
    const SquarePair a = base[array * slots + t], b = base[(array + 1) * slots + t];
    return {a.first, a.second, b.first, b.second};
  }
};
/// Row r < n of the system's A and M (row_bound, its couplings zero past the ends).
template <class T>
PSCR_HD ShiftedRowBound<T> shifted_row_bound(const ShiftedMatrix<T>& m, index_t r) {
  const bool before = r > 0, after = r + 1 < m.n;
  return row_bound(m.a_diag[r], m.m_diag[r], before ? m.a_off[r - 1] : T(0),
                   before ? m.m_off[r - 1] : T(0), after ? m.a_off[r] : T(0),
                   after ? m.m_off[r] : T(0));
}

/// A row's window bound over every real shift of [lo, hi] (lo ≤ hi, both shifts of the batch):
/// a(s), b(s), c(s) are linear in s, so |a(s)| + |c(s)| is convex, and so is |a(s)| + |c(s)| −
/// θ|b(s)| wherever b keeps its sign (θ|b(s)| linear there). Where b(lo) and b(hi) share their
/// sign, the row meets the bound at every shift of the range if it meets it at both ends (holds);
/// where it misses it at an end, a shift misses it (fails); else b vanishes in between (undecided:
/// window_range_bound_kernel tries each shift).
enum class RangeBound { holds, fails, undecided };
PSCR_HD RangeBound window_row_over_range(const ShiftedRowBound<double>& row, double lo, double hi,
                                         double theta) {
  if (!row.bounded(lo, theta) || !row.bounded(hi, theta)) return RangeBound::fails;
  const double b_lo = row.ad + lo * row.md, b_hi = row.ad + hi * row.md;
  return (b_lo > 0 && b_hi > 0) || (b_lo < 0 && b_hi < 0) ? RangeBound::holds
                                                          : RangeBound::undecided;
}

/// Whether some warp has counted a failing row in `count` already (read by lane 0, uniform over
/// the warp): a warp that starts after one has has nothing to add.
__device__ __forceinline__ bool warp_sees_count(const unsigned* count) {
  const unsigned lane = threadIdx.x % kWarpLanes;
  const unsigned counted = lane == 0 ? *static_cast<const volatile unsigned*>(count) : 0u;
  return __shfl_sync(0xffffffffu, counted, 0) != 0;
}

/// Counts the warp in `count` where a lane's `bounded` is false (every lane of the warp calls it).
__device__ __forceinline__ void count_failing_warp(unsigned* count, bool bounded) {
  if (!__all_sync(0xffffffffu, bounded) && threadIdx.x % kWarpLanes == 0) atomicAdd(count, 1u);
}

/// The first kernel of the window method's check of real shifts: their range into `check` (keys
/// reduced over each warp, one atomicMax per warp and end); a NaN shift counts as a failing row.
template <class T>
__global__ void window_shift_range_kernel(const T* shifts, index_t batch, WindowCheck* check) {
  static_assert(std::is_same_v<T, double>, "real shifts have a range");
  unsigned long long lo = ~0ull, hi = 0;
  bool numbers = true;
  const index_t stride = static_cast<index_t>(gridDim.x) * blockDim.x;
  for (index_t k = static_cast<index_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < batch;
       k += stride) {
    const double s = shifts[k];
    numbers &= s == s;
    const unsigned long long key = ordered_key(s);
    lo = key < lo ? key : lo;
    hi = key > hi ? key : hi;
  }
  for (int offset = kWarpLanes / 2; offset > 0; offset /= 2) {
    const unsigned long long other_lo = __shfl_xor_sync(0xffffffffu, lo, offset);
    const unsigned long long other_hi = __shfl_xor_sync(0xffffffffu, hi, offset);
    lo = other_lo < lo ? other_lo : lo;
    hi = other_hi > hi ? other_hi : hi;
  }
  const bool all_numbers = __all_sync(0xffffffffu, numbers);
  if (threadIdx.x % kWarpLanes == 0) {
    atomicMax(&check->lo_inverted, ~lo);
    atomicMax(&check->hi, hi);
    if (!all_numbers) atomicAdd(&check->failed, 1u);
  }
}

/// The second kernel of the window method's check of real shifts: thread t of the grid's x takes
/// rows t, t + X, ... (X its threads) over the range of window_shift_range_kernel
/// (window_row_over_range), and where that is undecided the shifts blockIdx.y, + gridDim.y, ...
/// of the batch in turn: O(n) work where no row's diagonal vanishes within the range, against
/// window_bound_kernel's O(n · batch), and the grid's second dimension spreads the undecided rows'
/// shifts as that kernel spreads every row's (its blocks beyond the first take two shifts per
/// row where none vanishes). A lane stops at its first failing row; the warps count as there.
template <class T>
__global__ void window_range_bound_kernel(ShiftedMatrix<T> m, const T* shifts, index_t batch,
                                          double theta, WindowCheck* check) {
  static_assert(std::is_same_v<T, double>, "real shifts have a range");
  if (warp_sees_count(&check->failed)) return;  // uniform over the warp
  const double lo = ordered_value(~check->lo_inverted), hi = ordered_value(check->hi);
  bool bounded = true;
  const index_t stride = static_cast<index_t>(gridDim.x) * blockDim.x;
  for (index_t r = static_cast<index_t>(blockIdx.x) * blockDim.x + threadIdx.x; bounded && r < m.n;
       r += stride) {
    const ShiftedRowBound<T> row = shifted_row_bound(m, r);
    const RangeBound v = window_row_over_range(row, lo, hi, theta);
    bounded = v != RangeBound::fails;
    for (index_t k = blockIdx.y; v == RangeBound::undecided && bounded && k < batch; k += gridDim.y)
      bounded = row.bounded(shifts[k], theta);
  }
  count_failing_warp(&check->failed, bounded);
}

/// Rows that a thread of window_bound_kernel takes at once: R rows share their R + 1 couplings.
inline constexpr int kWindowCheckRows = 4;

/// The window method's check of complex shifts: counts in `check` the warps that found a row of
/// some system past the bound (ShiftedRowBound<Complex>: the squares of its entries as quadratics
/// in the shift, so that a row and shift take three fused steps per entry and no complex product).
/// Thread t of the grid's x takes the kWindowCheckRows rows of groups t, t + X, ... (X its
/// threads), their quadratics in registers and the couplings between them shared, for systems
/// blockIdx.y, + gridDim.y, ...: one load of a shift per group and system. A lane stops at its
/// first failing row (an indefinite batch, which fails, then costs the check little).
template <class T>
__global__ void window_bound_kernel(ShiftedMatrix<T> m, const T* shifts, index_t batch,
                                    double theta, WindowCheck* check) {
  static_assert(std::is_same_v<T, Complex>, "real shifts take window_range_bound_kernel");
  constexpr int R = kWindowCheckRows;
  if (warp_sees_count(&check->failed)) return;  // uniform over the warp
  const double theta2_squares = window_squares_theta2(theta);
  bool bounded = true;
  const index_t groups = (m.n + R - 1) / R;
  const index_t stride = static_cast<index_t>(gridDim.x) * blockDim.x;
  for (index_t g = static_cast<index_t>(blockIdx.x) * blockDim.x + threadIdx.x;
       bounded && g < groups; g += stride) {
    SquareInShift couplings[R + 1], diagonals[R];  // couplings[i]: rows g·R + i − 1 and g·R + i
#pragma unroll
    for (int i = 0; i <= R; ++i) couplings[i] = coupling_square(m, g * R + i);
#pragma unroll
    for (int i = 0; i < R; ++i) diagonals[i] = diagonal_square(m, g * R + i);
    for (index_t k = blockIdx.y; bounded && k < batch; k += gridDim.y)
      bounded =
          squares_rows_bounded<R>([&](int i) { return couplings[i]; },
                                  [&](int i) { return diagonals[i]; }, shifts[k], theta2_squares);
  }
  count_failing_warp(&check->failed, bounded);
}

/// The window method's check inside its kernels: each warp checks the rows it solves, every row
/// of its window at its system's shift as the window's tables hold them (ShiftedRowBound, a cut
/// row's coupling outside the window taken as zero), and
/// counts itself in `failed` where one is past the bound; a warp (or, in the columns method's
/// windows, a block) that finds the count nonzero stops, and the exact fallback, gated on it,
/// solves the batch. Every row of a system lies inside some window with both its couplings (a
/// window's cut rows lie 448 and 63 rows into its neighbours, which overlap it by
/// 2·kWindowHaloRows), so the count is what the check kernels would find for the batch
/// (window_range_bound_kernel, window_bound_kernel), while the rows come from the tables the
/// solve loads anyway. No `failed` (the bound assured): no watch.
struct WindowWatch {
  unsigned* failed = nullptr;
  double theta = 0;
  /// The count is read every kReadEvery-th system of a warp (the sweep window kernel) or unit of
  /// a block (the columns windows), from the first: each read waits for a global load, and the
  /// columns windows' for a barrier of its own, before the system or unit can start. Reading it
  /// at every one cost 2–3% at real interleaved 8192 × 2^11 and 65536 × 256, 2% at complex
  /// interleaved 8192 × 2^11 (H100, checked; docs/tridiag-performance.md); a batch past the bound
  /// pays up to kReadEvery − 1 more systems or units before the fallback.
  static constexpr int kReadEvery = 4;
  /// Whether a warp's or block's system or unit after `before` others reads the count.
  PSCR_HD static bool reads(int before) { return before % kReadEvery == 0; }
  /// Whether some warp has counted a row past the bound (uniform over the warp).
  __device__ bool seen() const { return warp_sees_count(failed); }
  /// The same, uniform over the block (read by thread 0; a barrier every thread reaches).
  __device__ bool seen_by_block() const {
    return __syncthreads_or(threadIdx.x == 0 &&
                            *static_cast<const volatile unsigned*>(failed) != 0);
  }
  /// Whether the row at slot r of a window's tables (as shifted_matrix_row lays them out: the
  /// diagonals, the coupling to the row before), the row after it at slot `after`, meets the bound
  /// at shift s: row_bound, as shifted_row_bound builds it from the system's arrays, so that the
  /// watch decides each row as the check kernels do.
  template <class T>
  PSCR_HD bool row_bounded(const T* ad, const T* md, const T* ao, const T* mo, int r, int after,
                           const T& s) const {
    return row_bound(ad[r], md[r], ao[r], mo[r], ao[after], mo[after]).bounded(s, theta);
  }
  /// Whether the R rows from `first` of a window's tables (row r at slot(r)) meet the bound at
  /// shift s: row_bounded on each, but for complex shifts each coupling's quadratic formed once
  /// for the rows on both its sides (squares_rows_bounded: 2R + 1 quadratics, not 3R), the same
  /// quadratics evaluated in the same way, so the same answer.
  template <int R, class T, class Slot>
  PSCR_HD bool rows_bounded(const T* ad, const T* md, const T* ao, const T* mo, int first,
                            Slot slot, const T& s) const {
    if constexpr (std::is_floating_point_v<T>) {
      bool bounded = true;
#pragma unroll 4
      for (int i = first; i < first + R; ++i)
        bounded &= row_bounded(ad, md, ao, mo, slot(i), slot(i + 1), s);
      return bounded;
    } else {
      return squares_rows_bounded<R>(
          [&](int i) {
            const int t = slot(first + i);
            return coupling_square(ao[t], mo[t]);
          },
          [&](int i) {
            const int t = slot(first + i);
            return diagonal_square(ad[t], md[t]);
          },
          s, window_squares_theta2(theta));
    }
  }
  /// The sweep window kernel's rows per lane for complex shifts (lanes of K rows): lane l checks
  /// rows write_lo + l·R to + R − 1 of each window, R = lane_rows, the rows the window writes.
  /// Each row of a system is written by one window, where its couplings are its true ones: so
  /// every row is checked once.
  template <int K>
  static constexpr int lane_rows() {
    constexpr int written = kWarpLanes * K - 2 * static_cast<int>(kWindowHaloRows);
    static_assert(written % kWarpLanes == 0, "whole rows per lane");
    return written / kWarpLanes;
  }
  /// Forms the quadratics (WindowSquares) of a window's row j rows after write_lo where
  /// written_bounded reads them: the rows written and the coupling after the last (j from 0 to
  /// 32·R), R + 1 slots per lane; the halo rows not at all.
  template <int R>
  PSCR_HD static void set_written(const WindowSquares& squares, int j,
                                  const ShiftedMatrixRow<Complex>& e) {
    if (j >= 0 && j <= R * kWarpLanes) squares.set(written_slot<R>(j), e);
  }
  /// Whether lane `lane`'s R rows written (lane_rows) meet the bound at s, from the quadratics
  /// set_written formed: as rows_bounded finds from the tables, the same quadratics evaluated in
  /// the same way. The lane's rows lie at compile-time offsets from its first slot.
  template <int R>
  PSCR_HD bool written_bounded(const WindowSquares& squares, int lane, const Complex& s) const {
    const int first = lane * (R + 1);
    return squares_rows_bounded<R>(
        [&](int i) { return squares.coupling(first + written_slot<R>(i)); },
        [&](int i) { return squares.diagonal(first + written_slot<R>(i)); }, s,
        window_squares_theta2(theta));
  }
  /// Counts the warp where a lane's `bounded` is false (every lane of the warp calls it).
  __device__ void count(bool bounded) const {
    count_failing_warp(failed, bounded);
  }

 private:
  /// Written row j's slot: R + 1 slots per lane, so that lanes' rows are read without bank
  /// conflicts.
  template <int R>
  PSCR_HD static int written_slot(int j) {
    return j + j / R;
  }
};

/// The window method's kernel: the (window, system) pairs, window by window, in equal shares per
/// block (so that every SM gets the same work whatever the count of windows and systems); per
/// window of its share, the block loads the window's rows of A and M as its tables, and warp w of
/// W solves systems k_begin + w, + W, ... of it as sweep_kernel's SweepStaging::buffers instance
/// solves whole systems (c′ and v in registers, d in two buffers). Watch (the bound not assured):
/// for each system it solves, each warp checks its rows (complex shifts: the rows the window
/// writes, from their quadratics, WindowSquares) and stops once a row is past the bound, the block
/// at the end of the window (WindowWatch).
template <class T, int K, bool Watch>
__global__ void __launch_bounds__(kWarpLanes* sweep_max_warps<T, K, SweepStaging::buffers>())
    sweep_window_kernel(ShiftedMatrix<T> m, const T* shifts, index_t batch, SweepWindows win,
                        const T* d, Strides ds, T* x, Strides xs, WindowWatch watch) {
  extern __shared__ __align__(16) unsigned char smem_raw[];
  constexpr int kRows = kWarpLanes * K;
  const int A = sweep_array(K);
  const auto slot = [](int r) { return r + r / K; };
  const int warp = static_cast<int>(threadIdx.x) / kWarpLanes;
  const int lane = static_cast<int>(threadIdx.x) % kWarpLanes;
  const int warps = static_cast<int>(blockDim.x) / kWarpLanes;
  // The tables as sweep_kernel lays them out (its loop of their loads is not shared through a
  // function: every sweep_kernel instance compiled to other machine code with one, cubin_diff).
  T* ad = reinterpret_cast<T*>(smem_raw);
  T* md = ad + A;
  T* ao = md + A;
  T* mo = ao + A;
  T* arrays = mo + A + warp * 2 * A;
  // Watched complex shifts: each lane checks R of the rows the window writes
  // (WindowWatch::lane_rows) from their quadratics after the warps' arrays (WindowSquares,
  // WindowWatch::set_written). Real shifts: each lane its K rows of the tables (checking only
  // the rows written from there, at runtime offsets, was 4.5–11% slower on the H100,
  // docs/tridiag-performance.md).
  constexpr int kWatchRows = WindowWatch::lane_rows<K>();
  constexpr bool kSquares = Watch && !std::is_floating_point_v<T>;
  const WindowSquares squares{reinterpret_cast<SquarePair*>(mo + A + warps * 2 * A), A};
  const int base = lane * (K + 1);
  // The block's units, (window, system) pairs window by window: an equal share of all of them.
  const index_t units = win.count * batch;
  const index_t end = units * (blockIdx.x + 1) / gridDim.x;
  for (index_t u = units * blockIdx.x / gridDim.x; u < end;) {
    const index_t j = u / batch;
    const index_t k_begin = u - j * batch;
    const index_t k_end = end - j * batch < batch ? end - j * batch : batch;
    u = j * batch + k_end;
    const SweepWindow window = sweep_window(j, win.inner, kRows, m.n);
    const index_t lo = window.lo;
    const int n = window.rows;
    const ShiftedMatrix<T> w = window_matrix(m, window);
    for (int r = static_cast<int>(threadIdx.x); r <= kRows; r += static_cast<int>(blockDim.x)) {
      const int t = slot(r);
      const ShiftedMatrixRow<T> e = shifted_matrix_row(w, r);
      ad[t] = e.ad;
      md[t] = e.md;
      ao[t] = e.ao;
      mo[t] = e.mo;
      if constexpr (kSquares) WindowWatch::set_written<kWatchRows>(squares, r - window.write_lo, e);
    }
    // Rows past n: d = 0 (identity rows), and x = 0 there after every solve (in both buffers).
    for (int r = n + lane; r < kRows; r += kWarpLanes) {
      arrays[slot(r)] = T(0);
      arrays[A + slot(r)] = T(0);
    }
    __syncthreads();

    auto fetch = [&](index_t k, T* buffer) {
      const T* row = d + ds.at(k, lo + lane);
      for (int r = lane; r < n; r += kWarpLanes, row += kWarpLanes * ds.row)
        copy_async(buffer + slot(r), row);
      copy_async_commit();
    };
    const index_t first = k_begin + warp;
    T next_shift{};
    if (first < k_end) {
      next_shift = shifts[first];
      fetch(first, arrays);
    }
    int systems_before = 0;  // the warp's systems of the window before k
    for (index_t k = first; k < k_end; k += warps, ++systems_before) {
      const int parity = systems_before & 1;  // the array holding system k's d
      if constexpr (Watch) {
        if (WindowWatch::reads(systems_before) && watch.seen()) {  // the fallback solves the batch
          copy_async_wait();
          break;
        }
      }
      T* dx = arrays + parity * A;
      const T shift = next_shift;
      const bool more = k + warps < k_end;
      if (more) {
        next_shift = shifts[k + warps];
        fetch(k + warps, arrays + (parity ^ 1) * A);
      }
      // The lane's rows checked while system k's d is still in flight, and before its c′ and v
      // (kept) hold registers.
      if constexpr (kSquares)
        watch.count(watch.written_bounded<kWatchRows>(squares, lane, shift));
      else if constexpr (Watch)
        watch.count(watch.rows_bounded<K>(ad, md, ao, mo, lane * K, slot, shift));
      if (more)
        copy_async_wait_pending<1>();
      else
        copy_async_wait();
      __syncwarp();
      SweepLaneKept<T, K> kept;
      Row4<T> P, Q;
      sweep_reduce(SweepRows<T>{ad, md, ao, mo, shift}, dx, kept, base, K, P, Q);
      T x_first, x_last;
      guarded_reduced_solve<false>(P, Q, x_first, x_last);
      sweep_substitute(dx, kept, base, K, x_first, x_last);
      __syncwarp();
      for (int r = window.write_lo + lane; r < window.write_hi; r += kWarpLanes)
        x[xs.at(k, lo + r)] = dx[slot(r)];
      __syncwarp();
    }
    // Every warp done with the window's tables before the next window's. Watched, the block stops
    // there once a row past the bound was counted: its warps' checks before each system would stop
    // them only after the block had loaded each later window's tables and its warps' first d.
    if constexpr (Watch) {
      if (watch.seen_by_block()) break;
    } else {
      __syncthreads();
    }
  }
}

}  // namespace pscr::tridiag::cuda::detail
