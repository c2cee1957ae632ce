#pragma once
/// @file The sweep method for systems of 769 to 16384 rows, complex ones up to 8192 (shifted
/// form): one cluster of blocks per system (sweep_cluster_kernel), so that a system's rows, its A
/// and M tables and the next system's d stay in the shared memory of a few SMs from load to store
/// and d is read once. The segment method's two passes read d twice for these systems (24 bytes
/// per row against the floor's 16, 48 against 32 complex), and one SM's shared memory holds
/// neither a whole system's tables (32 bytes per row, 256 KB at 8192 rows; 64 complex) nor its
/// rows twice over (docs/tridiag-performance.md).
///
/// A cluster of C blocks solves S systems at once (S slots, SweepClusterShape): each slot has W·C
/// warps (W per block, W·C ≤ 32) owning one segment of 32·K rows each (K = 8 or 16), warp g of the
/// slot rows [32·K·g, 32·K·(g + 1)) of every system it takes. A segment's rows of A and M stay in
/// its block's shared memory for the whole launch (the sweep kernel's tables), shared by its S
/// warps: the tables, not the rows of d, fill the shared memory, so slots raise the warps an SM
/// holds. Per system, in each slot:
///  1. each warp has its segment's d in shared memory, copied there (cp.async) while it solved the
///     system before; it starts the copy of its next system's rows into its other buffer;
///  2. each lane sweeps its K rows (sweep_reduce: d′ over d, c′ and v in registers), and the warp
///     solves the 64 reduced rows for its spikes (the block method's spike_rows: the segment's
///     outside couplings as two more right-hand sides), which give the segment's two coarse rows
///     (spike_coarse_rows);
///     For complex systems not declared dominant (Guarded) this solve and the coarse solve of
///     step 4 are guarded as the sweep kernel's reduced solve (guarded_reduced_solve: solved
///     again in order where ReducedGrowth flags the tree);
///  3. the warp writes its coarse rows into the shared memory of every block of the cluster
///     (st.async, distributed shared memory), each block's mbarrier counting the bytes, and waits
///     at its own block's mbarrier until all of them have arrived (a cluster of one block: plain
///     shared stores and a named barrier of the slot's warps);
///  4. every warp solves the coarse system of 2·W·C rows itself (lane j: segment j's rows, as the
///     block method), takes its segment's outside unknowns X−, X+, and each lane's interface
///     unknowns follow from its spikes;
///  5. each lane substitutes (sweep_substitute), and the warp stores x from its buffer.
/// The coarse rows are double-buffered by system parity, with one mbarrier per buffer and slot: a
/// warp writes a buffer again two systems later, once it has every segment's rows of the system in
/// between, which each warp writes only after it has read the buffer. Clusters of one block of two
/// segment warps (systems of 769 to 1024 rows, K = 16: the InBlock instance, real and complex)
/// take steps 2 to 4 in the block instead: each warp writes its lanes' reduced rows P, Q into the
/// slot's buffer in shared memory, and after a named barrier of the slot's warps every warp solves
/// the system's whole reduced system of 128 rows itself, 4 rows per lane (block_reduced_solve;
/// complex systems not declared dominant guarded as in step 2), with no spikes and no coarse
/// system: 9% less time than the spikes' path at real 1024 × 2^14 (H200,
/// docs/tridiag-performance.md). Complex slots first reduce each pair of lanes' four rows to two,
/// which they share instead (pair_shared_solve: half the rows in one buffer, four slots per
/// block; sweep_cluster_pairs). Clusters need compute capability 9.0. Include only from .cu
/// files.

#include <cooperative_groups.h>

#include "tridiag/cuda/segment.cuh"
#include "tridiag/cuda/sweep.cuh"

