#pragma once
/// @file Device building blocks shared by the tridiagonal kernels: strided batch addressing,
/// shared-memory tiles loaded and stored in the coalesced order of a layout, and the row
/// accessors of the shifted and general forms. Include only from .cu files.

#include <cstdint>

#include "common/scalar.hpp"
#include "tridiag/cuda/complex.cuh"

/// Host and device: the per-row arithmetic is also run on the CPU by the emulation test
/// (tests/tridiag/test_cuda_emulation.cu), which checks the partition method's algebra without a
/// GPU.
#define PSCR_HD __host__ __device__ __forceinline__

namespace pscr::tridiag::cuda::detail {

/// Element (system k, row r) of a batch array is at k·system + r·row (tridiag/layout.hpp).
struct Strides {
  index_t system;
  index_t row;
  PSCR_HD index_t at(index_t k, index_t r) const { return k * system + r * row; }
};

/// |re| + |im|: the pivot-size measure of the reference (LAPACK's cabs1).
PSCR_HD double abs1(double v) {
  return fabs(v);
}
PSCR_HD double abs1(const Complex& z) {
  return fabs(z.re) + fabs(z.im);
}

/// Index of (system g, row i) in a shared-memory tile of systems of `stride` elements, with one
/// padding element after every `Period` rows so that threads walking partitions of Period rows
/// hit distinct banks.
template <int Period>
struct PaddedIndex {
  int stride;
  PSCR_HD int operator()(int g, int i) const { return g * stride + i + i / Period; }
  /// Elements of one system of `rows` rows.
  __host__ __device__ static int system_stride(int rows) { return rows + rows / Period + 1; }
};

/// Index of (system g, row i) in a tile of systems `stride` elements apart (an odd stride keeps
/// threads that walk their own system on distinct banks).
struct StrideIndex {
  int stride;
  PSCR_HD int operator()(int g, int i) const { return g * stride + i; }
};

/// The right-hand side / solution of tile system g (tile starting at global row r0), addressed
/// by global row: get(r) reads d before the solve, set(r, v) writes x in its place.
template <class T, class Index>
struct TileVector {
  T* data;
  Index idx;
  int g;
  index_t r0;
  PSCR_HD T get(index_t r) const { return data[idx(g, static_cast<int>(r - r0))]; }
  PSCR_HD void set(index_t r, const T& v) const { data[idx(g, static_cast<int>(r - r0))] = v; }
  PSCR_HD T operator()(index_t r) const { return get(r); }
};

/// Elements each thread keeps in flight in load_tile: the loads of a batch are all issued before
/// the first is used, so a block waits one memory latency per batch, not one per element.
constexpr int kLoadBatch = 8;

/// Tile position of element e of a copy: consecutive e walk rows of a system when
/// `row_fastest`, systems of a row otherwise.
struct TilePos {
  int g, i;
};
PSCR_HD TilePos tile_pos(int e, int gv, int lv, bool row_fastest) {
  if (row_fastest) {
    const int g = e / lv;
    return {g, e - g * lv};
  }
  const int i = e / gv;
  return {e - i * gv, i};
}

/// Copies rows [r0, r0 + lv) of systems [k0, k0 + gv) between a strided global array and a tile.
/// Consecutive threads take consecutive rows of a system when `row_fastest` (contiguous layouts)
/// and consecutive systems of a row otherwise (interleaved layouts): coalesced either way.
/// Loads go in batches of kLoadBatch per thread, all issued before any is stored. No
/// __restrict__: p-Thomas reloads x, which the same block wrote earlier in the kernel.
template <class T, class Index>
__device__ void load_tile(const T* src, Strides s, index_t k0, int gv, index_t r0, int lv,
                          bool row_fastest, T* tile, Index idx) {
  const int total = gv * lv;
  const int step = blockDim.x;
  for (int base = threadIdx.x; base < total; base += kLoadBatch * step) {
    T v[kLoadBatch];
    int at[kLoadBatch];
#pragma unroll
    for (int u = 0; u < kLoadBatch; ++u) {
      const int e = base + u * step;
      at[u] = -1;
      if (e < total) {
        const TilePos t = tile_pos(e, gv, lv, row_fastest);
        at[u] = idx(t.g, t.i);
        v[u] = src[s.at(k0 + t.g, r0 + t.i)];
      }
    }
#pragma unroll
    for (int u = 0; u < kLoadBatch; ++u)
      if (at[u] >= 0) tile[at[u]] = v[u];
  }
}

template <class T, class Index>
__device__ void store_tile(T* __restrict__ dst, Strides s, index_t k0, int gv, index_t r0, int lv,
                           bool row_fastest, const T* tile, Index idx) {
  const int total = gv * lv;
  for (int e = threadIdx.x; e < total; e += blockDim.x) {
    const TilePos t = tile_pos(e, gv, lv, row_fastest);
    dst[s.at(k0 + t.g, r0 + t.i)] = tile[idx(t.g, t.i)];
  }
}

/// One element from global to shared memory, asynchronously (cp.async: 8 bytes through L1,
/// 16 bytes around it); the first `bytes` bytes are copied (0, 8 or 16), the rest zero-filled.
/// A 16-byte element of fewer bytes (an array's last 8 bytes alone in their 16-byte piece, or
/// none) goes as two 8-byte copies, the second zero-filling, so that nothing past `src + bytes` is
/// read: a 16-byte cp.async with a source size of 8 reads no more, but compute-sanitizer's
/// memcheck counts its copy size and reports the 8 bytes past an array's end
/// (docs/tridiag-performance.md, "The GPU code under compute-sanitizer").
/// copy_async_commit closes a group of the calling thread's copies, copy_async_wait waits for all
/// of them (committed or not) and makes them visible to that thread.
template <class T>
__device__ __forceinline__ void copy_async(T* dst, const T* src, unsigned bytes = sizeof(T)) {
  static_assert(sizeof(T) == 8 || sizeof(T) == 16, "cp.async copies 8 or 16 bytes");
  const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(dst));
  if constexpr (sizeof(T) == 8) {
    asm volatile("cp.async.ca.shared.global [%0], [%1], 8, %2;\n" ::"r"(s), "l"(src), "r"(bytes)
                 : "memory");
  } else if (bytes == 16) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, 16;\n" ::"r"(s), "l"(src) : "memory");
  } else {
    asm volatile("cp.async.ca.shared.global [%0], [%1], 8, %2;\n" ::"r"(s), "l"(src), "r"(bytes)
                 : "memory");
    asm volatile("cp.async.ca.shared.global [%0], [%1], 8, 0;\n" ::"r"(s + 8), "l"(src) : "memory");
  }
}
__device__ __forceinline__ void copy_async_commit() {
  asm volatile("cp.async.commit_group;\n" ::: "memory");
}
__device__ __forceinline__ void copy_async_wait() {
  asm volatile("cp.async.wait_all;\n" ::: "memory");
}
/// Waits until at most N of the calling thread's committed groups of copies are pending.
template <int N>
__device__ __forceinline__ void copy_async_wait_pending() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
}

