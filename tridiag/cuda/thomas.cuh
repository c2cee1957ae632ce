#pragma once
/// @file One thread per system, rows through shared-memory chunks read and written in the
/// layout's coalesced order: p-Thomas (sakharnykh2010) and the scaled-partial-pivoting LU of the
/// reference; and for the shifted form's short systems two threads per system, Thomas from both
/// ends with every row in registers (thomas_twisted_kernel). Include only from .cu files.

#include "tridiag/cuda/warp.cuh"

namespace pscr::tridiag::cuda::detail {

/// Threads per block of thomas_direct_kernel: small blocks, so that the shared-memory rows of a
/// few blocks per SM can be sized to fit (tridiag/cuda/solve.cu: thomas_direct_plan).
constexpr int kThomasDirectThreads = 64;

/// The block's systems [k0, k0 + blockDim) (k0 = b·blockDim) as thomas_kernel and pivoting_kernel
/// walk them, thread t system k = k0 + t: rows pass through a shared tile of C rows per system
/// (stride C + 1: dt, row i of the block's system t at idx(t, i)), the form's coefficient tiles
/// after it (coef), loaded and stored in the layout's coalesced order, chunk by chunk down, then
/// back up. The last chunk (first row last0) stays in the tile between the two sweeps.
template <int C, class T>
struct ChunkedSystems {
  T* dt;
  StrideIndex idx;
  int tile;
  T* coef;
  index_t n, k0;
  int gv, t;  // the block's systems (fewer in the last block), the thread's
  bool active;
  index_t k, last0;