namespace pscr::tridiag::cuda::detail {

/// Fewest rows of a system the sweep method gives the cluster kernel (solve.cu,
/// sweep_uses_clusters, where the measurements are): past 768 rows its blocks of two K = 16
/// segment warps with slots beat one warp per system (sweep.cuh), which takes the shorter ones.
constexpr index_t kSweepClusterMinRows = 769;
/// Rows per lane of the cluster kernel (one instance each): real 16, or 8 where a call asks for at
/// most 8 (resolve); complex kSweepClusterComplexRows = 8, or 16 in the InBlock instance alone
/// (sweep_cluster_in_block, up to kSweepClusterBlockMaxRows rows; solve.cu, sweep_cluster_rows):
/// with spikes and coarse rows, complex K = 16 ran level with the two passes at best and lost
/// accuracy at n = 4095 (3.6e-8 at one Helmholtz shift; docs/tridiag-performance.md, 2026-12-04).
/// Most warps per block.
constexpr int kSweepClusterComplexRows = 8;
constexpr int kSweepClusterMaxWarps = 8;
/// Most warps per block of the slotted instance (real K = 16, but InBlock;
/// sweep_cluster_max_block_warps, sweep_cluster_max_slots): 12, the most its registers (158 per
/// thread) allow an SM. Blocks of W = 4 segment warps (most systems of more than 8192 rows) then
/// take 3 slots, 176 KB, 12 warps per SM, where at 8 warps per block they took 2 slots (or one in
/// two blocks), 8 warps per SM. H200 A/B (tridiag_bench, real, shifted, contiguous, sweep K = 16, 2
/// rounds, ms): 16384 × 1024 0.1651 → 0.1444, 10000 × 1677 0.1644 → 0.1536, 13000 × 1290 0.1836 →
/// 0.1765; 8192 × 2048, 12000 × 1398 (W = 3) and 2047² to 6000 × 2796 (W = 2) within the copy's
/// spread: their blocks keep their slots, since blocks of 12 warps would leave them 12 warps per
/// SM, as two blocks of 6 do, and the launch prefers two blocks per SM (sweep_cluster_plan,
/// solve.cu; docs/tridiag-performance.md). More warps need at most 128 registers (an SM's four
/// register files of 16384 each, four warps on one): at 16 the kernel ran 5–28% slower with
/// ptxas's spills (H100, 3 rounds, 8192 × 2^11 0.127 → 0.150 ms) and 10–14% slower with none
/// (its loop-invariant addresses recomputed where used; 0.128 → 0.143 ms): each warp runs about
/// 1.5 times as long per system at 128 registers.
constexpr int kSweepClusterMaxSlotWarps = 12;
/// Most blocks of a complex cluster of blocks of 4 warps, two per SM (sweep_cluster_shape); larger
/// clusters take blocks of 8 warps, one per SM. H100 A/B (tridiag_bench, complex, shifted,
/// contiguous, about 2^24 rows, ms, at most 4 warps per block against 8, diagonally dominant /
/// Helmholtz systems with evenly spaced shifts): 2048 × 8192 (2 blocks against 1) 0.352 / 0.372 and
/// 0.365 / 0.403, 2047² 0.105 / 0.114 and 0.111 / 0.130, 3000 × 5592 (3 against 2) 0.447 / 0.464
/// and 0.457 / 0.500, 4096² (4 against 2) 0.422 / 0.401 and 0.445 / 0.423, 6000 × 2796 (6 against
/// 3) 0.744 / 0.484, 8192 × 2048 (8 against 4) 0.641 / 0.483.
constexpr int kSweepClusterComplexPairedBlocks = 3;
/// Most segments per cluster (the coarse system of 2 rows per segment is solved by one warp's
/// lanes) and most blocks per cluster (the portable cluster size).
constexpr int kSweepClusterMaxSegments = kWarpLanes;
constexpr int kSweepClusterMaxBlocks = 8;

/// Shape of a cluster launch for systems of n rows, K rows per lane and scalars of `scalar_bytes`:
/// C blocks of W segment warps, W·C segments of 32·K rows covering n, and S slots: each block
/// runs W·S warps, the S warps of a segment solving S systems at once with the segment's tables
/// shared (the launch picks S: sweep_cluster_plan, solve.cu).
///  - K = 8: the fewest blocks of at most 8 warps, then the fewest warps (a segment's tables and
///    two buffers of d take 14 KB: 8 warps, 113 KB per block, two blocks per SM). Complex ones
///    take 28 KB: blocks of at most 4 warps (two per SM, so that one block's warps run while the
///    other's wait on their cluster) where that takes at most kSweepClusterComplexPairedBlocks
///    blocks, else of 8 (one per SM);
///  - K = 16: W = 2, 3 or 4 with at most 8 blocks, the fewest identity segments, then the smallest
///    W (the largest, one block of 12 warps per SM, ran up to 10% slower: H100, 8192 × 2^11 in
///    clusters of 4 blocks of W = 4 0.123 → 0.132 ms, 12000 × 1400 0.147 → 0.161). A segment's
///    tables take 17 KB and a warp's two buffers of d 9 KB, so blocks of one system
///    (S = 1) hold at most 8 warps per SM; with W = 2 and S = 3 (8192 rows: 8 blocks of 6 warps,
///    93 KB) or W = 4 and S = 3 (16384 rows: 8 blocks of 12 warps, 176 KB) the registers (158 per
///    thread) allow 12 (kSweepClusterMaxSlotWarps).
struct SweepClusterShape {
  int blocks = 0;  ///< C
  int warps = 0;   ///< W
  int slots = 1;   ///< S
  PSCR_HD int segments() const { return blocks * warps; }
  PSCR_HD int block_warps() const { return warps * slots; }
};
PSCR_HD SweepClusterShape sweep_cluster_shape(index_t n, int K, int scalar_bytes) {
  const index_t rows = static_cast<index_t>(kWarpLanes) * K;
  const int segments = static_cast<int>((n + rows - 1) / rows);
  if (K <= 8) {
    const int half = kSweepClusterMaxWarps / 2;
    const bool paired = scalar_bytes > 8 && segments <= half * kSweepClusterComplexPairedBlocks;
    const int most = paired ? half : kSweepClusterMaxWarps;
    const int blocks = (segments + most - 1) / most;
    return {blocks, (segments + blocks - 1) / blocks};
  }
  SweepClusterShape best;
  for (int w = 2; w <= 4; ++w) {
    const int blocks = (segments + w - 1) / w;
    if (blocks > kSweepClusterMaxBlocks) continue;
    const SweepClusterShape s{blocks, w};
    if (best.blocks == 0 || s.segments() < best.segments()) best = s;
  }
  return best;
}
static_assert(kSweepClusterMaxSegments / 4 <= kSweepClusterMaxBlocks,
              "clusters of more than 8 blocks");

/// Segments of a cluster of one block whose slot warps share their reduced rows in the block's
/// shared memory (InBlock, sweep_cluster_in_block): every warp of a slot solves its system's whole
/// reduced system of 64 rows per segment itself, so that no spikes and no coarse rows are formed
/// (block_reduced_solve). K = 16 takes it for 769 to 1024 rows: two segment warps.
constexpr int kSweepClusterBlockSegments = 2;
/// Reduced rows per lane of block_reduced_solve: the slot's 64·kSweepClusterBlockSegments rows over
/// the warp's 32 lanes.
constexpr int kSweepClusterBlockLaneRows = 2 * kSweepClusterBlockSegments;
/// Reduced rows of a slot's system (InBlock): 64 per segment.
constexpr int kSweepClusterBlockReducedRows = kWarpLanes * kSweepClusterBlockLaneRows;
/// Scalars of one buffer of a slot's reduced rows (BlockReducedRows: their a, b, c, d).
constexpr int kSweepClusterBlockReducedScalars = 4 * kSweepClusterBlockReducedRows;
/// Most rows of a system of the InBlock instance: kSweepClusterBlockSegments segments of K = 16.
constexpr index_t kSweepClusterBlockMaxRows = index_t{kWarpLanes} * 16 * kSweepClusterBlockSegments;
/// Rows of a slot's system once each pair of lanes has reduced its four reduced rows to two
/// (InBlock, complex: pair_shared_solve): one per lane of the segment warps.
constexpr int kSweepClusterPairRows = kWarpLanes * kSweepClusterBlockSegments;
/// Scalars of a slot's buffer of its pairs' rows (PairSharedRows: their a, b, c, d).
constexpr int kSweepClusterPairScalars = 4 * kSweepClusterPairRows;

/// Whether the InBlock instance's slots of scalars of `scalar_bytes` share their lane pairs' rows
/// (pair_shared_solve, PairSharedRows: one buffer of kSweepClusterPairRows rows per slot) rather
/// than their lanes' reduced rows (block_reduced_solve, BlockReducedRows: two buffers of
/// kSweepClusterBlockReducedRows rows): complex ones, whose blocks then fit four slots in the
/// shared memory of an SM (226112 bytes) where they fit three, 8 warps per SM against 6. Real
/// blocks take two per SM either way, and the pairs' reduction before the exchange costs them
/// time: H100 A/B (tridiag_bench, sweep K = 16, contiguous, the pairs for both scalar types
/// against the reduced rows, ms), real 1024 × 16384 0.1125 → 0.1216, 769 × 21817 0.1214 → 0.1105,
/// complex 1024 × 16384 0.2400 → 0.2192, 1000 × 16777 0.2408 → 0.2188, 769 × 21817 0.2984 →
/// 0.2655 (docs/tridiag-performance.md, "The lagged pattern on an H100 ...").
PSCR_HD constexpr bool sweep_cluster_pairs(int scalar_bytes) {
  return scalar_bytes > 8;
}

/// Scalars of shared memory per slot of the InBlock instance for what its segment warps exchange
/// (sweep_cluster_pairs): one buffer of their pairs' rows, or two of their lanes' reduced rows.
PSCR_HD constexpr int sweep_cluster_block_exchange(int scalar_bytes) {
  return sweep_cluster_pairs(scalar_bytes) ? kSweepClusterPairScalars
                                           : 2 * kSweepClusterBlockReducedScalars;
}

/// Largest n of the cluster kernel with K rows per lane and scalars of `scalar_bytes`: as many
/// segments as a cluster takes (kSweepClusterMaxSegments), but complex K = 16 only in the InBlock
/// instance (kSweepClusterBlockMaxRows; see kSweepClusterComplexRows).
PSCR_HD constexpr index_t sweep_cluster_max_rows(int K, int scalar_bytes) {
  return scalar_bytes > 8 && K > kSweepClusterComplexRows
             ? kSweepClusterBlockMaxRows
             : static_cast<index_t>(kWarpLanes) * K * kSweepClusterMaxSegments;
}

/// Whether launches of `shape` with K rows per lane take the InBlock instance: K = 16 in clusters
/// of one block of kSweepClusterBlockSegments segment warps (769 to kSweepClusterBlockMaxRows
/// rows), real or complex.
PSCR_HD constexpr bool sweep_cluster_in_block(int K, const SweepClusterShape& shape) {
  return K == 16 && shape.blocks == 1 && shape.warps == kSweepClusterBlockSegments;
}

/// Most warps per block of the cluster kernel's instance, `slotted` or not, InBlock or not (its
/// launch bounds): kSweepClusterMaxSlotWarps for the slotted one but InBlock, else
/// kSweepClusterMaxWarps.
PSCR_HD constexpr int sweep_cluster_max_block_warps(bool slotted, bool in_block) {
  return slotted && !in_block ? kSweepClusterMaxSlotWarps : kSweepClusterMaxWarps;
}

/// Most slots a launch of `shape` with K rows per lane may take: K = 16 as many as keep a block
/// within kSweepClusterMaxSlotWarps warps, or kSweepClusterMaxWarps for the InBlock instance
/// (sweep_cluster_in_block: its real blocks of two segment warps take 3 slots in two blocks per SM
/// either way, and compiled for blocks of 12 warps it ran 0–4.5% slower at 1024 × 2^14 in two
/// H200 A/Bs; complex ones fit 4 slots in one block per SM, 226112 bytes: sweep_cluster_pairs);
/// K = 8 one, its only instance being compiled for one slot (it would take 2W warps of two slots
/// for 2W segments of one: n ≤ 1024 rows, W ≤ 4, ran out of bounds, H100).
PSCR_HD constexpr int sweep_cluster_max_slots(int K, const SweepClusterShape& shape) {
  if (K <= 8) return 1;
  return sweep_cluster_max_block_warps(true, sweep_cluster_in_block(K, shape)) / shape.warps;
}

/// Scalars (of `scalar_bytes`, 8 or 16) of shared memory of one block of `shape`: 16 bytes per
/// slot for one mbarrier per buffer (8 bytes each), the coarse rows (Condensed, 8 scalars per
/// segment) in two buffers per slot, or where the launch takes the InBlock instance
/// (sweep_cluster_in_block) what its slots exchange (sweep_cluster_block_exchange), then per
/// segment warp its four tables, then per warp its two buffers of d (sweep_array(K) scalars each).
PSCR_HD int sweep_cluster_elements(int K, const SweepClusterShape& shape, int scalar_bytes) {
  const int exchanged = sweep_cluster_in_block(K, shape)
                            ? sweep_cluster_block_exchange(scalar_bytes)
                            : 2 * 8 * shape.segments();  // per slot
  return 16 * shape.slots / scalar_bytes + exchanged * shape.slots +
         (kSweepTables * shape.warps + 2 * shape.block_warps()) * sweep_array(K);
}

/// log2 of the scalars T of a 128-byte shared-memory wavefront (16 real, 8 complex): the period of
/// BlockReducedRows' and PairSharedRows' swizzles.
template <class T>
constexpr int kWavefrontScalarsLog2 = sizeof(T) == 8 ? 4 : 3;

/// Stores `row` at slot t of four arrays of `rows` scalars from `base` (its a, b, c, d): the
/// layout of BlockReducedRows and PairSharedRows.
template <class T>
PSCR_HD void put_row4(T* base, int rows, int t, const Row4<T>& row) {
  base[t] = row.a;
  base[rows + t] = row.b;
  base[2 * rows + t] = row.c;
  base[3 * rows + t] = row.d[0];
}

/// The reduced rows of a slot's system in shared memory (InBlock): segment g's lane j's rows P, Q
/// are rows 64g + 2j and 64g + 2j + 1, their a, b, c, d in four arrays of
/// kSweepClusterBlockReducedRows scalars, row r at r XOR ((r / W) mod 4), W the scalars of one
/// 128-byte wavefront (16 real, 8 complex), so that both the segment warps' writes (rows 2j,
/// 2j + 1) and block_reduced_solve's reads (lane l's rows 4l + i) fall on distinct banks; stored
/// in order, as Row4s, a warp's reads took four wavefronts each (4.0-way conflicts: Nsight
/// Compute, real 1024 × 2^14, H200). Read by block_reduced_solve's lanes as a system of their own
/// (lane_reduce's accessor and vector: every row inside, the system's ends uncoupled).
template <class T>
struct BlockReducedRows {
  static constexpr bool padded = true;
  T* base;
  static PSCR_HD int at(index_t r) {
    return static_cast<int>(r ^ ((r >> kWavefrontScalarsLog2<T>)&3));
  }
  PSCR_HD T sub(index_t r) const { return base[at(r)]; }
  PSCR_HD T diag(index_t r) const { return base[kSweepClusterBlockReducedRows + at(r)]; }
  PSCR_HD T sup(index_t r) const { return base[2 * kSweepClusterBlockReducedRows + at(r)]; }
  PSCR_HD T get(index_t r) const { return base[3 * kSweepClusterBlockReducedRows + at(r)]; }
  PSCR_HD void put(index_t r, const Row4<T>& row) const {
    put_row4(base, kSweepClusterBlockReducedRows, at(r), row);
  }
};

/// The unknowns of a lane's kSweepClusterBlockLaneRows reduced rows from `p` on, in registers
/// (lane_substitute's vector; its indices are compile-time steps from p).
template <class T>
struct BlockLaneUnknowns {
  T* x;
  index_t p;
  PSCR_HD void set(index_t r, T v) const { x[r - p] = v; }
};

/// Lane `lane`'s part of block_reduced_solve's reduction: its rows [lane·Kr, lane·Kr + Kr) of the
/// reduced system `rows` eliminated to its own reduced rows P, Q (lane_reduce, Kr =
/// kSweepClusterBlockLaneRows), their interior kept in `st` for block_lane_unknowns.
template <class T>
PSCR_HD void block_lane_reduce(const BlockReducedRows<T>& rows, int lane,
                               LaneState<kSweepClusterBlockLaneRows, T>& st, Row4<T>& P,
                               Row4<T>& Q) {
  constexpr int Kr = kSweepClusterBlockLaneRows;
  lane_reduce<Kr>(rows, rows, static_cast<index_t>(lane) * Kr, index_t{kWarpLanes} * Kr, st, P, Q);
}

/// The unknowns of lane `lane`'s reduced rows (`x`, Kr of them) from its interface unknowns.
template <class T>
PSCR_HD void block_lane_unknowns(const LaneState<kSweepClusterBlockLaneRows, T>& st, int lane,
                                 T first, T last, T (&x)[kSweepClusterBlockLaneRows]) {
  constexpr int Kr = kSweepClusterBlockLaneRows;
  const index_t p = static_cast<index_t>(lane) * Kr;
  lane_substitute<Kr>(st, BlockLaneUnknowns<T>{x, p}, p, index_t{kWarpLanes} * Kr, first, last);
}

/// A slot's whole reduced system (InBlock: its kSweepClusterBlockSegments segments' rows,
/// BlockReducedRows) solved by the calling warp as the warp method solves a system of
/// 32·Kr rows: each lane reduces its Kr rows (block_lane_reduce), the warp solves the lanes'
/// reduced rows (guarded_reduced_solve: Guarded, for complex systems not declared dominant, solved
/// again in order where the tree's growth flags), each lane its rows' unknowns
/// (block_lane_unknowns). Returns segment g's lane's interface unknowns, rows 64g + 2·lane and + 1,
/// which lane (64g + 2·lane) / Kr holds: the same arithmetic on every warp of the slot. On the CPU
/// emulation of complex Helmholtz systems of 769 to 1024 rows (K = 16, 20 problems of 4000 shifts:
/// tests/tridiag/test_cuda_emulation.cu) the guard flagged 51–64 shifts per problem and left 2 of
/// the 80000 above 1e-10 (at most 1.22e-10), where the tree alone left 17 (up to 1.9e-7).
template <bool Guarded, class T>
__device__ void block_reduced_solve(const BlockReducedRows<T>& rows, int g, T& first, T& last) {
  constexpr int Kr = kSweepClusterBlockLaneRows;
  const int lane = static_cast<int>(threadIdx.x) & (kWarpLanes - 1);
  LaneState<Kr, T> st;
  Row4<T> P, Q;
  block_lane_reduce(rows, lane, st, P, Q);
  T xf, xl;
  guarded_reduced_solve<Guarded>(P, Q, xf, xl);
  T x[Kr];
  block_lane_unknowns(st, lane, xf, xl, x);
  const int r = 2 * (kWarpLanes * g + lane);  // the lane's first interface row, even
  const int src = r / Kr, at = r % Kr;
#pragma unroll
  for (int i = 0; i < Kr; i += 2) {
    const T a = shfl_from(x[i], src), b = shfl_from(x[i + 1], src);
    if (at == i) {
      first = a;
      last = b;
    }
  }
}

/// The four reduced rows of a pair of lanes (InBlock, complex: lanes 2i and 2i + 1 of a segment
/// warp, their P and Q in order), in registers, as a system of four rows for lane_reduce (rows 0
/// to 3; compile-time indices once unrolled): its ends' couplings are the pair's to its
/// neighbours, which lane_reduce keeps in its P and Q.
template <class T>
struct PairRows {
  static constexpr bool padded = true;
  const Row4<T> (&rows)[4];
  PSCR_HD T sub(index_t r) const { return rows[r].a; }
  PSCR_HD T diag(index_t r) const { return rows[r].b; }
  PSCR_HD T sup(index_t r) const { return rows[r].c; }
  PSCR_HD T get(index_t r) const { return rows[r].d[0]; }
};

/// A lane pair's four reduced rows eliminated to two (lane_reduce of four rows): P (the pair's
/// first row, coupled to the pair before and to its last unknown) and Q (its last row), the two
/// interior rows kept in `st` for pair_unknowns. The same arithmetic as block_lane_reduce on those
/// rows, done before the exchange instead of after it.
template <class T>
PSCR_HD void pair_reduce(const Row4<T> (&rows)[4], LaneState<4, T>& st, Row4<T>& P, Row4<T>& Q) {
  const PairRows<T> pair{rows};
  lane_reduce<4>(pair, pair, 0, 4, st, P, Q);
}

/// The unknowns of a lane pair's four rows (`x`) from its first and last unknowns.
template <class T>
PSCR_HD void pair_unknowns(const LaneState<4, T>& st, T first, T last, T (&x)[4]) {
  lane_substitute<4>(st, BlockLaneUnknowns<T>{x, 0}, 0, 4, first, last);
}

/// A slot's lane pairs' rows in shared memory (InBlock, complex: pair_shared_solve): segment g's
/// lane j writes row kWarpLanes·g + j (pair i = 16g + j/2: its P at row 2i, its Q at 2i + 1), and
/// the solving warp's lane l reads rows 2l and 2l + 1; their a, b, c, d in four arrays of
/// kSweepClusterPairRows scalars, row r at r XOR ((r / W) mod 2), W the scalars of one 128-byte
/// wavefront (16 real, 8 complex), so that both the writes and the reads of a wavefront's lanes
/// fall on distinct banks.
template <class T>
struct PairSharedRows {
  T* base;
  static PSCR_HD int at(int r) { return r ^ ((r >> kWavefrontScalarsLog2<T>)&1); }
  PSCR_HD Row4<T> row(int r) const {
    const int t = at(r);
    return {base[t],
            base[kSweepClusterPairRows + t],
            base[2 * kSweepClusterPairRows + t],
            {base[3 * kSweepClusterPairRows + t]}};
  }
  PSCR_HD void put(int r, const Row4<T>& row) const {
    put_row4(base, kSweepClusterPairRows, at(r), row);
  }
};

/// Row `r` of lane `src` of the calling warp.
template <class T>
__device__ __forceinline__ Row4<T> shfl_row(const Row4<T>& r, int src) {
  return {shfl_from(r.a, src), shfl_from(r.b, src), shfl_from(r.c, src), {shfl_from(r.d[0], src)}};
}

/// The InBlock instance's exchange and solve for complex slots (sweep_cluster_pairs): each pair of
/// lanes of segment warp g reduces its four reduced rows (P, Q of both lanes) to two (pair_reduce,
/// both lanes alike), writes them into the slot's one buffer `rows` (PairSharedRows) and, after
/// the slot's named barrier (`barrier`, `threads`: the slot's segment warps), every warp reads the
/// system of kSweepClusterPairRows rows, two per lane, passes the barrier again (the buffer is
/// then free for the next system's rows) and solves it (guarded_reduced_solve: Guarded, for
/// complex systems not declared dominant, solved again in order where the tree's growth flags).
/// Returns the lane's interface unknowns (its P's and Q's rows), from its pair's unknowns
/// (pair_unknowns). Half the shared memory of block_reduced_solve's rows and one buffer, not two:
/// a complex block of two segment warps fits four slots.
template <bool Guarded, class T>
__device__ void pair_shared_solve(const PairSharedRows<T>& rows, int g, int barrier, int threads,
                                  const Row4<T>& P, const Row4<T>& Q, T& first, T& last) {
  const int lane = static_cast<int>(threadIdx.x) & (kWarpLanes - 1);
  const bool odd = lane & 1;
  const Row4<T> other_p = shfl_row(P, lane ^ 1), other_q = shfl_row(Q, lane ^ 1);
  const Row4<T> four[4] = {odd ? other_p : P, odd ? other_q : Q, odd ? P : other_p,
                           odd ? Q : other_q};
  LaneState<4, T> st;
  Row4<T> pair_first, pair_last;
  pair_reduce(four, st, pair_first, pair_last);
  // Chosen scalar by scalar: a choice of the whole row picks an address, and the two rows then
  // live in a local stack frame (128 bytes, 8 st.local and 4 ld.local per system).
  rows.put(kWarpLanes * g + lane, {odd ? pair_last.a : pair_first.a,
                                   odd ? pair_last.b : pair_first.b,
                                   odd ? pair_last.c : pair_first.c,
                                   {odd ? pair_last.d[0] : pair_first.d[0]}});
  barrier_sync(barrier, threads);
  const Row4<T> F = rows.row(2 * lane), L = rows.row(2 * lane + 1);
  barrier_sync(barrier, threads);
  T xf, xl;
  guarded_reduced_solve<Guarded>(F, L, xf, xl);
  const int pair = kWarpLanes / 2 * g + lane / 2;  // the solving warp's lane of the lane's pair
  T x[4];
  pair_unknowns(st, shfl_from(xf, pair), shfl_from(xl, pair), x);
  first = odd ? x[2] : x[0];
  last = odd ? x[3] : x[1];
}

/// The cluster's exchange of coarse rows (sm_90 PTX): each block's mbarrier per buffer counts the
/// bytes the warps of the cluster write into that buffer with st.async, so that a block waits for
/// the rows it reads and nothing else. A cluster barrier per system, measured first, put a
/// release fence and the wait for every block in each warp's path (Nsight Compute, real K = 8,
/// 8192 × 2^11, H100: 17% of the stall samples); with the mbarriers the kernel ran 0.185 → 0.154
/// ms at K = 16 (and the system's shift loaded a system ahead: 8% of the samples had waited on it).
/// The mbarrier helpers are rows.cuh's, which the columns method's tiles share.

/// The address in the shared memory of the cluster's block `rank` of what is at `local` here.
__device__ __forceinline__ unsigned cluster_address(unsigned local, unsigned rank) {
  unsigned remote;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote) : "r"(local), "r"(rank));
  return remote;
}
/// Writes (a, b) to `remote` (a shared::cluster address) and counts its 16 bytes on the mbarrier
/// at `remote_bar` (of the same block): one 16-byte piece of the coarse rows (coarse_piece).
__device__ __forceinline__ void store_async(unsigned remote, double a, double b,
                                            unsigned remote_bar) {
  asm volatile(
      "st.async.shared::cluster.mbarrier::complete_tx::bytes.v2.f64 [%0], {%1, %2}, [%3];" ::"r"(
          remote),
      "d"(a), "d"(b), "r"(remote_bar)
      : "memory");
}

