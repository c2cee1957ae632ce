#pragma once
/// @file The segment method: systems cut into segments of width·K rows (width = 32 lanes, or
/// fewer for short systems, several segments per warp then), K consecutive rows per lane kept in
/// registers from load to store. Warps work independently (no block barriers), so loads,
/// arithmetic and stores of the many warps of an SM overlap. A warp keeps its segment while it
/// walks through the systems, so the shifted form's rows of A and M are loaded once per warp
/// into its slice of shared memory, not once per system.
///
/// Per segment, the register partition of the warp method (warp.cuh, RPTS's Schur complement,
/// klein2021): lane_reduce leaves two rows per lane, a 64-row reduced system solved with
/// shuffles. A system of one segment is solved in one pass (SegmentPass::whole). Longer systems
/// take three steps, as SPIKE does:
///  - reduce: the lanes' reduced rows are condensed pairwise in a tree over the warp (block
///    cyclic reduction: warp_condense), eliminating every unknown of the segment but its first
///    and last. That leaves the segment's two coarse rows, F_j (row 2j of the coarse system) and
///    L_j (row 2j + 1), coupled only to the neighbouring segments' L_{j−1} and F_{j+1}: a
///    tridiagonal system of 2·segments rows per system, written to global memory (a, b, c, d
///    arrays, system k at k·2·segments). Five steps of 8 shuffled values, where solving the 64
///    reduced rows for the spikes took six steps of 12 (docs/tridiag-performance.md). Shifted
///    systems with aligned contiguous rows, in batches whose segments keep enough warps busy,
///    take other kernels for this pass and the substitute pass, one lane per segment
///    (segment_lanes.cuh).
///  - the coarse systems are solved by the caller (any method, in place in d).
///  - substitute: each warp reads d again, reduces again, and solves its 64 reduced rows with
///    the first and last fixed to the coarse solution; the lanes substitute and write x.
/// d is read once (one segment) or twice, x written once. Rows at or past n are identity rows.
/// The block pass (segment_block_kernel, Method::block) does all three steps in one block per
/// system of 2 to 16 segments, d read once: each warp solves its reduced rows for its spikes,
/// the coarse rows go through shared memory, every warp solves the coarse system.
/// The per-lane register views are host and device code: tests/tridiag/test_cuda_emulation.cu
/// runs the same steps on the CPU. Include only from .cu files.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "tridiag/cuda/warp.cuh"

namespace pscr::tridiag::cuda::detail {

/// Threads per block of the segment kernel (independent warps).
constexpr int kSegmentThreads = 128;

/// What one launch of the segment kernel does (see the file comment).
enum class SegmentPass { whole, reduce, substitute };

/// Lanes per segment for systems of n rows and K rows per lane: the fewest (a power of two) that
/// cover n, at most a warp. Narrower segments mean fewer PCR steps on the reduced rows; a warp
/// then solves 32 / width systems at once.
__host__ __device__ inline int segment_width(index_t n, int K) {
  int width = 1;
  while (width < kWarpLanes && static_cast<index_t>(width) * K < n) width *= 2;
  return width;
}

/// Segments of width·K rows in a system of n rows.
__host__ __device__ inline index_t segment_count(index_t n, int K) {
  const index_t rows = static_cast<index_t>(segment_width(n, K)) * K;
  return (n + rows - 1) / rows;
}

/// How the warps of a segment launch share the (system, segment) units: `warps` warps of
/// `groups` groups (32 / segment width), each group one unit at a time.
///  - cyclic (chunk = 0): the units in system-major order (u = k·segments + segment), group g of
///    warp w takes units w·G + g, + warps·G, …; with warps·G a multiple of the segment count, a
///    group keeps its segment (and the segment's rows of A and M) from one unit to the next.
///  - blocked (chunk > 0), where a warp keeps per-segment data (the shifted form's rows of A and
///    M) and there are more segments than groups: the units in segment-major order
///    (u = segment·batch + k), warp w takes units [w·chunk, (w + 1)·chunk), so that it walks the
///    systems of one segment before the next, loading that segment's rows of A and M once, not
///    once per system. Measured on an H100 (tridiag_bench, shifted form, 2^20 rows × 16, same
///    run): real K = 8 0.52 → 0.25 ms, complex K = 4 1.05 → 0.68 ms; the general form, which
///    keeps nothing per segment, was 8% slower in this order and keeps the cyclic one.
struct SegmentWalk {
  index_t warps = 0;
  index_t chunk = 0;
};

/// The walk of `units` = batch·segments units over at most `resident` warps of `groups` groups;
/// `segment_data`: whether a warp keeps data per segment (then blocked where needed).
inline SegmentWalk segment_walk(index_t batch, index_t segments, index_t groups, index_t resident,
                                bool segment_data) {
  const index_t units = batch * segments;
  index_t warps = std::min((units + groups - 1) / groups, resident);
  if (segments > warps * groups) {
    if (!segment_data) return {warps, 0};
    const index_t chunk = (units + warps - 1) / warps;
    return {(units + chunk - 1) / chunk, chunk};
  }
  const index_t g = warps * groups / segments * segments;
  if (g % groups == 0) warps = g / groups;
  return {warps, 0};
}

/// One group's units of a SegmentWalk, in the order it takes them. The loop over `base` is
/// uniform over the warp (shuffles need every lane): `base` runs over the warp's units, the group's
/// unit is base + group, absent (active() false) past the warp's last unit.
class GroupUnits {
 public:
  PSCR_HD GroupUnits(const SegmentWalk& walk, index_t batch, index_t segments, index_t warp,
                     index_t groups, index_t group)
      : group_(group),
        segment_fastest_(walk.chunk == 0),
        fast_n_(segment_fastest_ ? segments : batch) {
    const index_t units = batch * segments;
    base = segment_fastest_ ? warp * groups : warp * walk.chunk;
    end = segment_fastest_ ? units : std::min(base + walk.chunk, units);
    step = segment_fastest_ ? walk.warps * groups : groups;
    const index_t u = base + group;
    fast_ = u % fast_n_;
    slow_ = u / fast_n_;
    fast_step_ = step % fast_n_;
    slow_step_ = step / fast_n_;
  }
  PSCR_HD bool more() const { return base < end; }
  PSCR_HD bool active() const { return base + group_ < end; }
  PSCR_HD index_t segment() const { return segment_fastest_ ? fast_ : slow_; }
  PSCR_HD index_t system() const { return segment_fastest_ ? slow_ : fast_; }
  PSCR_HD void next() {
    base += step;
    fast_ += fast_step_;
    slow_ += slow_step_;
    if (fast_ >= fast_n_) {
      fast_ -= fast_n_;
      ++slow_;
    }
  }

