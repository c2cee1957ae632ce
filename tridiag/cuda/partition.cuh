#pragma once
/// @file The partition method (Thomas–PCR hybrid): each thread owns a partition of at most M
/// consecutive rows [p, q]; eliminating its interior p+1..q−1 (a Schur complement, as in RPTS,
/// klein2021) leaves two rows per partition that couple only x_p and x_q with the neighbouring
/// partitions: a coarse tridiagonal system of about 2n/M rows, ordered x_{p_0}, x_{q_0},
/// x_{p_1}, ... Solving it gives every interface value; each thread then solves its interior
/// again with those values as boundary conditions (recomputation instead of storage).
///
/// Two ways to run it: partition_block_kernel holds whole systems in one block and solves the
/// coarse system there by PCR (d read once, x written once); partition_reduce_kernel and
/// partition_substitute_kernel split a long system over blocks, with the coarse system in global
/// memory in between (solved by a recursive call). Include only from .cu files.

#include "tridiag/cuda/rows.cuh"

namespace pscr::tridiag::cuda::detail {

/// Largest block of the partition kernels (128 registers per thread for the complex ones).
constexpr int kMaxPartitionThreads = 512;

/// Coarse rows of a system of n rows cut into partitions of m rows: 2 per partition, 1 for a
/// last partition of a single row. Partition j gives coarse rows 2j (its first row) and 2j + 1
/// (its last row).
__host__ __device__ inline index_t coarse_size(index_t n, int m) {
  const index_t parts = (n + m - 1) / m;
  const index_t last = n - (parts - 1) * m;
  return 2 * parts - (last == 1 ? 1 : 0);
}

/// The (up to) two coarse rows of one partition: row u couples coarse unknowns
/// (index − 1, index, index + 1) with coefficients (a[u], b[u], c[u]) and right-hand side d[u].
template <class T>
struct CoarseRows {
  T a[2], b[2], c[2], d[2];
};

/// Writes the coarse rows of a partition of m rows at index e (and e + 1 when m ≥ 2).
template <class T, class I>
PSCR_HD void store_coarse(const CoarseRows<T>& cr, int m, T* ca, T* cb, T* cc, T* cd, I e) {
  ca[e] = cr.a[0];
  cb[e] = cr.b[0];
  cc[e] = cr.c[0];
  cd[e] = cr.d[0];
  if (m >= 2) {
    ca[e + 1] = cr.a[1];
    cb[e + 1] = cr.b[1];
    cc[e + 1] = cr.c[1];
    cd[e + 1] = cr.d[1];
  }
}

/// Coarse rows of partition [p, p + m) of one system (Rows: sub/diag/sup by global row; Rhs:
/// the right-hand side by global row). Interior rows are eliminated by two sweeps that keep
/// O(1) state: downward, x_{q−1} = f + g x_p − c' x_q; upward, x_{p+1} = f̃ + h x_q − ã x_p.
/// Substituting them into rows p and q gives the Schur complement rows.
template <class T, class Rows, class Rhs>
__host__ __device__ void partition_reduce(const Rows& A, const Rhs& rhs, index_t p, int m,
                                          CoarseRows<T>& out) {
  if (m <= 2) {  // no interior: the partition's own rows (fixed indices keep out in registers)
    out.a[0] = A.sub(p);
    out.b[0] = A.diag(p);
    out.c[0] = A.sup(p);
    out.d[0] = rhs(p);
    if (m == 2) {
      out.a[1] = A.sub(p + 1);
      out.b[1] = A.diag(p + 1);
      out.c[1] = A.sup(p + 1);
      out.d[1] = rhs(p + 1);
    }
    return;
  }
  const index_t q = p + m - 1;
  // Downward: Thomas forward elimination of rows p+1..q−1, carrying the x_p column (g).
  T inv = recip(A.diag(p + 1));
  T f = rhs(p + 1) * inv;
  T g = -A.sub(p + 1) * inv;
  T cpr = A.sup(p + 1) * inv;
  for (index_t r = p + 2; r < q; ++r) {
    const T e = A.sub(r);
    inv = recip(A.diag(r) - e * cpr);
    f = (rhs(r) - e * f) * inv;
    g = -e * g * inv;
    cpr = A.sup(r) * inv;
  }
  // Upward: the same from row q−1 to p+1, carrying the x_q column (h).
  inv = recip(A.diag(q - 1));
  T fu = rhs(q - 1) * inv;
  T h = -A.sup(q - 1) * inv;
  T apr = A.sub(q - 1) * inv;
  for (index_t r = q - 2; r > p; --r) {
    const T e = A.sup(r);
    inv = recip(A.diag(r) - e * apr);
    fu = (rhs(r) - e * fu) * inv;
    h = -e * h * inv;
    apr = A.sub(r) * inv;
  }
  // Row p with x_{p+1} substituted; row q with x_{q−1} substituted.
  const T sp = A.sup(p);
  out.a[0] = A.sub(p);
  out.b[0] = A.diag(p) - sp * apr;
  out.c[0] = sp * h;
  out.d[0] = rhs(p) - sp * fu;
  const T sq = A.sub(q);
  out.a[1] = sq * g;
  out.b[1] = A.diag(q) - sq * cpr;
  out.c[1] = A.sup(q);
  out.d[1] = rhs(q) - sq * f;
}

/// Solves partition [p, p + m) (m ≤ M) given x_p = x_first and x_q = x_last: Thomas on the
/// interior with the couplings to x_p, x_q moved to the right-hand side. `v` holds d on entry
/// and x on exit (Vec: get/set by global row); the factors c' stay in registers.
template <int M, class T, class Rows, class Vec>
__host__ __device__ void partition_substitute(const Rows& A, const Vec& v, index_t p, int m,
                                              T x_first, T x_last) {
  v.set(p, x_first);
  if (m == 1) return;
  v.set(p + m - 1, x_last);
  if (m == 2) return;
  T cp[M];
  T cprev = T(0);
  T dprev = T(0);
#pragma unroll
  for (int i = 1; i < M - 1; ++i) {
    if (i < m - 1) {
      const index_t r = p + i;
      const T e = A.sub(r);
      const T su = A.sup(r);
      T rhs = v.get(r);
      if (i == 1) rhs -= e * x_first;
      if (i == m - 2) rhs -= su * x_last;
      const T ei = i == 1 ? T(0) : e;  // coupling to the previous interior row
      const T inv = recip(A.diag(r) - ei * cprev);
      cprev = i == m - 2 ? T(0) : su * inv;
      cp[i] = cprev;
      dprev = (rhs - ei * dprev) * inv;
      v.set(r, dprev);
    }
  }
  T xn = T(0);
#pragma unroll
  for (int i = M - 2; i >= 1; --i) {
    if (i < m - 1) {
      const index_t r = p + i;
      xn = v.get(r) - cp[i] * xn;
      v.set(r, xn);
    }
  }
}

/// One PCR step (kim2011 eqs. 5–6) for row i of a system of nc rows whose row i is element e
/// of a, b, c, d: eliminates the couplings to rows i − s and i + s (absent rows count as
/// identity rows) and returns the new row in (na, nb, nn, nd).
template <class T>
PSCR_HD void pcr_row(const T* a, const T* b, const T* c, const T* d, int e, int i, int s, int nc,
                     T& na, T& nb, T& nn, T& nd) {
  T ai = a[e], bi = b[e], ci = c[e], di = d[e];
  if (i >= s) {
    const int l = e - s;
    const T k1 = ai * recip(b[l]);
    bi -= c[l] * k1;
    di -= d[l] * k1;
    ai = -a[l] * k1;
  } else {
    ai = T(0);
  }
  if (i + s < nc) {
    const int h = e + s;
    const T k2 = ci * recip(b[h]);
    bi -= a[h] * k2;
    di -= d[h] * k2;
    ci = -c[h] * k2;
  } else {
    ci = T(0);
  }
  na = ai;
  nb = bi;
  nn = ci;
  nd = di;
}

/// PCR on gv systems of nc rows in shared memory, system g at rows [g·stride, g·stride + nc) of
/// a, b, c, d; after ceil(log2 nc) steps every row is decoupled and x = d / b is left in d.
/// Every thread of the block calls it; each handles at most 2 rows per step
/// (gv·stride ≤ 2·blockDim, ensured by the host plan), staged in registers between barriers.
template <class T>
__device__ void pcr_shared(T* a, T* b, T* c, T* d, int gv, int stride, int nc) {
  const int total = gv * stride;
  for (int s = 1; s < nc; s <<= 1) {
    T na[2], nb[2], nn[2], nd[2];
#pragma unroll
    for (int u = 0; u < 2; ++u) {
      const int e = threadIdx.x + u * blockDim.x;
      const int i = e % stride;
      if (e < total && i < nc) pcr_row(a, b, c, d, e, i, s, nc, na[u], nb[u], nn[u], nd[u]);
    }
    __syncthreads();
#pragma unroll
    for (int u = 0; u < 2; ++u) {
      const int e = threadIdx.x + u * blockDim.x;
      if (e < total && e % stride < nc) {
        a[e] = na[u];
        b[e] = nb[u];
        c[e] = nn[u];
        d[e] = nd[u];
      }
    }
    __syncthreads();
  }
  for (int e = threadIdx.x; e < total; e += blockDim.x)
    if (e % stride < nc) d[e] = d[e] * recip(b[e]);
  __syncthreads();
}

/// Whole systems in one block: G systems of n rows, P = ceil(n/M) threads per system (thread
/// t: system t / P, partition t % P), blockDim ≥ G·P. Shared memory: the d tile (becomes x),
/// Form::tiles coefficient tiles, Form::shared_tiles tables of one padded system, then the
/// coarse a, b, c, d (G·2P each).
template <int M, class T, class Form>
__global__ void __launch_bounds__(kMaxPartitionThreads)
    partition_block_kernel(Form form, index_t n, index_t batch, int G, int P, const T* d,
                           Strides ds, bool d_row_fastest, T* x, Strides xs, bool x_row_fastest) {
  extern __shared__ __align__(16) unsigned char smem_raw[];
  T* smem = reinterpret_cast<T*>(smem_raw);
  using Index = PaddedIndex<M>;
  const int ni = static_cast<int>(n);
  const Index idx{Index::system_stride(ni)};
  const int tile = G * idx.stride;
  T* dt = smem;
  T* coef = dt + tile;
  const int cs = 2 * P;  // coarse stride per system
  T* ca = coef + Form::tiles * tile + Form::shared_tiles * idx.stride;
  T* cb = ca + G * cs;
  T* cc = cb + G * cs;
  T* cd = cc + G * cs;

  const index_t k0 = static_cast<index_t>(blockIdx.x) * G;
  const int gv = static_cast<int>(min(static_cast<index_t>(G), batch - k0));
  load_tile(d, ds, k0, gv, 0, ni, d_row_fastest, dt, idx);
  form.load(ds, k0, gv, 0, ni, d_row_fastest, coef, idx, tile);
  __syncthreads();

  const int g = threadIdx.x / P;
  const int j = threadIdx.x - g * P;
  const bool active = g < gv;
  const index_t p = static_cast<index_t>(j) * M;
  const int m = min(M, ni - j * M);
  const int e = g * cs + 2 * j;
  if (active) {
    const auto rows = form.rows(k0 + g, g, 0, coef, idx, tile);
    const TileVector<T, Index> rhs{dt, idx, g, 0};
    CoarseRows<T> cr;
    partition_reduce(rows, rhs, p, m, cr);
    store_coarse(cr, m, ca, cb, cc, cd, e);
  }
  __syncthreads();
  pcr_shared(ca, cb, cc, cd, gv, cs, static_cast<int>(coarse_size(n, M)));
  if (active) {
    const auto rows = form.rows(k0 + g, g, 0, coef, idx, tile);
    const TileVector<T, Index> v{dt, idx, g, 0};
    partition_substitute<M>(rows, v, p, m, cd[e], m >= 2 ? cd[e + 1] : T(0));
  }
  __syncthreads();
  store_tile(x, xs, k0, gv, 0, ni, x_row_fastest, dt, idx);
}

/// The tile of a block of the long-system kernels (partition_reduce_kernel,
/// partition_substitute_kernel): block b takes systems [k0, k0 + G) (k0 = G·(b / chunks)) and
/// rows [r0, r0 + Pc·M) (r0 = Pc·M·(b % chunks)), gv systems and lv rows of them where the batch
/// or n ends first; thread t: system g = t / Pc, partition j = t % Pc, its m rows from row p
/// (`owns`: any). Its d in dt, the form's coefficient tiles after it (coef).
template <int M, class T>
struct PartitionBlock {
  using Index = PaddedIndex<M>;
  Index idx;
  int tile;
  T* dt;
  T* coef;
  index_t k0, r0;
  int gv, lv, g, j;
  index_t p;
  int m;