/// 16-byte pieces of a segment's coarse rows (Condensed<T>: 4 real, 8 complex).
template <class T>
constexpr int kCoarsePieces = static_cast<int>(sizeof(Condensed<T>) / 16);

/// Piece q of a segment's coarse rows, whose 8 scalars are F.a, F.b, F.c, F.d, L.a, ..., L.d in
/// this order, as two doubles: scalars 2q and 2q + 1 of real rows, scalar q of complex ones.
/// Selects by q, not an index into the rows, which would put them in local memory.
template <class T>
__device__ __forceinline__ void coarse_piece(const Condensed<T>& rows, int q, double& lo,
                                             double& hi) {
  const auto scalar = [&](int i) {
    const bool of_f = i < 4;
    const int j = i & 3;
    const T a = of_f ? rows.F.a : rows.L.a, b = of_f ? rows.F.b : rows.L.b;
    const T c = of_f ? rows.F.c : rows.L.c, d = of_f ? rows.F.d[0] : rows.L.d[0];
    return j == 0 ? a : j == 1 ? b : j == 2 ? c : d;
  };
  if constexpr (std::is_same_v<T, double>) {
    lo = scalar(2 * q);
    hi = scalar(2 * q + 1);
  } else {
    const T v = scalar(q);
    lo = v.re;
    hi = v.im;
  }
}