  __device__ ChunkedSystems(unsigned char* smem, index_t n_, index_t batch)
      : dt(reinterpret_cast<T*>(smem)),
        idx{C + 1},
        tile(static_cast<int>(blockDim.x) * (C + 1)),
        coef(dt + tile),
        n(n_),
        k0(static_cast<index_t>(blockIdx.x) * blockDim.x),
        gv(static_cast<int>(min(static_cast<index_t>(blockDim.x), batch - k0))),
        t(static_cast<int>(threadIdx.x)),
        active(t < gv),
        k(k0 + t),
        last0(((n_ - 1) / C) * C) {}
  /// Rows of the chunk that starts at row r0.
  __device__ int rows(index_t r0) const {
    return static_cast<int>(min(static_cast<index_t>(C), n - r0));
  }
  /// Down: chunk r0's d and coefficients into the tiles; returns its rows.
  template <class Form>
  __device__ int load_down(const Form& form, const T* d, Strides ds, bool d_row_fastest,
                           index_t r0) const {
    const int lv = rows(r0);
    load_tile(d, ds, k0, gv, r0, lv, d_row_fastest, dt, idx);
    form.load(ds, k0, gv, r0, lv, d_row_fastest, coef, idx, tile);
    __syncthreads();
    return lv;
  }
  /// Down, after the chunk: its tile to x, but for the last chunk, which the way up starts from.
  __device__ void store_down(T* x, Strides xs, bool x_row_fastest, index_t r0, int lv) const {
    __syncthreads();
    if (r0 != last0) {
      store_tile(x, xs, k0, gv, r0, lv, x_row_fastest, dt, idx);
      __syncthreads();
    }
  }
  /// Up: chunk r0 back from x into the tile (the last one is there); returns its rows.
  __device__ int load_up(const T* x, Strides xs, bool x_row_fastest, index_t r0) const {
    const int lv = rows(r0);
    if (r0 != last0) {
      load_tile(x, xs, k0, gv, r0, lv, x_row_fastest, dt, idx);
      __syncthreads();
    }
    return lv;
  }
  /// Up, after the chunk: its tile to x.
  __device__ void store_up(T* x, Strides xs, bool x_row_fastest, index_t r0, int lv) const {
    __syncthreads();
    store_tile(x, xs, k0, gv, r0, lv, x_row_fastest, dt, idx);
    __syncthreads();
  }
};

/// p-Thomas: thread t of block b solves system k0 + t (k0 = b·blockDim), its rows through the
/// chunks of ChunkedSystems. Forward elimination (kim2011 eqs. 2–3) leaves d' in x and c' in
/// cp_ws (row r of system k at r·batch + k: coalesced); back substitution (eq. 4) walks the
/// chunks in reverse.
template <int C, class T, class Form>
__global__ void __launch_bounds__(256)
    thomas_kernel(Form form, index_t n, index_t batch, const T* d, Strides ds, bool d_row_fastest,
                  T* x, Strides xs, bool x_row_fastest, T* cp_ws) {
  extern __shared__ __align__(16) unsigned char smem_raw[];
  const ChunkedSystems<C, T> b(smem_raw, n, batch);
  T* dt = b.dt;
  const StrideIndex idx = b.idx;
  const int t = b.t;
  const index_t k = b.k;

  T cprev = T(0);
  T dprev = T(0);
  for (index_t r0 = 0; r0 < n; r0 += C) {
    const int lv = b.load_down(form, d, ds, d_row_fastest, r0);
    if (b.active) {
      const auto rows = form.rows(k, t, r0, b.coef, idx, b.tile);
      for (int i = 0; i < lv; ++i) {
        const index_t r = r0 + i;
        const T e = rows.sub(r);
        const T inv = T(1) / (rows.diag(r) - e * cprev);
        dprev = (dt[idx(t, i)] - e * dprev) * inv;
        dt[idx(t, i)] = dprev;
        cprev = rows.sup(r) * inv;
        if (r + 1 < n) cp_ws[r * batch + k] = cprev;
      }
    }
    b.store_down(x, xs, x_row_fastest, r0, lv);
  }
  T xn = T(0);
  for (index_t r0 = b.last0; r0 >= 0; r0 -= C) {
    const int lv = b.load_up(x, xs, x_row_fastest, r0);
    if (b.active) {
      for (int i = lv - 1; i >= 0; --i) {
        const index_t r = r0 + i;
        const T cpr = r + 1 < n ? cp_ws[r * batch + k] : T(0);
        xn = dt[idx(t, i)] - cpr * xn;
        dt[idx(t, i)] = xn;
      }
    }
    b.store_up(x, xs, x_row_fastest, r0, lv);
  }
}

/// p-Thomas for the general form on layouts whose systems are adjacent in memory (system stride 1
/// for a, b, c, d and x): the threads of a warp read and write consecutive elements of a row, so
/// rows go straight between global memory and registers, with no tile and no barrier. Block b
/// solves systems [b·blockDim, (b + 1)·blockDim), thread t one of them. The forward elimination
/// (kim2011 eqs. 2–3) reads U rows at a time, all loads issued before the first is used. Its c'
/// and d' of the last `resident` rows stay in shared memory ([row][thread]: conflict-free), those
/// of earlier rows go to cp_ws (row r of system k at r·batch + k) and x, as in thomas_kernel. So
/// with resident = n, a, b, c and d are read once and x written once: the byte floor.
template <int U, class T>
__global__ void __launch_bounds__(kThomasDirectThreads)
    thomas_direct_kernel(GeneralForm<T> form, index_t n, index_t batch, const T* d, Strides ds,
                         T* x, Strides xs, T* cp_ws, int resident) {
  extern __shared__ __align__(16) unsigned char smem_raw[];
  const int t = threadIdx.x;
  const int threads = blockDim.x;
  T* c_prime = reinterpret_cast<T*>(smem_raw);  // c' of row first + i at [i·threads + t]
  T* d_prime = c_prime + static_cast<index_t>(resident) * threads;  // d', likewise
  const index_t k = static_cast<index_t>(blockIdx.x) * threads + t;
  if (k >= batch) return;  // no barrier below
  const GeneralGlobalRows<T> rows = form.global_rows(k, ds);
  const index_t first = n - resident;  // first row kept in shared memory

  T cprev = T(0);
  T dprev = T(0);
  for (index_t r0 = 0; r0 < n; r0 += U) {
    T e[U], b[U], c[U], v[U];
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const index_t r = r0 + u;
      if (r < n) {
        e[u] = rows.sub(r);
        b[u] = rows.diag(r);
        c[u] = rows.sup(r);
        v[u] = d[ds.at(k, r)];
      }
    }
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const index_t r = r0 + u;
      if (r < n) {
        const T inv = T(1) / (b[u] - e[u] * cprev);
        dprev = (v[u] - e[u] * dprev) * inv;
        cprev = c[u] * inv;
        if (r >= first) {
          const index_t i = (r - first) * threads + t;
          c_prime[i] = cprev;
          d_prime[i] = dprev;
        } else {
          cp_ws[r * batch + k] = cprev;
          x[xs.at(k, r)] = dprev;
        }
      }
    }
  }
  // Back substitution (eq. 4): x_r = d'_r − c'_r x_{r+1}, the resident rows first (c'_{n−1} = 0).
  T xn = T(0);
  for (index_t r = n - 1; r >= first; --r) {
    const index_t i = (r - first) * threads + t;
    xn = d_prime[i] - c_prime[i] * xn;
    x[xs.at(k, r)] = xn;
  }
  for (index_t r0 = first - 1; r0 >= 0; r0 -= U) {
    T cp[U], dp[U];
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const index_t r = r0 - u;
      if (r >= 0) {
        cp[u] = cp_ws[r * batch + k];
        dp[u] = x[xs.at(k, r)];
      }
    }
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const index_t r = r0 - u;
      if (r >= 0) {
        xn = dp[u] - cp[u] * xn;
        x[xs.at(k, r)] = xn;
      }
    }
  }
}