/// mbarriers and bulk copies (sm_90 PTX; the callers run on compute capability 9.0 and later).
/// An mbarrier's phase completes when its arrivals are in and the bytes it expects have come (the
/// copies to shared memory count theirs on it); a thread's bulk copies to global memory complete
/// in groups (bulk_commit), and shared memory they read may be written again once bulk_wait_read
/// says they have read it. Shared memory written by threads reaches a bulk copy after
/// bulk_fence_writes and a barrier. Where compiled for an older GPU, each traps (the host takes
/// them only on compute capability 9.0 and later).
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
#define PSCR_ASM_SM90(...) __trap()
#else
#define PSCR_ASM_SM90(...) asm volatile(__VA_ARGS__)
#endif
/// Waits until the grid launched before this one in its stream has finished and its writes are
/// visible (griddepcontrol.wait), for a kernel launched while that grid may still run
/// (launch_after_previous, solve.cu: programmatic stream serialization); returns at once in a
/// kernel launched the usual way. Reads before it may only touch what earlier grids wrote.
__device__ __forceinline__ void wait_previous_grid() {
  PSCR_ASM_SM90("griddepcontrol.wait;" ::: "memory");
}
__device__ __forceinline__ unsigned shared_address(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}
__device__ __forceinline__ void mbarrier_init(unsigned bar, unsigned count) {
  PSCR_ASM_SM90("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(count) : "memory");
}
/// Makes the thread's mbarrier_init visible to the block's (and cluster's) threads and copies; a
/// barrier follows before any of them uses the mbarriers.
__device__ __forceinline__ void mbarrier_init_fence() {
  PSCR_ASM_SM90("fence.mbarrier_init.release.cluster;" ::: "memory");
}
/// Arrives at the mbarrier and expects `bytes` more bytes before its phase completes.
__device__ __forceinline__ void mbarrier_expect(unsigned bar, unsigned bytes) {
  PSCR_ASM_SM90("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(bytes)
                : "memory");
}
/// Waits until the mbarrier's phase of parity `phase` has completed.
__device__ __forceinline__ void mbarrier_wait(unsigned bar, unsigned phase) {
  unsigned done = 0;
  do {
    PSCR_ASM_SM90(
        "{\n.reg .pred p;\nmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
        "selp.u32 %0, 1, 0, p;\n}"
        : "=r"(done)
        : "r"(bar), "r"(phase)
        : "memory");
  } while (done == 0);
}
/// `bytes` (a multiple of 16; both addresses 16-byte aligned) from global to shared memory, counted
/// on the mbarrier at `bar`.
__device__ __forceinline__ void bulk_copy_in(void* dst, const void* src, unsigned bytes,
                                             unsigned bar) {
  PSCR_ASM_SM90(
      "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::
          "r"(shared_address(dst)),
      "l"(src), "r"(bytes), "r"(bar)
      : "memory");
}
/// `bytes` (a multiple of 16; both addresses 16-byte aligned) from shared to global memory, in the
/// thread's current group.
__device__ __forceinline__ void bulk_copy_out(void* dst, const void* src, unsigned bytes) {
  PSCR_ASM_SM90("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(dst),
                "r"(shared_address(src)), "r"(bytes)
                : "memory");
}
__device__ __forceinline__ void bulk_commit() {
  PSCR_ASM_SM90("cp.async.bulk.commit_group;" ::: "memory");
}
/// Waits until the thread's committed bulk copies out have read their shared memory.
__device__ __forceinline__ void bulk_wait_read() {
  PSCR_ASM_SM90("cp.async.bulk.wait_group.read 0;" ::: "memory");
}
/// Waits until the thread's committed bulk copies out are complete.
__device__ __forceinline__ void bulk_wait() {
  PSCR_ASM_SM90("cp.async.bulk.wait_group 0;" ::: "memory");
}
/// Orders the thread's writes to shared memory before the bulk copies that read it.
__device__ __forceinline__ void bulk_fence_writes() {
  PSCR_ASM_SM90("fence.proxy.async.shared::cta;" ::: "memory");
}

/// Whether `p` is 16-byte aligned, where a 16-byte copy_async may read or write.
inline bool aligned16(const void* p) {
  return reinterpret_cast<std::uintptr_t>(p) % 16 == 0;
}

/// Whether the rows of d (strides `s`) are 16-byte pieces of two adjacent systems wherever an even
/// system starts: systems side by side, an even row stride, d 16-byte aligned (8-byte scalars).
template <class T>
bool paired_systems(const T* d, Strides s) {
  return sizeof(T) == 8 && s.system == 1 && s.row % 2 == 0 && aligned16(d);
}

/// The shared matrices of the shifted form in device memory (A, M: diag n, off n−1).
template <class T>
struct ShiftedMatrix {
  const T* a_diag;
  const T* a_off;
  const T* m_diag;
  const T* m_off;
  index_t n;
  /// Whether the four tables are 16-byte aligned (copied in 16-byte pieces from a row pair on).
  bool aligned() const {
    return aligned16(a_diag) && aligned16(a_off) && aligned16(m_diag) && aligned16(m_off);
  }
};

/// Row r of A and M as the kernels' tables hold it: the diagonals and the couplings to row r − 1
/// (zero at r = 0); an identity row (diagonal 1, no couplings) at and past n, so that lanes and
/// tiles padded past n solve x = 0 there without a bounds check per row.
template <class T>
struct ShiftedMatrixRow {
  T ad, md, ao, mo;
};
template <class T>
PSCR_HD ShiftedMatrixRow<T> shifted_matrix_row(const ShiftedMatrix<T>& m, index_t r) {
  const bool in = r < m.n;
  const bool coupled = r >= 1 && r <= m.n - 1;  // off[r − 1] couples rows r − 1 and r
  return {in ? m.a_diag[r] : T(1), in ? m.m_diag[r] : T(0), coupled ? m.a_off[r - 1] : T(0),
          coupled ? m.m_off[r - 1] : T(0)};
}

/// Rows of A + s M, formed on the fly: row r is sub(r) x_{r−1} + diag(r) x_r + sup(r) x_{r+1},
/// with sub(0) = sup(n−1) = 0. Global row indices.
template <class T>
struct ShiftedRows {
  static constexpr bool symmetric = true;
  ShiftedMatrix<T> m;
  T s;
  PSCR_HD T sub(index_t r) const { return r > 0 ? m.a_off[r - 1] + s * m.m_off[r - 1] : T(0); }
  PSCR_HD T diag(index_t r) const { return m.a_diag[r] + s * m.m_diag[r]; }
  PSCR_HD T sup(index_t r) const { return r + 1 < m.n ? m.a_off[r] + s * m.m_off[r] : T(0); }
};

/// Rows of one explicit system held in shared-memory tiles a, b, c covering rows [r0, r0 + L) of
/// system g; global row indices, sub(0) = sup(n−1) = 0 (those entries are never read).
template <class T, class Index>
struct TileRows {
  const T* a;
  const T* b;
  const T* c;
  Index idx;
  int g;
  index_t r0;
  index_t n;
  PSCR_HD T sub(index_t r) const { return r > 0 ? a[idx(g, static_cast<int>(r - r0))] : T(0); }
  PSCR_HD T diag(index_t r) const { return b[idx(g, static_cast<int>(r - r0))]; }
  PSCR_HD T sup(index_t r) const { return r + 1 < n ? c[idx(g, static_cast<int>(r - r0))] : T(0); }
};

/// Rows of general system k read from global memory (layout of d) each time they are needed (the
/// segment kernel's lanes read theirs twice, the second time from cache; thomas_direct_kernel
/// once).
template <class T>
struct GeneralGlobalRows {
  const T* a;
  const T* b;
  const T* c;
  Strides s;
  index_t k;
  index_t n;
  PSCR_HD T sub(index_t r) const { return r > 0 ? a[s.at(k, r)] : T(0); }
  PSCR_HD T diag(index_t r) const { return b[s.at(k, r)]; }
  PSCR_HD T sup(index_t r) const { return r + 1 < n ? c[s.at(k, r)] : T(0); }
};

/// A launch's condition, read on the device as the kernel starts: its blocks return at once
/// unless the count is nonzero (no count: they always run). The window method's exact fallback is
/// gated on the count of warps whose window kernel found a row past the bound (WindowWatch), so
/// that the call neither waits nor launches anything the host decides (solve.cu, solve_device).
/// Kernels that take one: the sweep, segment and columns (their lanes passes too) and block
/// kernels, the ones a fallback of the window method launches (gateable_method).
struct Gate {
  const unsigned* count = nullptr;
  __device__ bool closed() const { return count != nullptr && *count == 0; }
};

/// The shifted form as seen by the tiled kernels: nothing to stage, rows formed from A, M, s_k.
template <class T>
struct ShiftedForm {
  ShiftedMatrix<T> m;
  const T* shifts;
  Gate gate;  ///< where its kernels run (Gate: the sweep, segment, block and columns kernels read
              ///< it)

  static constexpr int tiles = 0;         ///< per-system coefficient tiles in shared memory
  static constexpr int shared_tiles = 0;  ///< tables shared by the block's systems
  template <class Index>
  __device__ void load(Strides, index_t, int, index_t, int, bool, T*, Index, int) const {}
  template <class Index>
  __device__ ShiftedRows<T> rows(index_t k, int, index_t, const T*, Index, int) const {
    return global_rows(k, {});
  }
  /// Rows of system k formed from global memory (no tiles): A, M and s_k.
  PSCR_HD ShiftedRows<T> global_rows(index_t k, Strides) const { return {m, shifts[k]}; }
};

/// The general form as seen by the tiled kernels: a, b, c (layout of d) staged in three
/// shared-memory tiles of `tile_size` elements each, next to d's tile.
template <class T>
struct GeneralForm {
  const T* a;
  const T* b;
  const T* c;
  index_t n;
  Gate gate;  ///< where its kernels run (Gate: the segment, block and columns kernels read it)

  static constexpr int tiles = 3;
  static constexpr int shared_tiles = 0;
  /// Loads rows [r0, r0 + lv) of systems [k0, k0 + gv) of a, b, c into coef[0, 3·tile_size).
  template <class Index>
  __device__ void load(Strides s, index_t k0, int gv, index_t r0, int lv, bool row_fastest, T* coef,
                       Index idx, int tile_size) const {
    load_tile(a, s, k0, gv, r0, lv, row_fastest, coef, idx);
    load_tile(b, s, k0, gv, r0, lv, row_fastest, coef + tile_size, idx);
    load_tile(c, s, k0, gv, r0, lv, row_fastest, coef + 2 * tile_size, idx);
  }
  /// Rows of tile system g (whose tile starts at global row r0).
  template <class Index>
  __device__ TileRows<T, Index> rows(index_t, int g, index_t r0, const T* coef, Index idx,
                                     int tile_size) const {
    return {coef, coef + tile_size, coef + 2 * tile_size, idx, g, r0, n};
  }
  /// Rows of system k read from global memory (no tiles), a, b, c in the layout `s` of d.
  PSCR_HD GeneralGlobalRows<T> global_rows(index_t k, Strides s) const {
    return {a, b, c, s, k, n};
  }
};

/// Rows of A + s M from copies of A and M in shared memory covering the rows of one block:
/// diagonals at local index i = r − r0 (rows r0..r0+L−1), off-diagonals at i = r − r0 + 1
/// (off[r0 − 1 .. r0 + L − 1], zero where absent). Index: one padded system of the block's tile.
template <class T, class Index>
struct StagedShiftedRows {
  static constexpr bool symmetric = true;
  const T* ad;
  const T* ao;
  const T* md;
  const T* mo;
  Index idx;
  T s;
  index_t r0;
  index_t n;
  PSCR_HD T off(index_t i) const {
    const int j = idx(0, static_cast<int>(i));
    return ao[j] + s * mo[j];
  }
  PSCR_HD T sub(index_t r) const { return r > 0 ? off(r - r0) : T(0); }
  PSCR_HD T diag(index_t r) const {
    const int j = idx(0, static_cast<int>(r - r0));
    return ad[j] + s * md[j];
  }
  PSCR_HD T sup(index_t r) const { return r + 1 < n ? off(r - r0 + 1) : T(0); }
};

/// The shifted form with the block's rows of A and M staged once in shared memory, shared by
/// all its systems: the threads of a partition kernel walk rows M apart, which from global
/// memory touches a cache line per thread and load; from shared memory it is one pass.
/// Four tables (A diag, A off, M diag, M off) of one padded tile system each.
template <class T>
struct StagedShiftedForm {
  ShiftedMatrix<T> m;
  const T* shifts;

  static constexpr int tiles = 0;
  static constexpr int shared_tiles = 4;
  /// Loads the diagonals of rows [r0, r0 + lv) and the off-diagonals [r0 − 1, r0 + lv).
  template <class Index>
  __device__ void load(Strides, index_t, int, index_t r0, int lv, bool, T* coef, Index idx,
                       int) const {
    const int stride = idx.stride;
    for (int i = threadIdx.x; i <= lv; i += blockDim.x) {
      const int j = idx(0, i);
      const ShiftedMatrixRow<T> e = shifted_matrix_row(m, r0 + i);
      if (i < lv) {
        coef[j] = e.ad;
        coef[2 * stride + j] = e.md;
      }
      coef[stride + j] = e.ao;
      coef[3 * stride + j] = e.mo;
    }
  }
  template <class Index>
  __device__ StagedShiftedRows<T, Index> rows(index_t k, int, index_t r0, const T* coef, Index idx,
                                              int) const {
    const int stride = idx.stride;
    return {coef, coef + stride, coef + 2 * stride, coef + 3 * stride, idx, shifts[k], r0, m.n};
  }
};

}  // namespace pscr::tridiag::cuda::detail