/// See the file comment. Blocks of W·S warps (S = `slots`, W = blockDim.x / 32 / S segment warps),
/// C = the cluster's blocks; warp q·W + i of block b owns segment b·W + i in slot q. Cluster c's
/// slot q takes systems c·S + q, + clusters·S, ... `Slotted` false: S = 1 at compile time (the
/// code of one slot is then that of the kernel before slots; compiled for any S, ptxas gave it 163
/// registers instead of 150 at K = 16, and one slot ran 4–8% slower: H200, tridiag_bench).
/// Guarded: the spike and coarse solves (InBlock: the reduced system's solve) watched and solved
/// again in order where they flag (complex systems not declared dominant). InBlock (launches where
/// sweep_cluster_in_block holds): steps 2 to 4 for clusters of one block, the slot's segment warps
/// sharing their reduced rows (a named barrier per slot) and each solving the system's whole
/// reduced system (block_reduced_solve) instead of its spikes and the coarse system.
template <class T, int K, bool Slotted, bool Guarded, bool InBlock = false>
__global__ void __launch_bounds__(sweep_cluster_max_block_warps(Slotted, InBlock) * kWarpLanes)
    sweep_cluster_kernel(ShiftedMatrix<T> m, const T* shifts, index_t batch, int slot_count,
                         const T* d, Strides ds, T* x, Strides xs, Gate gate) {
  static_assert(!InBlock || K == 16, "the InBlock instance is K = 16's (sweep_cluster_in_block)");
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  if (gate.closed()) return;  // every block of every cluster alike
  namespace cg = cooperative_groups;
  const cg::cluster_group cluster = cg::this_cluster();
  extern __shared__ __align__(16) unsigned char smem_raw[];
  const int slots = Slotted ? slot_count : 1;
  const int C = static_cast<int>(cluster.num_blocks());
  const int W = static_cast<int>(blockDim.x) / kWarpLanes / slots;
  const int segments = W * C;
  const int w = static_cast<int>(threadIdx.x) / kWarpLanes;
  const int slot = Slotted ? w / W : 0;
  const int own = w - slot * W;  // the warp's segment in the block
  const int lane = static_cast<int>(threadIdx.x) & (kWarpLanes - 1);
  const int g = static_cast<int>(cluster.block_rank()) * W + own;  // the warp's segment
  const int A = sweep_array(K);
  // One mbarrier per buffer and slot, then the coarse rows [2][slots][segments] (InBlock: what
  // the slots exchange, sweep_cluster_block_exchange scalars each; sweep_cluster_elements).
  constexpr bool kPairs = sweep_cluster_pairs(static_cast<int>(sizeof(T)));
  auto* bars = reinterpret_cast<unsigned long long*>(smem_raw);
  auto* coarse = reinterpret_cast<Condensed<T>*>(smem_raw + 16 * slots);
  T* exchange = reinterpret_cast<T*>(coarse);
  T* tables = InBlock ? exchange + slots * sweep_cluster_block_exchange(static_cast<int>(sizeof(T)))
                      : reinterpret_cast<T*>(coarse + 2 * slots * segments);
  T* ad = tables + own * A;
  T* md = ad + W * A;
  T* ao = md + W * A;
  T* mo = ao + W * A;
  T* buffers = tables + kSweepTables * W * A + w * 2 * A;  // the warp's two buffers of d

  constexpr int kRows = kWarpLanes * K;
  static_assert((K & (K - 1)) == 0, "slots by shift");
  const index_t first = static_cast<index_t>(g) * kRows;  // the segment's first row
  const int count = static_cast<int>(
      m.n > first ? (m.n - first < kRows ? m.n - first : index_t{kRows}) : index_t{0});
  // Rows past n: d = 0 in both buffers (identity rows), and x = 0 there after every solve.
  for (int r = count + lane; r < kRows; r += kWarpLanes) {
    const int t = r + r / K;
    buffers[t] = T(0);
    buffers[A + t] = T(0);
  }
  const index_t step = gridDim.x / C * slots;  // systems the clusters take at once
  const index_t k0 = blockIdx.x / C * slots + slot;
  // The lane's rows r = lane + 32i of its warp's segment: slot r + r / K (sweep_slot; K a power
  // of two, so a shift), row r of the system `ds.row` scalars further each time. The float-based
  // sweep_slot and a 64-bit index product per row cost about ten instructions in the copy and
  // store loops (Nsight Compute, 8192 × 2^11, H100: 10–15% of the stall samples there).
  auto fetch = [&](index_t k, T* buffer) {
    const T* src = d + ds.at(k, first + lane);
    for (int r = lane; r < count; r += kWarpLanes, src += kWarpLanes * ds.row)
      copy_async(buffer + r + r / K, src);
    copy_async_commit();
  };
  // The first system's d in flight before the tables' loads, which the segment's S warps share
  // (warp q: rows q·32 + lane, + 32·S, ...); the cluster barrier below orders them before any
  // use. The launch's start waited on them: with the warp of slot 0 loading its segment's 513
  // rows alone, the barrier after them held 4.8% of the stall samples (Nsight Compute, real
  // 1024 × 2^14, K = 16, three slots, H200). Unrolled, so that several rows' loads are in flight.
  if (k0 < batch) fetch(k0, buffers);
#pragma unroll 4
  for (int r = slot * kWarpLanes + lane; r <= kRows; r += slots * kWarpLanes) {
    const int t = r + r / K;  // sweep_slot (K a power of two)
    const ShiftedMatrixRow<T> e = shifted_matrix_row(m, first + r);
    ad[t] = e.ad;
    md[t] = e.md;
    ao[t] = e.ao;
    mo[t] = e.mo;
  }
  if (threadIdx.x < 2 * slots) {
    mbarrier_init(shared_address(bars + threadIdx.x), 1);
    mbarrier_init_fence();
  }
  cluster.sync();  // every block runs, its mbarriers set, before any writes another's memory
  const unsigned coarse_bytes = static_cast<unsigned>(segments * sizeof(Condensed<T>));

  int width = 1;  // lanes of the coarse solve
  while (width < segments) width *= 2;
  const int base = lane * (K + 1);
  int parity = 0;
  unsigned uses = 0;  // of each buffer's mbarrier before this system: its phase parity
  T shift = k0 < batch ? shifts[k0] : T(0);
  for (index_t k = k0; k < batch; k += step, parity ^= 1, uses += parity == 0) {
    T* dx = buffers + parity * A;
    const int b = parity * slots + slot;  // the slot's buffer of coarse rows, and its mbarrier
    const unsigned bar = shared_address(bars + b);
    if (!InBlock && C > 1 && own == 0 && lane == 0) mbarrier_expect(bar, coarse_bytes);
    const T next_shift = k + step < batch ? shifts[k + step] : T(0);
    if (k + step < batch) {
      fetch(k + step, buffers + (parity ^ 1) * A);
      copy_async_wait_pending<1>();
    } else {
      copy_async_wait();
    }
    __syncwarp();
    SweepLaneKept<T, K> kept;
    Row4<T> P, Q;
    sweep_reduce(SweepRows<T>{ad, md, ao, mo, shift}, dx, kept, base, K, P, Q);
    T x_first, x_last;  // the lane's interface unknowns
    if constexpr (InBlock && kPairs) {
      const PairSharedRows<T> rows{exchange + slot * kSweepClusterPairScalars};
      pair_shared_solve<Guarded>(rows, own, 1 + slot, W * kWarpLanes, P, Q, x_first, x_last);
    } else if constexpr (InBlock) {
      const BlockReducedRows<T> rows{exchange + b * kSweepClusterBlockReducedScalars};
      rows.put(2 * (own * kWarpLanes + lane), P);
      rows.put(2 * (own * kWarpLanes + lane) + 1, Q);
      // Every segment warp of the slot has written its rows; a warp writes this buffer again two
      // systems later, after the barrier of the system between, which each warp passes only once
      // it has read this one.
      barrier_sync(1 + slot, W * kWarpLanes);
      block_reduced_solve<Guarded>(rows, own, x_first, x_last);
    } else {
      T xf[3], xl[3];  // spikes of the lane's first and last unknowns
      Condensed<T>* buffer = coarse + b * segments;
      T f[3], l[3];
      segment_spikes<Guarded>(P, Q, xf, xl, f, l);
      const Condensed<T> rows = spike_coarse_rows(f, l);
      // Lane P·r + q writes piece q of the rows into block r (P pieces: one pass of the warp for
      // real rows, clusters of at most 8 blocks, and for complex ones of at most 4, K = 8). A
      // cluster of one block takes plain shared stores and its slot's named barrier, as the
      // InBlock instance does: st.async is for clusters of at least 2 blocks (compute-sanitizer
      // rejects it in one; docs/tridiag-performance.md, "The GPU code under compute-sanitizer").
      constexpr int kPieces = kCoarsePieces<T>;
      for (int i = lane; i < kPieces * C; i += kWarpLanes) {
        const int rank = i / kPieces, q = i % kPieces;
        double lo, hi;
        coarse_piece(rows, q, lo, hi);
        if (C == 1) {
          reinterpret_cast<double2*>(buffer + g)[q] = make_double2(lo, hi);
        } else {
          const unsigned local = shared_address(buffer + g) + 16u * static_cast<unsigned>(q);
          store_async(cluster_address(local, rank), lo, hi, cluster_address(bar, rank));
        }
      }
      // A cluster of one block: as at the InBlock barrier above, a warp writes this buffer again
      // two systems later, after the barrier of the system between.
      if (C == 1)
        barrier_sync(1 + slot, W * kWarpLanes);
      else
        mbarrier_wait(bar, uses & 1u);
      T x_minus, x_plus;
      {
        T cf, cl;
        solve_coarse_rows<Guarded>(buffer, segments, width, cf, cl);
        segment_outside_unknowns(cf, cl, g, segments, x_minus, x_plus);
      }
      x_first = xf[0] + xf[1] * x_minus + xf[2] * x_plus;
      x_last = xl[0] + xl[1] * x_minus + xl[2] * x_plus;
    }
    sweep_substitute(dx, kept, base, K, x_first, x_last);
    __syncwarp();
    T* dst = x + xs.at(k, first + lane);
    for (int r = lane; r < count; r += kWarpLanes, dst += kWarpLanes * xs.row) *dst = dx[r + r / K];
    __syncwarp();
    shift = next_shift;
  }
  cluster.sync();  // no block leaves while another may still write its shared memory
#else
  __trap();  // launched only on compute capability 9.0 and later (launch_sweep_cluster)
#endif
}

}  // namespace pscr::tridiag::cuda::detail