/// LU with scaled partial pivoting, one thread per system: the streaming ?gtsv form of the
/// reference (tridiag/reference/solve.cpp, `pivoting`), with rows through the chunks of
/// ChunkedSystems as thomas_kernel. Incoming row r competes with the remaining row r − 1 for the
/// pivot, relative to their largest entries (RPTS, klein2021); U's three diagonals of row r − 1 go
/// to ws (u0, u1, u2, each n·batch, row r of system k at r·batch + k), its transformed right-hand
/// side y_{r−1} to the tile (or, for the last row of the previous chunk, straight to x, overwriting
/// what the previous chunk's store put there). Back substitution walks the chunks in reverse. A
/// singular system gives Inf/NaN.
template <int C, class T, class Form>
__global__ void __launch_bounds__(256)
    pivoting_kernel(Form form, index_t n, index_t batch, const T* d, Strides ds, bool d_row_fastest,
                    T* x, Strides xs, bool x_row_fastest, T* ws) {
  extern __shared__ __align__(16) unsigned char smem_raw[];
  const ChunkedSystems<C, T> b(smem_raw, n, batch);
  T* dt = b.dt;
  const StrideIndex idx = b.idx;
  const int t = b.t;
  const index_t k = b.k;
  T* u0 = ws;
  T* u1 = ws + n * batch;
  T* u2 = ws + 2 * n * batch;
  const T zero(0);

  T cd = zero, cu = zero, xi = zero;  // the remaining row: columns r−1, r and its right-hand side
  for (index_t r0 = 0; r0 < n; r0 += C) {
    const int lv = b.load_down(form, d, ds, d_row_fastest, r0);
    if (b.active) {
      const auto A = form.rows(k, t, r0, b.coef, idx, b.tile);
      for (int i = 0; i < lv; ++i) {
        const index_t r = r0 + i;
        if (r == 0) {
          cd = A.diag(0);
          cu = A.sup(0);
          xi = dt[idx(t, 0)];
          continue;
        }
        const T l = A.sub(r);
        T nd = A.diag(r);
        const T nu = A.sup(r);
        const T nb = dt[idx(t, i)];
        bool keep;
        if (cd == zero) {
          keep = false;
        } else if (l == zero) {
          keep = true;
        } else {
          const double s_i = fmax(abs1(cd), abs1(cu));
          const double s_n = fmax(abs1(l), fmax(abs1(nd), abs1(nu)));
          keep = abs1(cd) * s_n >= abs1(l) * s_i;
        }
        const index_t w = (r - 1) * batch + k;
        T y;  // transformed right-hand side of row r − 1
        if (keep) {
          const T f = l / cd;
          u0[w] = cd;
          u1[w] = cu;
          u2[w] = zero;
          y = xi;
          nd -= f * cu;
          xi = nb - f * xi;
          cd = nd;
          cu = nu;
        } else {
          // Interchange rows r − 1 and r, then eliminate column r − 1 from the old row r − 1.
          const T f = cd / l;
          u0[w] = l;
          u1[w] = nd;
          u2[w] = nu;
          y = nb;
          xi = xi - f * nb;
          cd = cu - f * nd;
          cu = -f * nu;
        }
        if (i > 0)
          dt[idx(t, i - 1)] = y;
        else
          x[xs.at(k, r - 1)] = y;
      }
      if (r0 == b.last0) dt[idx(t, lv - 1)] = xi / cd;  // x_{n−1}
    }
    b.store_down(x, xs, x_row_fastest, r0, lv);
  }
  // Back substitution with U: x_r = (y_r − u1_r x_{r+1} − u2_r x_{r+2}) / u0_r.
  T x1 = zero, x2 = zero;
  for (index_t r0 = b.last0; r0 >= 0; r0 -= C) {
    const int lv = b.load_up(x, xs, x_row_fastest, r0);
    if (b.active) {
      for (int i = lv - 1; i >= 0; --i) {
        const index_t r = r0 + i;
        T v = dt[idx(t, i)];
        if (r + 1 < n) {
          const index_t w = r * batch + k;
          v = (v - u1[w] * x1 - u2[w] * x2) / u0[w];
        }
        dt[idx(t, i)] = v;
        x2 = x1;
        x1 = v;
      }
    }
    b.store_up(x, xs, x_row_fastest, r0, lv);
  }
}