  index_t base, end, step;

 private:
  index_t group_;
  bool segment_fastest_;
  index_t fast_n_, fast_, slow_, fast_step_, slow_step_;
};

/// The lane's K values of one vector (d on entry, x after lane_resolve) in registers,
/// addressed by global row (rows [p, p + K)). Padded: rows past n load as zero, and writing
/// them is harmless (store_lane stores rows below n only).
template <class T>
struct LaneVector {
  static constexpr bool padded = true;
  T* v;
  index_t p;
  PSCR_HD T get(index_t r) const { return v[r - p]; }
  PSCR_HD void set(index_t r, const T& x) const { v[r - p] = x; }
};

/// Scalars of one warp's slice of ShiftedLaneCoefs<K, ·>: the four tables (host code sizes
/// shared memory with it).
constexpr int shifted_lane_elements(int K) {
  return (4 * K + 2) * kWarpLanes;
}

/// The shifted form's rows [p, p + K) of A and M for one lane, kept in its warp's slice of shared
/// memory (not registers: they would halve the resident warps): diagonals ad, md of rows p + i
/// (1 and 0 past n: identity rows), off-diagonals ao, mo of rows p + i − 1 (i = 0..K; zero where
/// absent). Element i of the lane is at slot i·32 + lane of its table, so a warp reads 32
/// consecutive elements.
template <int K, class T>
struct ShiftedLaneCoefs {
  static constexpr int elements = shifted_lane_elements(K);
  T* slice;
  int lane;
  PSCR_HD T& at(int table_row, int i) const { return slice[(table_row + i) * kWarpLanes + lane]; }
  PSCR_HD T& ad(int i) const { return at(0, i); }
  PSCR_HD T& md(int i) const { return at(K, i); }
  PSCR_HD T& ao(int i) const { return at(2 * K, i); }
  PSCR_HD T& mo(int i) const { return at(3 * K + 1, i); }
};

/// Rows of A + s M from a lane's ShiftedLaneCoefs, by global row. Padded: the tables hold the
/// zero couplings sub(0) = sup(n−1) = 0 and identity rows past n, so no row needs a check.
template <int K, class T>
struct ShiftedLaneRows {
  static constexpr bool padded = true;
  static constexpr bool symmetric = true;
  ShiftedLaneCoefs<K, T> c;
  T s;
  index_t p;
  PSCR_HD T off(index_t i) const {
    const int j = static_cast<int>(i);
    return c.ao(j) + s * c.mo(j);
  }
  PSCR_HD T sub(index_t r) const { return off(r - p); }
  PSCR_HD T diag(index_t r) const {
    const int j = static_cast<int>(r - p);
    return c.ad(j) + s * c.md(j);
  }
  PSCR_HD T sup(index_t r) const { return off(r - p + 1); }
};

/// Whether K values of T can be loaded and stored with 16-byte accesses (load_vector).
template <int K, class T>
inline constexpr bool kVectorLane = sizeof(T) == 8 && K % 2 == 0;

/// Loads K contiguous values at `base` (16-byte aligned; kVectorLane<K, T>) with 16-byte loads,
/// coalesced across the warp's lanes, which hold consecutive row ranges.
template <int K, class T>
__device__ __forceinline__ void load_vector(const T* base, T (&v)[K]) {
  static_assert(kVectorLane<K, T>, "16-byte loads take pairs of 8-byte values");
#pragma unroll
  for (int i = 0; i < K; i += 2) {
    const double2 w = reinterpret_cast<const double2*>(base)[i / 2];
    v[i] = w.x;
    v[i + 1] = w.y;
  }
}

/// Loads rows [p, p + K) of system k (zero past n). Rows contiguous in memory and the lane's
/// first row 16-byte aligned: load_vector; otherwise one load per row.
template <int K, class T>
__device__ __forceinline__ void load_lane(const T* src, Strides s, index_t k, index_t p, index_t n,
                                          T (&v)[K]) {
  const T* base = src + s.at(k, p);
  if constexpr (kVectorLane<K, T>) {
    if (s.row == 1 && p + K <= n && (reinterpret_cast<std::uintptr_t>(base) & 15) == 0) {
      load_vector<K>(base, v);
      return;
    }
  }
#pragma unroll
  for (int i = 0; i < K; ++i) v[i] = p + i < n ? src[s.at(k, p + i)] : T(0);
}

/// Stores rows [p, p + K) ∩ [0, n) of system k (the twin of load_lane).
template <int K, class T>
__device__ __forceinline__ void store_lane(T* dst, Strides s, index_t k, index_t p, index_t n,
                                           const T (&v)[K]) {
  T* base = dst + s.at(k, p);
  if constexpr (kVectorLane<K, T>) {
    if (s.row == 1 && p + K <= n && (reinterpret_cast<std::uintptr_t>(base) & 15) == 0) {
#pragma unroll
      for (int i = 0; i < K; i += 2)
        reinterpret_cast<double2*>(base)[i / 2] = make_double2(v[i], v[i + 1]);
      return;
    }
  }
#pragma unroll
  for (int i = 0; i < K; ++i)
    if (p + i < n) dst[s.at(k, p + i)] = v[i];
}

/// The next unit's d in shared memory: the block pass's where a lane's rows are not 16-byte aligned
/// (real systems of odd stride, n = 2^k − 1 in place), so that load_lane would take K 8-byte loads
/// per lane, each spread over the warp's 32·K rows: the warp copies its segment's rows into shared
/// memory with coalesced asynchronous 8-byte copies (cp.async, row u by lane u mod 32) as soon as
/// it has taken the current system into registers, and the copy runs under that system's
/// arithmetic. Row e of lane l sits at slot(l, e) = e·32 + (l ^ ·): a lane's reads and a phase of
/// 16 copies both meet 16 distinct 8-byte bank pairs. Rows past n are zero-filled, as load_lane
/// pads them. In the block pass 16-byte-aligned rows keep load_lane's 16-byte loads, which staging
/// them too made slower (docs/tridiag-performance.md); the segment method's passes stage all
/// rows where they stage (segment_pass_stages, launch_segment).
template <int K, class T>
class LaneStage {
 public:
  /// Whether the rows of d with strides `s` are staged: contiguous, and a lane's first row not
  /// always 16-byte aligned.
  __device__ static bool applies(const T* d, Strides s) {
    static_assert(sizeof(T) == 8, "staged rows are 8-byte real");
    const bool aligned = reinterpret_cast<std::uintptr_t>(d) % 16 == 0 &&
                         (s.system * sizeof(T)) % 16 == 0 && (K * sizeof(T)) % 16 == 0;
    return s.row == 1 && !aligned;
  }