  __device__ PartitionBlock(unsigned char* smem, index_t n, index_t batch, int G, int Pc,
                            index_t chunks)
      : idx{Index::system_stride(Pc * M)},
        tile(G * idx.stride),
        dt(reinterpret_cast<T*>(smem)),
        coef(dt + tile),
        k0(blockIdx.x / chunks * G),
        r0((blockIdx.x - blockIdx.x / chunks * chunks) * Pc * M),
        gv(static_cast<int>(min(static_cast<index_t>(G), batch - k0))),
        lv(static_cast<int>(min(static_cast<index_t>(Pc * M), n - r0))),
        g(static_cast<int>(threadIdx.x) / Pc),
        j(static_cast<int>(threadIdx.x) - g * Pc),
        p(r0 + static_cast<index_t>(j) * M),
        m(min(M, lv - j * M)) {}
  /// Whether the thread has a partition: a system of the block and rows before n.
  __device__ bool owns() const { return g < gv && j * M < lv; }
  /// The block's d and coefficients into the tiles.
  template <class Form>
  __device__ void load(const Form& form, const T* d, Strides ds, bool d_row_fastest) const {
    load_tile(d, ds, k0, gv, r0, lv, d_row_fastest, dt, idx);
    form.load(ds, k0, gv, r0, lv, d_row_fastest, coef, idx, tile);
    __syncthreads();
  }
  /// The rows of the thread's system (the form's accessor on the tiles).
  template <class Form>
  __device__ auto rows(const Form& form) const {
    return form.rows(k0 + g, g, r0, coef, idx, tile);
  }
  /// Where the thread's two coarse rows go in ca..cd (system k at k·nc).
  __device__ index_t coarse_index(index_t nc) const { return (k0 + g) * nc + 2 * (p / M); }
};

/// Long systems over several blocks, step 1 (PartitionBlock): each thread reduces its partition
/// and writes its coarse rows to ca..cd, system k at k·nc (contiguous).
template <int M, class T, class Form>
__global__ void __launch_bounds__(kMaxPartitionThreads)
    partition_reduce_kernel(Form form, index_t n, index_t batch, int G, int Pc, index_t chunks,
                            const T* d, Strides ds, bool d_row_fastest, T* ca, T* cb, T* cc, T* cd,
                            index_t nc) {
  extern __shared__ __align__(16) unsigned char smem_raw[];
  const PartitionBlock<M, T> b(smem_raw, n, batch, G, Pc, chunks);
  b.load(form, d, ds, d_row_fastest);
  if (!b.owns()) return;
  const TileVector<T, typename PartitionBlock<M, T>::Index> rhs{b.dt, b.idx, b.g, b.r0};
  CoarseRows<T> cr;
  partition_reduce(b.rows(form), rhs, b.p, b.m, cr);
  store_coarse(cr, b.m, ca, cb, cc, cd, b.coarse_index(nc));
}

/// Long systems, step 3 (after the coarse solve left the interface values in xc, system k at
/// k·nc): the blocks of step 1 solve their partitions again and write x.
template <int M, class T, class Form>
__global__ void __launch_bounds__(kMaxPartitionThreads)
    partition_substitute_kernel(Form form, index_t n, index_t batch, int G, int Pc, index_t chunks,
                                const T* d, Strides ds, bool d_row_fastest, T* x, Strides xs,
                                bool x_row_fastest, const T* xc, index_t nc) {
  extern __shared__ __align__(16) unsigned char smem_raw[];
  const PartitionBlock<M, T> b(smem_raw, n, batch, G, Pc, chunks);
  b.load(form, d, ds, d_row_fastest);
  if (b.owns()) {
    const TileVector<T, typename PartitionBlock<M, T>::Index> v{b.dt, b.idx, b.g, b.r0};
    const index_t e = b.coarse_index(nc);
    partition_substitute<M>(b.rows(form), v, b.p, b.m, xc[e], b.m >= 2 ? xc[e + 1] : T(0));
  }
  __syncthreads();
  store_tile(x, xs, b.k0, b.gv, b.r0, b.lv, x_row_fastest, b.dt, b.idx);
}

}  // namespace pscr::tridiag::cuda::detail