/// Most rows per thread of thomas_twisted_kernel: the shifted form's systems of n ≤ 2·32 rows.
constexpr int kTwistedMaxRows = 32;
/// Threads per block of thomas_twisted_kernel, and its systems per block (32 per pair of warps).
constexpr int kTwistedThreads = 128;
constexpr int kTwistedBlockSystems = kTwistedThreads / 2;

/// R of the thomas_twisted_kernel instance for systems of n ≤ 2·kTwistedMaxRows rows: the
/// smallest of 8, 16 and kTwistedMaxRows that holds the top half's ⌈n/2⌉ rows.
PSCR_HD constexpr int twisted_rows(index_t n) {
  const index_t half = n - n / 2;
  return half <= 8 ? 8 : half <= 16 ? 16 : kTwistedMaxRows;
}

/// A's and M's rows as the twisted elimination walks them (TwistedHalf): 2R padded rows, the
/// system's row r at p = r + R − ⌈n/2⌉, so that the top half (rows 0 .. ⌈n/2⌉ − 1) ends at p = R −
/// 1 and the bottom half starts at p = R; an identity row (diagonal 1, no couplings) at every p
/// outside the system. ad, md: the diagonals; ao, mo: the couplings of p to p + 1.
template <class T>
struct TwistedTables {
  const T* ad;
  const T* md;
  const T* ao;
  const T* mo;
};

/// Row r of a system of n rows at padded row p of TwistedTables for halves of R rows (outside
/// [0, n): padding).
PSCR_HD index_t twisted_row(index_t n, int R, int p) {
  return p - (R - (n - n / 2));
}

/// Padded row p of TwistedTables: ad, md, ao, mo at p (ShiftedMatrixRow's fields, ao and mo
/// coupling p to p + 1 here).
template <class T>
PSCR_HD ShiftedMatrixRow<T> twisted_table_row(const ShiftedMatrix<T>& m, int R, int p) {
  const index_t r = twisted_row(m.n, R, p);
  const bool in = r >= 0 && r < m.n, coupled = r >= 0 && r + 1 < m.n;
  return {in ? m.a_diag[r] : T(1), in ? m.m_diag[r] : T(0), coupled ? m.a_off[r] : T(0),
          coupled ? m.m_off[r] : T(0)};
}

/// Where a TwistedHalf keeps its eliminated couplings c: R registers, or (Shared) shared memory,
/// c[i] at at[i·stride].
template <int R, class T, bool Shared>
struct TwistedCouplings {
  T v[R];
  PSCR_HD T& operator[](int i) { return v[i]; }
};
template <int R, class T>
struct TwistedCouplings<R, T, true> {
  T* at;
  int stride;
  PSCR_HD T& operator[](int i) { return at[i * stride]; }
};