  /// `buffer`: the warp's 32·K scalars of shared memory, 8-byte aligned.
  __device__ LaneStage(T* buffer, int lane) : buffer_(buffer), lane_(lane) {}

  /// Starts copying `rows` rows (1 ≤ rows ≤ 32·K) at `segment`, the segment's first row in d.
  __device__ void fetch(const T* segment, index_t rows) const {
#pragma unroll
    for (int j = 0; j < K; ++j) {
      const int u = j * kWarpLanes + lane_;
      const bool in = u < rows;
      copy_async(buffer_ + slot(u / K, u % K), in ? segment + u : segment, in ? 8u : 0u);
    }
    copy_async_commit();
  }

  /// Waits for the warp's copies and reads the lane's K rows; the buffer may be fetched into
  /// again on return.
  __device__ void take(T (&v)[K]) const {
    copy_async_wait();
    __syncwarp();
#pragma unroll
    for (int e = 0; e < K; ++e) v[e] = buffer_[slot(lane_, e)];
    __syncwarp();
  }

  /// Slot of row e of lane l (the segment's row l·K + e). The lane bits flipped for row e
  /// (e·16/K; e where K ≥ 16) make the 16 consecutive rows of a phase of copies land on distinct
  /// banks, as the 16 lanes of a phase of reads do (test_cuda_emulation.cu checks both).
  PSCR_HD static constexpr int slot(int l, int e) {
    return e * kWarpLanes + (l ^ (K >= 16 ? e : e * (16 / K)));
  }

 private:
  T* buffer_;
  int lane_;
};

/// The shifted form of the segment kernel: A and M of the lane's rows in its warp's shared slice
/// (loaded when the lane changes segment), the shift per system.
template <class T>
struct ShiftedSegmentForm {
  ShiftedMatrix<T> m;
  const T* shifts;
  Gate gate;  ///< ShiftedForm::gate

  template <int K>
  using Lane = ShiftedLaneCoefs<K, T>;
  /// Shared-memory scalars per warp.
  template <int K>
  static constexpr int shared_elements = Lane<K>::elements;
  /// Whether segment_kernel substitutes a lane's interior from the LaneState its reduction kept
  /// (lane_substitute) rather than solving it again from the rows (lane_resolve). Not for the
  /// shifted form, whose rows come from the warp's shared slice: H200 A/B (real, contiguous,
  /// 2 rounds), K = 8 and 16 3–5% faster at 33 to 255 rows but up to 4% slower at 64 × 2^18 (the
  /// goal cell's K = 8, 0.0973 → 0.0995 ms) and from 512 rows on; K = 4 and complex K = 4 to 16 up
  /// to 3% and 3–12% slower (complex K = 16 spills).
  template <int K>
  static constexpr bool substitutes_from_state = false;
  template <int K>
  __device__ static Lane<K> lane_view(T* slice, int lane) {
    return {slice, lane};
  }
  template <int K>
  PSCR_HD void load(const Lane<K>& c, index_t p) const {
    // The rows of shifted_matrix_row (rows.cuh), spelled out: written through that helper, ptxas
    // allotted these kernels other registers (real K = 8 reduce 92 → 80, substitute 120 → 117)
    // and the segment method at real 2^20 × 16, K = 8, ran 14% slower on an H100.
    const index_t n = m.n;
#pragma unroll
    for (int i = 0; i < K; ++i) {
      const bool in = p + i < n;  // identity rows past n
      c.ad(i) = in ? m.a_diag[p + i] : T(1);
      c.md(i) = in ? m.m_diag[p + i] : T(0);
    }
#pragma unroll
    for (int i = 0; i <= K; ++i) {
      const index_t r = p + i;  // off-diagonal r − 1 couples rows r − 1 and r
      const bool has = r >= 1 && r <= n - 1;
      c.ao(i) = has ? m.a_off[r - 1] : T(0);
      c.mo(i) = has ? m.m_off[r - 1] : T(0);
    }
  }
  template <int K>
  PSCR_HD ShiftedLaneRows<K, T> rows(const Lane<K>& c, index_t k, index_t p, Strides) const {
    return rows_with_shift<K>(c, shifts[k], p);
  }
  /// The same with system k's shift already loaded (segment_kernel's staged passes).
  template <int K>
  PSCR_HD ShiftedLaneRows<K, T> rows_with_shift(const Lane<K>& c, T s, index_t p) const {
    return {c, s, p};
  }
};

/// The general form of the segment kernel: a, b, c (layout of d) read per row.
template <class T>
struct GeneralSegmentForm {
  const T* a;
  const T* b;
  const T* c;
  index_t n;
  Gate gate;  ///< GeneralForm::gate