/// One half of a system in the twisted elimination (Thomas from both ends, "burn at both ends"),
/// padded to R rows (TwistedTables): the top half padded rows 0 .. R − 1 downward, the bottom half
/// (Bottom) 2R − 1 .. R upward, row i of the half at at(i), its right-hand sides in registers with
/// compile-time indices and no branch per row (the padding's identity rows solve x = 0), its
/// eliminated couplings in C (TwistedCouplings). eliminate is Thomas's forward elimination in the
/// half's order (kim2011 eqs. 2–3, the roles of the two couplings swapped in the bottom half):
/// afterwards x_{at(i)} = d[i] − c[i] x_{at(i+1)}, c the eliminated coupling away from the half's
/// start. substitute then solves the half back from the unknown of its last row (twisted_join).
template <int R, bool Bottom, class T, class C>
struct TwistedHalf {
  T d[R];  ///< right-hand sides; d' after eliminate; x after substitute
  C c;     ///< c' (top half) or the upward elimination's a'' (bottom half)

  static constexpr int at(int i) { return Bottom ? 2 * R - 1 - i : i; }
  /// Forward elimination of the half's rows of A + s M; returns (in c_last, d_last) its last
  /// row's c and d'.
  PSCR_HD void eliminate(const TwistedTables<T>& t, T s, T& c_last, T& d_last) {
    T toward = T(0);  // coupling of row at(i) to the row before it in the half's order
    c_last = T(0);
    d_last = T(0);
#pragma unroll
    for (int i = 0; i < R; ++i) {
      constexpr int kOffStep = Bottom ? -1 : 0;
      const int p = at(i), off = p + kOffStep;  // ao[off] couples at(i) and at(i + 1)
      const T away = t.ao[off] + s * t.mo[off];
      const T inv = recip(t.ad[p] + s * t.md[p] - toward * c_last);
      c_last = away * inv;
      c[i] = c_last;
      d[i] = (d[i] - toward * d_last) * inv;
      d_last = d[i];
      toward = away;
    }
  }
  /// Back substitution from x_last, the unknown of the half's last row.
  PSCR_HD void substitute(T x_last) {
    d[R - 1] = x_last;
#pragma unroll
    for (int i = R - 2; i >= 0; --i) d[i] = d[i] - c[i] * d[i + 1];
  }
};

/// The two unknowns where the halves meet: x_top = D − C x_bottom (the top half's last row, C, D
/// from its eliminate) and x_bottom = E − A x_top (the bottom half's, A, E), solved for both.
template <class T>
PSCR_HD void twisted_join(T C, T D, T A, T E, T& x_top, T& x_bottom) {
  x_top = (D - C * E) * recip(T(1) - C * A);
  x_bottom = E - A * x_top;
}

/// Whether thomas_twisted_kernel keeps a half's eliminated couplings in shared memory
/// (TwistedCouplings): where they would take 128 registers or more (real R = 32, complex R ≥ 16),
/// which with the half's right-hand sides in registers too left nvcc short of registers (R = 32:
/// 280 bytes of stack real at 128 registers, 744 complex at 168).
template <int R, class T>
constexpr bool twisted_couplings_shared() {
  return sizeof(T) * R >= 256;
}
/// Shared-memory bytes of thomas_twisted_kernel's couplings per block (twisted_couplings_shared).
template <int R, class T>
constexpr std::size_t twisted_couplings_smem() {
  return twisted_couplings_shared<R, T>() ? sizeof(T) * R * kTwistedThreads : 0;
}
/// Blocks of thomas_twisted_kernel per SM that its launch bounds ask for: four (at most 128
/// registers a thread) where a half's right-hand sides take at most 64 registers, else two
/// (complex R = 32: 255 registers, its 128 right-hand-side registers with the complex chain's;
/// at three blocks, 168 registers and a 176-byte stack, it ran 41% slower: H200, complex
/// interleaved 64 × 2^18, 0.297 against 0.211 ms).
template <int R, class T>
constexpr int twisted_min_blocks() {
  return sizeof(T) * R <= 256 ? 4 : 2;
}

/// The block's 2·kTwistedThreads / 64 pairs of warps in thomas_twisted_kernel: warp 2q of pair q
/// takes the top halves of its 32 systems, warp 2q + 1 the bottom halves, meeting through
/// `meet` (each half's last c and d') in shared memory at named barrier `barrier` (q + 1);
/// `couplings`: the block's shared memory for them where twisted_couplings_shared.
template <int R, bool Bottom, class T>
__device__ __forceinline__ void twisted_solve(const TwistedTables<T>& tables, T s, index_t n,
                                              index_t k, bool active, const T* d, Strides ds, T* x,
                                              Strides xs, T* couplings, T (*meet)[2][kWarpLanes],
                                              int barrier, int lane) {
  using Couplings = TwistedCouplings<R, T, twisted_couplings_shared<R, T>()>;
  TwistedHalf<R, Bottom, T, Couplings> h;
  if constexpr (twisted_couplings_shared<R, T>())
    h.c = Couplings{couplings + threadIdx.x, kTwistedThreads};
#pragma unroll
  for (int i = 0; i < R; ++i) {
    const index_t r = twisted_row(n, R, h.at(i));
    h.d[i] = r >= 0 && r < n ? d[ds.at(k, r)] : T(0);
  }
  T c_last, d_last;
  h.eliminate(tables, s, c_last, d_last);
  meet[Bottom][0][lane] = c_last;
  meet[Bottom][1][lane] = d_last;
  barrier_sync(barrier, 2 * kWarpLanes);
  T x_top, x_bottom;
  twisted_join(meet[0][0][lane], meet[0][1][lane], meet[1][0][lane], meet[1][1][lane], x_top,
               x_bottom);
  h.substitute(Bottom ? x_bottom : x_top);
  if (!active) return;
#pragma unroll
  for (int i = 0; i < R; ++i) {
    const index_t r = twisted_row(n, R, h.at(i));
    if (r >= 0 && r < n) x[xs.at(k, r)] = h.d[i];
  }
}

/// The shifted form's systems of n ≤ 2R rows, their right-hand sides in registers: in each pair
/// of warps (twisted_solve), lane l of both takes system 32q + l of the block's, one its top half
/// and one its bottom half (TwistedHalf), they eliminate toward each other, meet in shared memory,
/// and substitute back, so d is read once and x written once with Thomas's arithmetic per row (no
/// spikes, which the columns method's chunks carry for their reduced system) and no workspace. The
/// block's TwistedTables in shared memory. Lanes past the batch repeat its last system and store
/// nothing. x may alias d (each lane reads its rows before it writes them). Two chains of up to 32
/// rows per system: at complex 64 × 2^18 (interleaved, H200) 0.211 ms against the columns method's
/// 0.184 at K = 16, at 32 × 2^19 0.169 against 0.178 (docs/tridiag-performance.md).
template <int R, class T>
__global__ void __launch_bounds__(kTwistedThreads, twisted_min_blocks<R, T>())
    thomas_twisted_kernel(ShiftedMatrix<T> m, const T* shifts, index_t batch, const T* d,
                          Strides ds, T* x, Strides xs) {
  constexpr int kPairs = kTwistedThreads / (2 * kWarpLanes);
  static_assert(kPairs * kWarpLanes == kTwistedBlockSystems, "the launch's systems per block");
  __shared__ T tables[4][2 * R];
  __shared__ T meet[kPairs][2][2][kWarpLanes];
  extern __shared__ __align__(16) unsigned char smem_raw[];  // twisted_couplings_smem
  T* couplings = reinterpret_cast<T*>(smem_raw);
  for (int p = static_cast<int>(threadIdx.x); p < 2 * R; p += kTwistedThreads) {
    const ShiftedMatrixRow<T> row = twisted_table_row(m, R, p);
    tables[0][p] = row.ad;
    tables[1][p] = row.md;
    tables[2][p] = row.ao;
    tables[3][p] = row.mo;
  }
  __syncthreads();
  const int lane = static_cast<int>(threadIdx.x) & (kWarpLanes - 1);
  const int warp = static_cast<int>(threadIdx.x) / kWarpLanes, pair = warp / 2;
  const index_t system = (static_cast<index_t>(blockIdx.x) * kPairs + pair) * kWarpLanes + lane;
  const bool active = system < batch;
  const index_t k = active ? system : batch - 1;
  const TwistedTables<T> t{tables[0], tables[1], tables[2], tables[3]};
  if (warp % 2 == 0)
    twisted_solve<R, false>(t, shifts[k], m.n, k, active, d, ds, x, xs, couplings, meet[pair],
                            pair + 1, lane);
  else
    twisted_solve<R, true>(t, shifts[k], m.n, k, active, d, ds, x, xs, couplings, meet[pair],
                           pair + 1, lane);
}

}  // namespace pscr::tridiag::cuda::detail