  template <int K>
  struct Lane {};
  template <int K>
  static constexpr int shared_elements = 0;
  /// ShiftedSegmentForm::substitutes_from_state: here the rows are a, b, c read again from
  /// global memory, which the kept state spares. H200 A/B (tridiag_bench, general, contiguous,
  /// 2 rounds, 64 × 2^18 to 2^20 × 16): real K = 16 26–38% and K = 8 2–13% less time, K = 4 1–3%
  /// (the table's choice at most of those shapes); complex K = 16 23–36% and K = 8 7–11%, but
  /// complex K = 4 7% slower at 64 × 2^18 (0.433 → 0.465 ms, the table's choice) and 6–13% at the
  /// coarse systems of 16, 128 and 256 rows (faster at others), so complex lanes of 4 rows or
  /// fewer solve again (docs/tridiag-performance.md).
  template <int K>
  static constexpr bool substitutes_from_state = std::is_floating_point_v<T> || K >= 8;
  template <int K>
  __device__ static Lane<K> lane_view(T*, int) {
    return {};
  }
  template <int K>
  __device__ void load(const Lane<K>&, index_t) const {}
  template <int K>
  __device__ GeneralGlobalRows<T> rows(const Lane<K>&, index_t k, index_t, Strides s) const {
    return {a, b, c, s, k, n};
  }
};

/// The two condensed rows of a range of consecutive rows whose interior is eliminated: F, its
/// first row, couples (F.a) the unknown before the range, (F.b) its first and (F.c) its last
/// unknown; L, its last row, couples (L.a) its first, (L.b) its last and (L.c) the unknown after
/// it. A lane's reduced rows P, Q are the condensed rows of its K rows.
template <class T>
struct Condensed {
  Row4<T> F, L;
};

/// Condenses two adjacent ranges into one (a block cyclic-reduction step): the interface
/// unknowns, the first range's last y_l and the second's first y_f, follow from its rows L1, F2
/// (a 2×2 system, determinant Δ = b_L1 b_F2 − c_L1 a_F2) as functions of the merged range's end
/// unknowns, y_l = u0 + u1 y_first + u2 y_last, y_f = v0 + v1 y_first + v2 y_last, substituted
/// into F1 and L2.
template <class T>
PSCR_HD Condensed<T> condense(const Condensed<T>& r1, const Condensed<T>& r2) {
  const Row4<T>& F1 = r1.F;
  const Row4<T>& L1 = r1.L;
  const Row4<T>& F2 = r2.F;
  const Row4<T>& L2 = r2.L;
  const T inv = recip(L1.b * F2.b - L1.c * F2.a);
  const T u0 = (F2.b * L1.d[0] - L1.c * F2.d[0]) * inv;
  const T u1 = -F2.b * L1.a * inv;
  const T u2 = L1.c * F2.c * inv;
  const T v0 = (L1.b * F2.d[0] - F2.a * L1.d[0]) * inv;
  const T v1 = F2.a * L1.a * inv;
  const T v2 = -L1.b * F2.c * inv;
  return {{F1.a, F1.b + F1.c * u1, F1.c * u2, {F1.d[0] - F1.c * u0}},
          {L2.a * v1, L2.b + L2.a * v2, L2.c, {L2.d[0] - L2.a * v0}}};
}

/// The condensed rows of each group of `width` lanes (a power of two ≤ 32) in its first lane:
/// log2(width) condensing steps of a tree over the group (step s: lane l, a multiple of 2s,
/// condenses its range with lane l + s's). Every lane runs every step (uniform shuffles); the
/// other lanes' results are not used.
template <class T>
__device__ Condensed<T> warp_condense(Condensed<T> r, int width = kWarpLanes) {
  const int lane = threadIdx.x & (width - 1);
#pragma unroll
  for (int s = 1; s < kWarpLanes; s <<= 1) {
    if (s >= width) break;  // uniform over the warp
    const Condensed<T> next{shfl_down(r.F, s, width), shfl_down(r.L, s, width)};
    if ((lane & (2 * s - 1)) == 0) r = condense(r, next);
  }
  return r;
}

/// Writes a segment's coarse rows F, L as rows e, e + 1 of the coarse arrays a, b, c, d.
template <class T>
__device__ void store_coarse_rows(const Condensed<T>& r, T* ca, T* cb, T* cc, T* cd, index_t e) {
  ca[e] = r.F.a;
  cb[e] = r.F.b;
  cc[e] = r.F.c;
  cd[e] = r.F.d[0];
  ca[e + 1] = r.L.a;
  cb[e + 1] = r.L.b;
  cc[e + 1] = r.L.c;
  cd[e + 1] = r.L.d[0];
}

/// Whether a pass of segment_kernel may stage d (LaneStage, aligned rows or not; launch_segment
/// stages where the rows of d are also contiguous): the passes of the shifted form, real. A warp
/// otherwise waits for each unit's d with nothing else to do: the reduce pass read d at 53–55% of
/// the copy bandwidth, the substitute pass moved d and x at 77% (Nsight Compute, real 8192 × 2^11
/// and 65536 × 256, K = 8, H100). Staged, the reduce pass holds more registers (K = 8: 92 → 128, 16
/// warps per SM instead of 20) and still gained: A/B on an H100, K = 8, 65536 × 256 0.2171 → 0.2097
/// ms (reduce pass 92 → 76 µs), then with the substitute pass staged too 0.2118 → 0.2013 ms
/// (another run). The whole pass stages too where a warp's rows are one run (launch_segment:
/// whole_pass_rows_in_one_run) and K ≥ 4: H200 A/B (real contiguous), K = 8 64 × 2^18 0.1035 →
/// 0.0977 ms (121 → 128 registers, the same 16 warps per SM), K = 4 127 × 2^17 0.1306 → 0.1208;
/// K = 2 was 3–4% slower staged.
template <SegmentPass Pass>
constexpr bool segment_pass_stages(int K, bool general, std::size_t scalar_bytes) {
  return !general && scalar_bytes == 8 && (Pass != SegmentPass::whole || K >= 4);
}

/// Whether the whole pass's warps find their rows of d (n rows per system, K per lane, strides of
/// d) in one contiguous run, lane l's rows at l·K + e of it, as LaneStage lays out a segment, so
/// that segment_kernel's fetch may copy a warp's next systems from the first one's row 0: the rows
/// contiguous, and either one system per warp (segment_width 32; the run is its n rows) or systems
/// of exactly segment_width·K rows stored back to back.
PSCR_HD bool whole_pass_rows_in_one_run(index_t n, int K, Strides s) {
  const int width = segment_width(n, K);
  return s.row == 1 &&
         (width == kWarpLanes || (s.system == n && static_cast<index_t>(width) * K == n));
}

/// Scalars of shared memory per warp of segment_kernel: the Form's slice and, where it stages d,
/// its LaneStage.
template <int K, class Form, bool Staged>
constexpr int segment_warp_elements() {
  return Form::template shared_elements<K> + (Staged ? kWarpLanes * K : 0);
}

/// Segments of `width` = segment_width(n, K) lanes: 32 at most (and then every pass can occur),
/// narrower only for one-segment systems (whole pass), a warp then taking 32 / width systems at
/// once. Warps [0, walk.warps) of the grid take the (system, segment) units of `walk`. Coarse
/// arrays (reduce writes a, b, c, d; substitute reads the solution from cd): system k's row e at
/// k·2·segments + e. `Staged` (segment_pass_stages, and the rows of d contiguous): the warps copy
/// their next unit's d into shared memory while they solve the current one.
template <int K, SegmentPass Pass, class T, class Form, bool Staged>
__global__ void __launch_bounds__(kSegmentThreads)
    segment_kernel(Form form, index_t n, index_t batch, index_t segments, int width,
                   SegmentWalk walk, const T* d, Strides ds, T* x, Strides xs, T* ca, T* cb, T* cc,
                   T* cd) {
  extern __shared__ __align__(16) unsigned char smem_raw[];
  const index_t warp = (static_cast<index_t>(blockIdx.x) * blockDim.x + threadIdx.x) / kWarpLanes;
  if (warp >= walk.warps || form.gate.closed()) return;
  const int lane = static_cast<int>(threadIdx.x) & (kWarpLanes - 1);
  T* slice = reinterpret_cast<T*>(smem_raw) +
             (threadIdx.x / kWarpLanes) * segment_warp_elements<K, Form, Staged>();
  const int groups = kWarpLanes / width;
  const int sub = lane & (width - 1);  // lane within the segment
  const index_t nc = 2 * segments;
  const auto lc = Form::template lane_view<K>(slice, lane);
  // Staged passes: the warp's next unit's d (in the whole pass its groups' next systems') is
  // copied in while the current one is solved.
  static_assert(
      !Staged || segment_pass_stages<Pass>(K, Form::template shared_elements<K> == 0, sizeof(T)),
      "only the passes of segment_pass_stages stage d");
  const LaneStage<K, T> stage(slice + Form::template shared_elements<K>, lane);
  // Staged, the next unit's shift and (substitute) its segment's first and last unknowns, the
  // coarse solution, are loaded with its d, so that no global load waits at a unit's start (as
  // the shift did in the columns method's whole pass: 24% of its stall samples, Nsight Compute).
  struct UnitScalars {
    T shift, first, last;
  };
  UnitScalars next{};
  auto fetch = [&](const auto& unit) {  // generic: instantiated where Staged only
    if constexpr (Pass == SegmentPass::whole) {
      // The warp's groups' systems, one run of rows (whole_pass_rows_in_one_run): lane l's rows
      // are its l·K + e.
      const index_t systems = std::min<index_t>(groups, unit.end - unit.base);
      stage.fetch(d + ds.at(unit.base, 0), std::min<index_t>(kWarpLanes * K, systems * n));
    } else {
      const index_t first = unit.segment() * kWarpLanes * K;
      stage.fetch(d + ds.at(unit.system(), first), std::min<index_t>(kWarpLanes * K, n - first));
    }
    if constexpr (Staged) {  // the shifted form
      next.shift = form.shifts[unit.active() ? unit.system() : batch - 1];
      if constexpr (Pass == SegmentPass::substitute) {
        const index_t e = unit.system() * nc + 2 * unit.segment();
        if (lane == 0) next.first = cd[e];
        if (lane == kWarpLanes - 1) next.last = cd[e + 1];
      }
    }
  };
  index_t loaded = -1;
  GroupUnits u(walk, batch, segments, warp, groups, lane / width);
  if constexpr (Staged)
    if (u.more()) fetch(u);
  // A group past its warp's last unit repeats the last unit of the walk without storing.
  while (u.more()) {
    const bool active = u.active();
    const index_t seg = active ? u.segment() : segments - 1;
    const index_t k = active ? u.system() : batch - 1;
    const index_t p = (seg * width + sub) * K;
    if constexpr (Staged) u.next();  // so that the next unit's copy starts below
    if (seg != loaded) {
      form.template load<K>(lc, p);
      loaded = seg;
    }
    T v[K];
    UnitScalars now{};  // where Staged
    if constexpr (Staged) {
      stage.take(v);
      now = next;
      if (u.more()) fetch(u);
    } else {
      load_lane<K>(d, ds, k, p, n, v);
    }
    const auto rows = [&] {
      if constexpr (Staged)
        return form.template rows_with_shift<K>(lc, now.shift, p);
      else
        return form.template rows<K>(lc, k, p, ds);
    }();
    const LaneVector<T> vec{v, p};
    Row4<T> P, Q;
    // The state is kept across the reduced solve where the Form says so (substitutes_from_state);
    // elsewhere it dies here, and lane_resolve solves the interior again. Even unkept, this kernel
    // runs faster with it than with lane_reduce's carried scalars: H100 A/B (tridiag_bench,
    // shifted, real K = 8), 65536 × 256 0.1995 against 0.2091 ms, 2^20 × 16 0.2264 against 0.2401
    // ms. Nsight Compute: the reduce pass at 88 registers instead of 128 fits 5 blocks per SM,
    // whose shared memory leaves 23 KB of L1 for its staged copies (92 → 102 µs); held to 4 blocks
    // it was still 2–4% slower in all.
    LaneState<K, T> st;
    lane_reduce<K>(rows, vec, p, n, st, P, Q);
    if constexpr (Pass == SegmentPass::reduce) {  // width == 32
      const Condensed<T> c = warp_condense(Condensed<T>{P, Q});
      if (active && lane == 0) store_coarse_rows(c, ca, cb, cc, cd, k * nc + 2 * seg);
    } else {
      if constexpr (Pass == SegmentPass::substitute) {  // width == 32
        // The segment's first and last unknowns are known: identity rows carrying them.
        const index_t e = k * nc + 2 * seg;
        const T first = Staged ? now.first : lane == 0 ? cd[e] : T(0);
        const T last = Staged ? now.last : lane == kWarpLanes - 1 ? cd[e + 1] : T(0);
        if (lane == 0) P = {T(0), T(1), T(0), {first}};
        if (lane == kWarpLanes - 1) Q = {T(0), T(1), T(0), {last}};
      }
      T xf, xl;
      guarded_reduced_solve<kGuardedLanes<K, T>>(P, Q, xf, xl, width);
      if constexpr (Form::template substitutes_from_state<K>)
        lane_substitute<K>(st, vec, p, n, xf, xl);
      else
        lane_resolve<K>(rows, vec, p, n, xf, xl);
      if (active) store_lane<K>(x, xs, k, p, n, v);
    }
    if constexpr (!Staged) u.next();
  }
}

/// Largest block of segment_block_kernel: one warp per segment, so at most 16 segments per
/// system, and 128 registers per thread for the lanes' K rows.
constexpr int kSegmentBlockThreads = 512;
constexpr int kSegmentBlockMaxSegments = kSegmentBlockThreads / kWarpLanes;

/// Whether segment_block_kernel may stage d (LaneStage): the shifted form, whose A, M tables take
/// shared memory anyway (the general form's a, b, c, read twice per system, want the L1 cache
/// the staging's shared memory would take: measured 5–20% slower), of 8-byte real scalars.
constexpr bool segment_block_stages(bool general, std::size_t scalar_bytes) {
  return !general && scalar_bytes == 8;
}

/// Whether one warp of segment_block_kernel solves the coarse system and passes the coarse
/// unknowns to the others through shared memory, rather than every warp solving it itself. It
/// spares the other warps' issue slots and costs a second barrier on the way to the unknowns.
/// H100 A/B (tridiag_bench, shifted form, block method): complex K = 4 4–11% faster (1024 ×
/// 2^14 0.551 → 0.492 ms), K = 2 12–19% faster, K = 8 5–11% slower; real K = 8 2–3% slower,
/// K = 4 up to 8% slower: complex scalars with K ≤ 4 rows per lane only.
constexpr bool segment_block_solo_coarse(int K, std::size_t scalar_bytes) {
  return scalar_bytes > 8 && K <= 4;
}

/// Whether segment_block_kernel substitutes each lane's interior from the LaneState its reduction
/// kept (lane_substitute) rather than solving it again (lane_resolve): where its Form does
/// (substitutes_from_state: the general form, real or complex from K = 8), but not for complex
/// K = 16, whose state spills past the block's 128 registers (1064 → 3352 bytes). H200 A/B
/// (tridiag_bench, general, contiguous, block method; one round of the variant against two of
/// 89bcc04): real K = 4 1.5–8% less time at 255 × 2^16 to 2048 × 2^13 (the table's choice there),
/// K = 8 8–12% and K = 16 17–21% (1024 and 2048 rows); complex K = 8 up to 5% less (1% more at
/// 361 × 2^16 and 1023²), K = 16 17–73% more.
template <class Form, int K, class T>
constexpr bool segment_block_substitutes_from_state() {
  return Form::template substitutes_from_state<K> && (sizeof(T) == 8 || K <= 8);
}

/// Scalars of shared memory per warp of segment_block_kernel besides the Form's slice: its coarse
/// rows (Condensed: two Row4) in each of the two buffers, where one warp solves the coarse system
/// its two coarse unknowns, and where it stages d its LaneStage.
constexpr int segment_block_warp_elements(int K, bool general, std::size_t scalar_bytes) {
  return 2 * 8 + (segment_block_solo_coarse(K, scalar_bytes) ? 2 : 0) +
         (segment_block_stages(general, scalar_bytes) ? kWarpLanes * K : 0);
}

/// Spike rows of a segment: the lane's reduced rows P, Q (lane_reduce) with the segment's two
/// outside couplings, P.a of its first lane (to X−, the previous segment's last unknown) and Q.c
/// of its last lane (to X+, the next segment's first unknown), moved to right-hand sides 1 and 2.
/// Solved (warp_reduced_solve), they give every interface unknown of the segment as
/// x = y + v X− + w X+ (right-hand sides 0, 1, 2: y, v, w; the spikes of SPIKE).
template <class T>
PSCR_HD void spike_rows(const Row4<T>& P, const Row4<T>& Q, bool first_lane, bool last_lane,
                        Row<T, 3>& P3, Row<T, 3>& Q3) {
  P3 = {first_lane ? T(0) : P.a, P.b, P.c, {P.d[0], first_lane ? -P.a : T(0), T(0)}};
  Q3 = {Q.a, Q.b, last_lane ? T(0) : Q.c, {Q.d[0], T(0), last_lane ? -Q.c : T(0)}};
}

/// The segment's coarse rows (Condensed: F couples X−, x_first, x_last; L couples x_first,
/// x_last, X+) from its first and last unknowns as spikes, x_first = f0 + f1 X− + f2 X+,
/// x_last = l0 + l1 X− + l2 X+: F eliminates X+ (x_first − f2/l2 x_last), L eliminates X−
/// (x_last − l1/f1 x_first). A coupling that is zero (the system's ends) gives zero spikes, and
/// nothing to eliminate. The same rows as condensing the segment (condense), scaled to b = 1.
template <class T>
PSCR_HD Condensed<T> spike_coarse_rows(const T (&f)[3], const T (&l)[3]) {
  const T r = l[2] == T(0) ? T(0) : f[2] * recip(l[2]);
  const T q = f[1] == T(0) ? T(0) : l[1] * recip(f[1]);
  return {{-(f[1] - r * l[1]), T(1), -r, {f[0] - r * l[0]}},
          {-q, T(1), -(l[2] - q * f[2]), {l[0] - q * f[0]}}};
}

/// A segment's spikes from its lanes' reduced rows P, Q (spike_rows, warp_reduced_solve with 3
/// right-hand sides): every lane's first and last unknowns, x = y + v X− + w X+, in `xf`, `xl`,
/// and on every lane the segment's first and last unknowns' (`f` from lane 0, `l` from lane 31),
/// from which spike_coarse_rows forms its coarse rows. Guarded: guarded_reduced_solve's guard.
template <bool Guarded = false, class T>
__device__ void segment_spikes(const Row4<T>& P, const Row4<T>& Q, T (&xf)[3], T (&xl)[3],
                               T (&f)[3], T (&l)[3]) {
  const int lane = static_cast<int>(threadIdx.x) & (kWarpLanes - 1);
  {
    Row<T, 3> P3, Q3;
    spike_rows(P, Q, lane == 0, lane == kWarpLanes - 1, P3, Q3);
    guarded_reduced_solve<Guarded>(P3, Q3, xf, xl);
  }
#pragma unroll
  for (int j = 0; j < 3; ++j) {
    f[j] = shfl_from(xf[j], 0);
    l[j] = shfl_from(xl[j], kWarpLanes - 1);
  }
}

/// The coarse system of `segments` segments (their coarse rows at `rows`) solved by the calling
/// warp: lane j takes segment j's rows as its reduced rows P = F_j, Q = L_j (warp_reduced_solve
/// over `width` lanes, the smallest power of two ≥ segments, identity rows past the last segment)
/// and gets segment j's first (cf) and last (cl) unknowns. Guarded: guarded_reduced_solve's guard.
template <bool Guarded = false, class T>
__device__ void solve_coarse_rows(const Condensed<T>* rows, int segments, int width, T& cf, T& cl) {
  const int lane = static_cast<int>(threadIdx.x) & (kWarpLanes - 1);
  const Row4<T> identity{T(0), T(1), T(0), {T(0)}};
  const Condensed<T> seg = lane < segments ? rows[lane] : Condensed<T>{identity, identity};
  guarded_reduced_solve<Guarded>(seg.F, seg.L, cf, cl, width);
}

/// Segment g's outside unknowns from every lane's cf, cl of solve_coarse_rows: X−, the previous
/// segment's last unknown, and X+, the next segment's first (zero at the system's ends).
template <class T>
__device__ void segment_outside_unknowns(T cf, T cl, int g, int segments, T& x_minus, T& x_plus) {
  const T before = shfl_from(cl, g > 0 ? g - 1 : 0);
  const T after = shfl_from(cf, g + 1 < segments ? g + 1 : 0);
  x_minus = g > 0 ? before : T(0);
  x_plus = g + 1 < segments ? after : T(0);
}

/// The block pass: one block of `segments` warps (2 ≤ segments ≤ kSegmentBlockMaxSegments) per
/// system, warp w owning segment w of every system its block takes (so the shifted form's rows of
/// A and M are loaded once per block). Per system:
///  - each warp's lanes reduce their rows (lane_reduce), and the warp solves the segment's
///    reduced rows for its spikes (spike_rows, warp_reduced_solve with 3 right-hand sides); its
///    two coarse rows (spike_coarse_rows) go to shared memory;
///  - the coarse system is solved with the segments' rows as reduced rows, lane j holding
///    segment j's P = F_j, Q = L_j (warp_reduced_solve over the smallest power of two of lanes ≥
///    segments, identity rows past the last segment), X−, X+ of each segment taken from it: by
///    every warp itself after one barrier, or (segment_block_solo_coarse: complex, K ≤ 4) by
///    warp 0 alone between that barrier and a second one, leaving the coarse unknowns in shared
///    memory for the other warps (two block barriers: named barriers where the other warps only
///    arrive at the first and warp 0 only at the second wait no less, and compute-sanitizer's
///    racecheck reports their shared-memory handoff as a race);
///  - each lane's interface unknowns follow from its spikes, and it solves its interior again
///    (lane_resolve) with d still in its registers, or substitutes it from the state its
///    reduction kept (segment_block_substitutes_from_state).
/// So d is read once and x written once, with no workspace, one launch and one warp solve per
/// segment (the segment method's reduce and substitute passes take a condensing tree and a warp
/// solve). Shifted real systems whose rows are not 16-byte aligned have each warp copy its segment
/// of the block's next system into shared memory (LaneStage) while it solves the current one. The
/// coarse rows (and unknowns) are double-buffered by system parity: a buffer is written again two
/// systems later, after every warp has passed the barriers of the system in between, i.e. has
/// finished reading it (the one buffer of coarse unknowns is written after the barrier that
/// follows the other warps' reads of it).
template <int K, class T, class Form>
__global__ void __launch_bounds__(kSegmentBlockThreads)
    segment_block_kernel(Form form, index_t n, index_t batch, const T* d, Strides ds, T* x,
                         Strides xs) {
  if (form.gate.closed()) return;
  extern __shared__ __align__(16) unsigned char smem_raw[];
  constexpr bool kSolo = segment_block_solo_coarse(K, sizeof(T));
  const int threads = static_cast<int>(blockDim.x);
  const int segments = threads / kWarpLanes;
  const int w = static_cast<int>(threadIdx.x) / kWarpLanes;
  const int lane = static_cast<int>(threadIdx.x) & (kWarpLanes - 1);
  auto* coarse = reinterpret_cast<Condensed<T>*>(smem_raw);  // [2][segments]
  // Coarse unknowns (kSolo) [2·segments]: segment j's first at 2j, its last at 2j + 1.
  T* unknowns = reinterpret_cast<T*>(coarse + 2 * segments);
  T* slices = unknowns + (kSolo ? 2 * segments : 0);
  T* slice = slices + w * Form::template shared_elements<K>;
  const auto lc = Form::template lane_view<K>(slice, lane);
  const index_t p = (static_cast<index_t>(w) * kWarpLanes + lane) * K;
  form.template load<K>(lc, p);
  constexpr bool kStages = segment_block_stages(Form::template shared_elements<K> == 0, sizeof(T));
  const LaneStage<K, T> stage(
      slices + segments * Form::template shared_elements<K> + w * kWarpLanes * K, lane);
  const index_t segment_row = static_cast<index_t>(w) * kWarpLanes * K;  // the warp's first row
  const index_t segment_rows = std::min<index_t>(kWarpLanes * K, n - segment_row);
  bool staged = false;
  if constexpr (kStages) {
    staged = LaneStage<K, T>::applies(d, ds);
    if (staged && blockIdx.x < batch) stage.fetch(d + ds.at(blockIdx.x, segment_row), segment_rows);
  }
  int width = 1;  // lanes of the coarse solve
  while (width < segments) width *= 2;
  int parity = 0;
  for (index_t k = blockIdx.x; k < batch; k += gridDim.x, parity ^= 1) {
    T v[K];
    if constexpr (kStages) {
      if (staged) {
        stage.take(v);
        if (k + gridDim.x < batch) stage.fetch(d + ds.at(k + gridDim.x, segment_row), segment_rows);
      } else {
        load_lane<K>(d, ds, k, p, n, v);
      }
    } else {
      load_lane<K>(d, ds, k, p, n, v);
    }
    // The shift loaded here, at its first use: loaded with the staged d a system ahead (as
    // segment_kernel's staged passes do) this kernel ran 3–15% slower (H100 A/B, real systems
    // of 2^24 rows, K = 4 and 8: tridiag-h100-ab-block-prefetched-shift.csv).
    const auto rows = form.template rows<K>(lc, k, p, ds);
    const LaneVector<T> vec{v, p};
    T xf[3], xl[3];  // spikes of the lane's first and last unknowns
    T f[3], l[3];    // the segment's first and last unknowns' spikes
    constexpr bool kKeepsState = segment_block_substitutes_from_state<Form, K, T>();
    LaneState<K, T> st;  // kept where kKeepsState
    {
      Row4<T> P, Q;
      if constexpr (kKeepsState)
        lane_reduce<K>(rows, vec, p, n, st, P, Q);
      else
        lane_reduce<K>(rows, vec, p, n, P, Q);
      segment_spikes(P, Q, xf, xl, f, l);
    }
    Condensed<T>* buffer = coarse + parity * segments;
    if (lane == 0) buffer[w] = spike_coarse_rows(f, l);
    T x_minus, x_plus;
    __syncthreads();
    if constexpr (kSolo) {
      if (w == 0) {  // warp-uniform
        T cf, cl;
        solve_coarse_rows(buffer, segments, width, cf, cl);
        if (lane < segments) {
          unknowns[2 * lane] = cf;
          unknowns[2 * lane + 1] = cl;
        }
      }
      __syncthreads();
      x_minus = w > 0 ? unknowns[2 * w - 1] : T(0);
      x_plus = w + 1 < segments ? unknowns[2 * w + 2] : T(0);
    } else {
      T cf, cl;
      solve_coarse_rows(buffer, segments, width, cf, cl);
      segment_outside_unknowns(cf, cl, w, segments, x_minus, x_plus);
    }
    const T first = xf[0] + xf[1] * x_minus + xf[2] * x_plus;
    const T last = xl[0] + xl[1] * x_minus + xl[2] * x_plus;
    if constexpr (kKeepsState)
      lane_substitute<K>(st, vec, p, n, first, last);
    else
      lane_resolve<K>(rows, vec, p, n, first, last);
    store_lane<K>(x, xs, k, p, n, v);
  }
}

}  // namespace pscr::tridiag::cuda::detail
