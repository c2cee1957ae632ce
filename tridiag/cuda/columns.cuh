#pragma once
/// @file The columns method, for layouts whose systems lie side by side (interleaved: row r of
/// systems k, k + 1, ... adjacent in memory). The segment method's segments and register
/// partition (segment.cuh) with the roles of lanes and systems swapped: a thread owns K
/// consecutive rows (a chunk) of one system, as a lane of the segment method does, but the
/// threads of a block take G adjacent systems × `chunks` chunks with the system index fastest
/// (thread t: system t mod G, chunk t / G), so every load and store of a warp reads rows of G
/// adjacent systems (128 bytes: columns_systems), coalesced with no transposing tile, and the
/// shifted form's A, M rows are the same for every lane of a chunk (broadcast reads).
///
/// Per unit (G systems × one segment of chunks·K rows):
///  - each thread reduces its chunk to its two reduced rows P, Q (lane_reduce), which go to
///    shared memory;
///  - a group of `chunks` lanes per system takes them back, lane j chunk j's, and solves them
///    with shuffles (warp_reduced_solve; a warp serves 32 / chunks systems, so every warp of the
///    block solves once): the whole pass, one segment per system, d read once and x written
///    once; the substitute pass, with the segment's first and last unknowns fixed to the coarse
///    solution. The reduce pass condenses them instead (warp_condense over the group) into the
///    segment's two coarse rows, written to global memory as the segment method's reduce pass
///    writes them (system k's row e at k·2·segments + e);
///  - each thread solves its interior again from its chunk's interface unknowns (lane_resolve)
///    and writes x.
/// Complex shifted systems of one segment on contiguous rows take the same whole pass through
/// shared-memory tiles of the block's systems (ColumnsStage::tiles, columns_tiles), where each
/// thread solves its chunk in place in the tile as a lane of the sweep method solves its rows,
/// once, instead of reducing it and solving it again (columns_sweeps).
/// Lanes past the batch repeat the last system and store nothing. Where columns_prefetches, a
/// thread loads its rows of the block's next unit, and that system's shift, before it solves the
/// current one (through tiles, the shift only: the rows come a unit ahead in the tile). Shifted
/// systems with 16-byte aligned rows take other kernels for the reduce and substitute passes, one
/// lane per (system, segment) (columns_lanes_reduce_kernel, columns_lanes_substitute_kernel,
/// segment_lanes.cuh). Include only from .cu files.

#include <type_traits>

#include "tridiag/cuda/segment.cuh"
#include "tridiag/cuda/sweep.cuh"

namespace pscr::tridiag::cuda::detail {

/// Most threads per block of the columns kernel (G systems × chunks chunks).
constexpr int kColumnsMaxThreads = 256;

/// Chunks per segment of the columns method where a system takes several segments: 16 for the
/// shifted form and real general systems, 8 for complex general ones. Shifted systems reduce their
/// segments one lane per (system, segment) (columns_lanes_reduce_kernel), which pays per segment
/// for its coarse rows' stores; at 16 chunks it took 62–65 µs at real interleaved 65536 × 256,
/// K = 8, against columns_kernel's 83 µs at 8 chunks and its own 90 µs at 8, and the coarse solve
/// 9 against 16 µs (Nsight Compute, H100). H100 A/B (tridiag_bench, interleaved, 3 rounds): real
/// shifted K = 8 3–9% faster than 8 chunks without it (65536 × 256 0.2502 → 0.2380 ms), K = 4 15%;
/// real general within ±2%; complex shifted K = 4, then reduced by columns_kernel, 3–7% slower.
/// Reduced by lanes, complex shifted K = 4 is 1–7% faster at 16 chunks than at 8 (H200 A/B,
/// 65536 × 256 0.494 → 0.459 ms; docs/tridiag-performance.md); complex general systems, reduced
/// by columns_kernel, keep 8.
__host__ __device__ constexpr int columns_segment_chunks(std::size_t scalar_bytes, bool general) {
  return scalar_bytes == 8 || !general ? 16 : 8;
}

/// Whether the columns method's whole pass at K rows per chunk, scalars of `scalar_bytes`, the
/// general form or the shifted one, can take systems of two 32-chunk segments in one pass
/// (2·kWarpLanes chunks: columns_pass's warps each condense their segment's reduced rows, the
/// block solves each system's four coarse rows, each warp substitutes with both ends known): real
/// shifted systems at K = 16, which the capped whole pass takes in blocks of up to 512 threads (8
/// systems).
__host__ __device__ constexpr bool columns_two_segment_pass(int K, std::size_t scalar_bytes,
                                                            bool general) {
  return !general && scalar_bytes == 8 && K == 16;
}

/// Whether systems of n rows can take that pass (columns_two_segment_pass): those of 513 to 1024
/// rows. The host takes it where the batch is small enough (columns_two_segments_run, solve.cu);
/// columns_chunks gives the two-pass segments.
__host__ __device__ constexpr bool columns_two_segments(index_t n, int K, std::size_t scalar_bytes,
                                                        bool general) {
  return columns_two_segment_pass(K, scalar_bytes, general) && n > kWarpLanes * K &&
         n <= 2 * kWarpLanes * K;
}

/// Chunks per segment of the columns method for systems of n rows, K rows per chunk, scalars of
/// `scalar_bytes`, the general form or the shifted one: the fewest (a power of two) that cover n
/// where at most 32 do (one segment, one pass), else columns_segment_chunks.
__host__ __device__ inline int columns_chunks(index_t n, int K, std::size_t scalar_bytes,
                                              bool general) {
  const int width = segment_width(n, K);
  return static_cast<index_t>(width) * K >= n ? width
                                              : columns_segment_chunks(scalar_bytes, general);
}

/// Segments of columns_chunks(n, K, scalar_bytes, general)·K rows in a system of n rows.
__host__ __device__ inline index_t columns_segments(index_t n, int K, std::size_t scalar_bytes,
                                                    bool general) {
  const index_t rows = static_cast<index_t>(columns_chunks(n, K, scalar_bytes, general)) * K;
  return (n + rows - 1) / rows;
}

/// Most threads per block of the columns kernel for complex chunks of at least 128 bytes (K ≥ 8)
/// of the shifted form: their registers leave an SM 8 (K = 16) or 12 warps (K = 8,
/// columns_capped), which then run as two or three blocks, each between its own barriers, instead
/// of one. H100 (tridiag_bench, interleaved, shifted, 3 rounds, ms, blocks of 256 → 128 threads):
/// complex K = 8 200 × 84000 0.416 → 0.385, 255 × 2^16 0.359 → 0.313; K = 16 361 × 2^16 0.540 →
/// 0.526, 511 × 2^16 0.617 → 0.586, 512 × 2^15 0.316 → 0.314 (0.322 → 0.309 in another run); K = 4
/// at 127 × 2^17 within 1% and K = 2 at 64 × 2^18 5% slower (their registers allow 16 warps and
/// more), real K = 16 at 512 × 2^15 15% slower (rows of 32 bytes per system group). The general
/// form (a, b, c loaded per row as well) ran 8–19% slower in such blocks (complex K = 16
/// 361 × 2^16 1.397 → 1.592 ms, 512 × 2^15 0.873 → 1.032; K = 8 255 × 2^16 0.832 → 0.896) and
/// keeps blocks of 256.
constexpr int kColumnsMaxComplexWideThreads = 128;

/// Systems per block of the columns kernel with `chunks` chunks of K rows per system, for the
/// general form or the shifted one: enough that a warp's load of one row covers 128 bytes of
/// adjacent systems (16 real, 8 complex; 64 bytes where 32 chunks fill the largest block), and at
/// least a warp of threads. Measured within 2% of blocks of 256 threads throughout (H200 A/B,
/// docs/tridiag-performance.md), except shifted complex K ≥ 8 (kColumnsMaxComplexWideThreads).
/// Blocks of up to `max_threads` threads (columns_capped_threads for the passes that may take
/// more).
__host__ __device__ constexpr int columns_systems(int chunks, int K, std::size_t scalar_bytes,
                                                  bool general,
                                                  int max_threads = kColumnsMaxThreads) {
  const int wide = static_cast<int>(128 / scalar_bytes);
  const int most = !general && scalar_bytes > 8 && K * scalar_bytes >= 128
                       ? kColumnsMaxComplexWideThreads
                       : max_threads;
  const int G = wide * chunks > most ? most / chunks : wide;
  return G * chunks < kWarpLanes ? kWarpLanes / chunks : G;
}

/// Blocks of 256 threads per SM that the columns kernel's registers are capped for (ptxas takes
/// what the cap allows): 3 (80 registers) where the capped code does not spill, i.e. a thread's
/// rows take at most 32 bytes (real K ≤ 4, complex K = 2) or the reduce pass's at most 64; 2
/// (128) for the other passes up to 64 bytes (real K = 8, complex K = 4); else 1. H100 A/B
/// (tridiag_bench, interleaved, shifted form): real K = 4 17–20% faster than under a cap of 128
/// (64 × 2^18 0.1778 → 0.1485 ms), K = 8 2–4% (its reduce pass 105 → 72 registers), complex
/// K = 2 3–7%; 3 blocks for real K = 8 whole and substitute passes too spilled and was 1–32%
/// slower. Uncapped, ptxas gave real K = 8 150 registers (one block per SM).
template <int K, SegmentPass Pass, class T>
constexpr int columns_min_blocks() {
  return K * sizeof(T) <= 32 || (Pass == SegmentPass::reduce && K * sizeof(T) <= 64) ? 3
         : K * sizeof(T) <= 64                                                       ? 2
                                                                                     : 1;
}

/// Registers per thread of columns_capped_kernel, which runs the shifted form's whole pass where a
/// thread's rows take 128 bytes (real K = 16, complex K = 8; columns_capped) in place of
/// columns_kernel (columns_capped_registers): real 128 (16 warps per SM), complex 168 (12 warps in
/// blocks of at most 128 threads, kColumnsMaxComplexWideThreads; no spills). Uncapped they took 212
/// (real) and 206 registers, 8 warps. Launch bounds for two blocks of 256 threads cap at 128 as
/// well, but ptxas then spilled 248 bytes of real K = 16's whole pass against 28 under
/// `__maxnreg__` (and so did `__maxnreg__` beside launch bounds for one block or none, in the
/// kernel itself), and that ran 23% slower than uncapped at 64 × 2^18. H100 (tridiag_bench,
/// interleaved, shifted, best of 2 rounds, ms, uncapped → capped): real K = 16 64 × 2^18 0.1455 →
/// 0.1230, 127 × 2^17 0.1496 → 0.1254, 255 × 2^16 0.1587 → 0.1422, 512 × 2^15 0.1700 → 0.1459;
/// complex K = 8 at 168 registers 64 × 2^18 0.2990 → 0.2622, 127 × 2^17 0.3225 → 0.2821 (at 128:
/// 0.2943, 0.3107, 132 bytes spilled), at 128 in 256-thread blocks 255 × 2^16 0.3612 → 0.3300 (at
/// 168 in one block of 8 warps: 0.3584; in two blocks of 4, since kColumnsMaxComplexWideThreads,
/// 0.313). Complex K = 16 spilled 128–940 bytes under caps of 200, 168 and 128 and was 5–137%
/// slower, so it keeps columns_kernel's 254.
__host__ __device__ constexpr bool columns_capped_pass(SegmentPass pass, int K,
                                                       std::size_t scalar_bytes, bool general) {
  return !general && pass == SegmentPass::whole && K * scalar_bytes == 128;
}
template <int K, SegmentPass Pass, class T, class Form>
constexpr bool columns_capped() {
  return columns_capped_pass(Pass, K, sizeof(T), !std::is_same_v<Form, ShiftedForm<T>>);
}

/// The interior row at which columns_pass's lanes meet (lane_reduce, lane_resolve): the middle for
/// the complex passes and the general form's real ones (kLaneMiddle: two chains, half the FP64
/// latency that bounds them), except under the capped passes' register caps, where the second
/// chain's state spilled (ptxas: complex K = 8 0 → 28/52 bytes stored/loaded; real K = 16 28/44 →
/// 92/92, 25% slower at interleaved 512 × 2^15 on an H200). Those and the shifted form's real
/// passes keep the downward chain alone (K − 2): it ran the shifted form's 2.1% faster at
/// interleaved 127 × 2^17, within the copy's spread elsewhere, while the general form's K = 4 and
/// 16 ran 3–17% faster in the middle, K = 8 4–8% slower (H200). docs/tridiag-performance.md, "The
/// real columns passes keep the downward chain" and "The general form's real columns passes meet
/// in the middle again".
template <int K, SegmentPass Pass, class T, class Form>
constexpr int columns_lane_middle() {
  constexpr bool shifted = std::is_same_v<Form, ShiftedForm<T>>;
  return (sizeof(T) > 8 || !shifted) && !columns_capped<K, Pass, T, Form>() ? kLaneMiddle<K>
                                                                            : K - 2;
}

/// Whether columns_pass reads the shifted form's table in chunks (ColumnTable's Chunked): the whole
/// passes but the capped ones. A segmented pass's blocks hold at least a phase's threads' systems
/// (columns_segment_chunks: 16 chunks of G = 16 real or 8 complex systems), so a phase reads one
/// row of one chunk, a broadcast, without the chunks; unchunked, their code is that of the
/// unpadded table (chunked, complex K = 4 substitute spilled 52/56 bytes stored/loaded against
/// 28/32 under its 80 registers). Under the capped whole passes' register caps (columns_capped:
/// real K = 16, complex K = 8) the chunked table spilled (real K = 16 28/44 → 76/104 bytes), so
/// they keep their bank conflicts (none where a block holds a phase's threads' systems, as real
/// K = 16's blocks of 16 systems do).
__host__ __device__ constexpr bool columns_chunked_table_pass(SegmentPass pass, int K,
                                                              std::size_t scalar_bytes,
                                                              bool general) {
  return pass == SegmentPass::whole && !columns_capped_pass(pass, K, scalar_bytes, general);
}
template <int K, SegmentPass Pass, class T, class Form>
constexpr bool columns_chunked_table() {
  return columns_chunked_table_pass(Pass, K, sizeof(T), !std::is_same_v<Form, ShiftedForm<T>>);
}

template <class T>
constexpr int columns_capped_registers() {
  return sizeof(T) == 8 ? 128 : 168;
}

/// Most threads per block of columns_capped_kernel: real 512, 16 systems of up to 32 chunks (rows
/// of 128 bytes, as the systems of fewer chunks already take in blocks of 256), one block of 16
/// warps per SM at 128 registers; complex kColumnsMaxThreads (its blocks take at most
/// kColumnsMaxComplexWideThreads). H100 A/B (tridiag_bench, interleaved, shifted, real K = 16, 3
/// rounds, ms, blocks of 256 → 512): 361 × 2^16 0.2242 → 0.1924, 400 × 40000 0.1592 → 0.1321,
/// 511 × 2^16 0.2753 → 0.2295, 512 × 2^15 0.1374 → 0.1267 (64 bytes of each row per block before),
/// 255 × 2^16 (16 chunks: blocks of 256 either way) 0.1223 → 0.1203; 511 systems of 511 rows 0.0141
/// → 0.0164, 32 blocks on 132 SMs (columns_block_systems keeps them in blocks of 256).
template <class T>
constexpr int columns_capped_threads() {
  return sizeof(T) == 8 ? 2 * kColumnsMaxThreads : kColumnsMaxThreads;
}

/// Whether the whole pass of columns_kernel loads its next unit's rows of d into registers before
/// it solves the current unit, so that the loads run under the arithmetic: the shifted form where
/// a thread's rows take at least 64 bytes (real K ≥ 8, complex K ≥ 4). H100 A/B (tridiag_bench,
/// interleaved, 3 rounds, n = 64–512): shifted real K = 8 12–14% faster (64 × 2^18 0.154 →
/// 0.132 ms), K = 16 2–5%, complex K = 4 2–4%, K = 8 and 16 10–17%; real K ≤ 4 (80 registers for
/// 3 blocks per SM) 8–14% slower; the general form (a, b, c loaded per row as well) complex K = 4
/// 4–5% and K = 16 12–16% slower, real K = 8 1–3% slower, real K = 16 15% faster; in the reduce
/// and substitute passes shifted real K = 8 within ±4%, complex K = 4 8–12% slower (its reduce
/// pass spills).
template <int K, SegmentPass Pass, class T, class Form>
constexpr bool columns_prefetches() {
  return Pass == SegmentPass::whole && std::is_same_v<Form, ShiftedForm<T>> && K * sizeof(T) >= 64;
}

/// How columns_pass takes a unit's rows of d: loaded by each thread (none; the shifted whole pass
/// loads the next unit's ahead, columns_prefetches); copied into shared memory a unit ahead as
/// 16-byte pieces of two systems' row (rows: columns_stages); or, for the complex shifted whole
/// pass on contiguous rows, copied a unit ahead as a tile of the block's G systems, which are one
/// run of memory, and taken from it by each thread, x going back through the tile (tiles:
/// columns_tiles, and columns_tiles_apply in solve.cu).
enum class ColumnsStage { none, rows, tiles };

/// Whether scalars of `scalar_bytes` take the tiles of ColumnsStage::tiles: complex ones. Real
/// systems ran them at best level with the segment method (127 × 2^14, K = 8: 0.0246 against
/// 0.0247 ms) and 13–45% slower at 64, 255 and 512 rows, and that tie, taken by the selection
/// table, gave PSCR 3D Poisson 180³ 7% more time (H100, docs/tridiag-performance.md).
__host__ __device__ constexpr bool columns_tiles_scalar(std::size_t scalar_bytes) {
  return scalar_bytes == sizeof(Complex);
}

/// Whether a pass of columns_pass may take its rows through tiles (ColumnsStage::tiles; the
/// caller checks that the rows are contiguous and one segment covers n): the shifted whole pass of
/// complex systems (columns_tiles_scalar).
template <SegmentPass Pass, class T, class Form>
constexpr bool columns_tiles() {
  return Pass == SegmentPass::whole && std::is_same_v<Form, ShiftedForm<T>> &&
         columns_tiles_scalar(sizeof(T));
}

/// Whether columns_pass solves a thread's chunk as the sweep method solves a lane's rows
/// (sweep_reduce, sweep_substitute: Thomas downward with the x_p column carried along, c′ and v
/// kept in registers across the reduced solve, d′ and then x over d in the unit's tile) instead of
/// eliminating it twice (lane_reduce, then lane_resolve once the interface unknowns are known):
/// the passes through tiles (ColumnsStage::tiles) whose table is chunked (columns_chunked_table:
/// K = 4 and 16).
__host__ __device__ constexpr bool columns_tile_sweeps(int K, std::size_t scalar_bytes) {
  return K >= 4 && columns_chunked_table_pass(SegmentPass::whole, K, scalar_bytes, false);
}
template <int K, class T, ColumnsStage Stage>
constexpr bool columns_sweeps() {
  return Stage == ColumnsStage::tiles && columns_tile_sweeps(K, sizeof(T));
}

/// Tiles of columns_pass's ColumnsStage::tiles: the current unit's (rows in, then x), and the
/// last unit's, whose x is stored and which then takes the next unit's rows.
constexpr int kColumnsTiles = 2;
static_assert(kColumnsTiles * 8 <= sizeof(Complex), "the tiles' mbarriers fit a scalar");

/// Whether the substitute pass of columns_kernel stages the next unit's d in shared memory
/// (16-byte cp.async, issued once the threads have taken the current unit's rows, so the copy runs
/// under the reduced solve, the resolve and the stores): the general form, real, where the rows of
/// d are 16-byte pieces of two systems (paired_systems: every block's first system is a
/// multiple of G, which is even). H100 A/B (tridiag_bench, interleaved, 3 rounds,
/// n = 1024 to 2^20): real general K = 4 and 8 7–10% faster (65536 × 256, K = 4 0.5736 →
/// 0.5250 ms), K = 16 2–3%; real shifted 1–9% slower (K = 8 65536 × 256 0.2394 → 0.2567 ms; 126
/// registers instead of 115), so the shifted form loads d directly.
template <SegmentPass Pass, class T, class Form>
constexpr bool columns_stages() {
  return Pass == SegmentPass::substitute && sizeof(T) == 8 && std::is_same_v<Form, GeneralForm<T>>;
}

/// Scalars of shared memory before columns_pass's arrays: with two segments per system
/// (columns_two_segments, chunks > 32), each warp's condensed rows of its segment (8 scalars).
__host__ __device__ constexpr int columns_halves_elements(int threads, int chunks) {
  return chunks > kWarpLanes ? 8 * (threads / kWarpLanes) : 0;
}

/// Scalars of one of a ColumnTable's four arrays: `chunks` chunks of K + 1 slots where `chunked`
/// (columns_chunked_table), else the segment's chunks·K + 1 rows.
__host__ __device__ constexpr int columns_table_column(int chunks, int K, bool chunked) {
  return chunked ? chunks * (K + 1) : chunks * K + 1;
}

/// Scalars of shared memory of columns_kernel with `threads` threads, `chunks` chunks per system
/// and K rows per chunk (after columns_halves_elements):
///  - the chunks' reduced rows P, Q as eight arrays (a, b, c, d of P, then of Q) of
///    chunks · (G + 1) scalars, chunk c of the block's system g at c·(G + 1) + g (the padding
///    keeps the coarse solve's reads, chunk-fastest, on distinct banks); the interface unknowns
///    x_first, x_last overwrite P's a and b (each group reads its system's rows before it writes
///    them);
///  - the shifted form's ColumnTable of the segment's chunks·K + 1 rows (columns_table_column,
///    chunked or not: `chunked_table`);
///  - where ColumnsStage::rows, the unit's d: chunks·K rows of G systems, row-major (row i of the
///    segment at i·G); where ColumnsStage::tiles, kColumnsTiles tiles of G systems
///    (columns_tile_elements), then a scalar that holds their mbarriers (8 bytes each).
__host__ __device__ constexpr int columns_smem_elements(int threads, int chunks, int K,
                                                        bool shifted, bool chunked_table,
                                                        ColumnsStage stage, int tile_elements = 0) {
  return columns_halves_elements(threads, chunks) + 8 * (threads + chunks) +
         (shifted ? 4 * columns_table_column(chunks, K, chunked_table) : 0) +
         (stage == ColumnsStage::rows    ? threads * K
          : stage == ColumnsStage::tiles ? kColumnsTiles * tile_elements + 1
                                         : 0);
}

/// Whether a tile of ColumnsStage::tiles pads each chunk of K rows with a scalar: where the block's
/// G systems are fewer than the threads of a phase of shared-memory accesses (128 bytes: P = 128 /
/// scalar_bytes threads), which then read row i of P / G chunks of each system.
__host__ __device__ constexpr bool columns_tile_pads(int G, std::size_t scalar_bytes) {
  return G < static_cast<int>(128 / scalar_bytes);
}

/// Scalars between systems of a tile of the columns method's whole pass on contiguous rows
/// (ColumnsStage::tiles): system g's row i at g·stride + i (+ i / K where columns_tile_pads), at
/// least n (+ (n − 1) / K; every chunk's K rows where the chunks are solved in place,
/// columns_tile_sweeps), and such that the threads of a phase read their rows i on distinct
/// banks: g·stride (+ c·(K + 1)) distinct mod P, which an odd stride gives where G ≥ P, and a
/// stride of P / G mod P (with K + 1 odd) where G < P.
__host__ __device__ inline int columns_tile_stride(index_t n, int K, int G,
                                                   std::size_t scalar_bytes) {
  const int P = static_cast<int>(128 / scalar_bytes);
  const bool pads = columns_tile_pads(G, scalar_bytes);
  const int m = pads ? P : 2, want = pads ? P / G : 1;
  // Where the chunks are solved in place (columns_tile_sweeps), every chunk's K rows.
  const index_t rows = columns_tile_sweeps(K, scalar_bytes)
                           ? index_t{columns_chunks(n, K, scalar_bytes, false)} * K
                           : n;
  const int least = static_cast<int>(rows + (pads ? (rows - 1) / K : 0));
  return least + ((want - least % m) % m + m) % m;
}

/// Slot of system h's row i in a tile of columns_tile_stride `stride` (padded: columns_tile_pads).
template <int K>
PSCR_HD constexpr int columns_tile_slot(int h, int i, int stride, bool padded) {
  return h * stride + i + (padded ? i / K : 0);
}

/// Rows of a run of the tiles' bulk copies: a stretch of a system's rows that is one run of memory
/// in d, x and the tile, all n where the tile has no pads, a chunk's K where it has
/// (columns_tile_pads).
__host__ __device__ constexpr int columns_tile_run_rows(index_t n, int K, bool padded) {
  return padded ? K : static_cast<int>(n);
}

/// Scalars of one tile (G systems of columns_tile_stride).
__host__ __device__ inline int columns_tile_elements(index_t n, int K, int G,
                                                     std::size_t scalar_bytes) {
  return G * columns_tile_stride(n, K, G, scalar_bytes);
}

/// The shifted form's A and M over the rows [p0, p0 + L] of the block's current segment (L =
/// chunks·K), in shared memory (loaded once per segment, read by every system of the block): table
/// row i holds shifted_matrix_row(p0 + i) (diagonals ad, md; couplings ao, mo to the row before;
/// identity rows past n), chunk c's rows c·K .. c·K + K (its K rows and the one after, whose
/// coupling its last row takes) at slots c·(K + 1) .. c·(K + 1) + K of four arrays of
/// columns_table_column scalars: the row after a chunk, the next chunk's first, is there twice. A
/// lane of chunk c reads row i at slot i + c (through the table moved c slots on, lane_table), a
/// compile-time step from its first row's slot, and the same row of consecutive chunks lies K + 1
/// scalars apart, an odd count, so that the threads of a phase of shared-memory accesses (128
/// bytes) that read it for several chunks (blocks of fewer systems than the phase's threads) read
/// distinct banks. Unpadded, K·16 or K·8 bytes apart, they fell on the same banks (complex
/// interleaved 512 × 2^15, K = 16, blocks of 4 systems: each table read two wavefronts, 16.5 M of
/// the kernel's 34.1 M shared-load wavefronts in excess; Nsight Compute, H200); a pad formed by a
/// division per access (slot i + i / K) spilled registers and ran up to 1.9× slower, and this
/// layout took that kernel 0.259 → 0.233 ms (docs/tridiag-performance.md).
///
/// Chunked = false (columns_chunked_table): row i at slot i, i = 0..L, a prefix of the same shared
/// memory, for the passes whose chunked table would cost registers and gain nothing or little.
template <class T, int K, bool Chunked = true>
struct ColumnTable {
  T* base;
  int slots;  ///< of each array: slots_of(chunks)
  PSCR_HD static int slots_of(int chunks) { return columns_table_column(chunks, K, Chunked); }
  PSCR_HD T* ad() const { return base; }
  PSCR_HD T* md() const { return base + slots; }
  PSCR_HD T* ao() const { return base + 2 * slots; }
  PSCR_HD T* mo() const { return base + 3 * slots; }
  /// The table as the lanes of chunk c read it: row i at index i (slot i + c where Chunked).
  PSCR_HD ColumnTable lane_table(int c) const { return {Chunked ? base + c : base, slots}; }
  /// Chunk c's rows of A + s M as the sweep method's lane steps read them (columns_sweeps): its row
  /// i at slot i, the next chunk's first row one slot after its last (Chunked only).
  PSCR_HD SweepRows<T, 1> sweep_rows(int c, T s) const {
    static_assert(Chunked, "the sweep's lane steps read a chunk's K + 1 slots");
    const int at = c * (K + 1);
    return {ad() + at, md() + at, ao() + at, mo() + at, s};
  }
  /// Loads rows [p0, p0 + L], slots first, first + step, ... (the kernel: a block's threads,
  /// first = threadIdx.x, step = blockDim.x; the caller synchronizes).
  PSCR_HD void load(const ShiftedMatrix<T>& m, index_t p0, int first, int step) const {
    for (int slot = first; slot < slots; slot += step) {
      const int row = Chunked ? slot - slot / (K + 1) : slot;
      const ShiftedMatrixRow<T> e = shifted_matrix_row(m, p0 + row);
      ad()[slot] = e.ad;
      md()[slot] = e.md;
      ao()[slot] = e.ao;
      mo()[slot] = e.mo;
    }
  }
};

/// Rows of A + s M from a ColumnTable starting at global row p0 (for the lanes of chunk c, the
/// table's lane_table(c)). Padded (identity rows past n, zero couplings at the ends), so the lane
/// steps check no bounds; every lane of a chunk reads the same table row (a broadcast).
template <class T, int K, bool Chunked>
struct ColumnTableRows {
  static constexpr bool padded = true;
  static constexpr bool symmetric = true;
  ColumnTable<T, K, Chunked> table;
  T s;
  index_t p0;
  PSCR_HD T coupling(int i) const { return table.ao()[i] + s * table.mo()[i]; }
  PSCR_HD T sub(index_t r) const { return coupling(static_cast<int>(r - p0)); }
  PSCR_HD T diag(index_t r) const {
    const int i = static_cast<int>(r - p0);
    return table.ad()[i] + s * table.md()[i];
  }
  PSCR_HD T sup(index_t r) const { return coupling(static_cast<int>(r - p0) + 1); }
};

/// Rows of system k for the columns kernel: the shifted form's from the segment's table (a lane's:
/// ColumnTable::lane_table), the general form's a, b, c from global memory in the layout of d.
template <class T, int K, bool Chunked>
__device__ ColumnTableRows<T, K, Chunked> column_rows(const ShiftedForm<T>& f,
                                                      const ColumnTable<T, K, Chunked>& table,
                                                      index_t p0, index_t k, Strides) {
  return {table, f.shifts[k], p0};
}
template <class T, int K, bool Chunked>
__device__ GeneralGlobalRows<T> column_rows(const GeneralForm<T>& f,
                                            const ColumnTable<T, K, Chunked>&, index_t, index_t k,
                                            Strides s) {
  return f.global_rows(k, s);
}

/// One pass of the columns method (see the file comment) over the units of `segments` segments
/// of chunks·K rows (columns_chunks, columns_segments) and groups of G = blockDim.x / chunks
/// systems, segment-major (blocks that run together read adjacent systems of the same rows). Coarse
/// arrays as in segment_kernel. The body of columns_kernel and columns_capped_kernel.
///
/// Windows (the window method on rows side by side: launch_window in solve.cu): the whole pass over
/// `segments` windows of chunks·K = 32·K rows instead (sweep_window's geometry: overlapping by
/// 2·kWindowHaloRows, window j writing rows [j·inner, (j + 1)·inner)), each solved as a system of
/// its own (window_matrix: no coupling to the rows outside), in local rows: its table is the
/// window's, its rows of d come from lo on, and x is written at its inner rows only. Watch (the
/// bound not assured): each thread checks its chunk's rows at its system's shift, and the block
/// stops once a row is past the bound (WindowWatch).
template <int K, SegmentPass Pass, class T, class Form, ColumnsStage Stage, bool Windows = false,
          bool Watch = false>
__device__ __forceinline__ void columns_pass(Form form, index_t n, index_t batch, index_t segments,
                                             int chunks, const T* d, Strides ds, T* x, Strides xs,
                                             T* ca, T* cb, T* cc, T* cd, WindowWatch watch) {
  static_assert(!Windows || (Pass == SegmentPass::whole && Stage == ColumnsStage::none &&
                             std::is_same_v<Form, ShiftedForm<T>>),
                "windows: the shifted form's whole pass, rows loaded by each thread");
  static_assert(!Watch || Windows, "the watch: the window method's windows");
  if (form.gate.closed()) return;  // the window method's fallback, where its kernel found no row
  extern __shared__ __align__(16) unsigned char smem_raw[];
  // Systems of two segments (columns_two_segments): chunks > 32 in such a pass only.
  constexpr bool kTwoSegments =
      Pass == SegmentPass::whole &&
      columns_two_segment_pass(K, sizeof(T), !std::is_same_v<Form, ShiftedForm<T>>);
  const int threads = static_cast<int>(blockDim.x);
  const bool two = kTwoSegments && chunks > kWarpLanes;
  Condensed<T>* const halves = reinterpret_cast<Condensed<T>*>(smem_raw);  // where `two`
  T* sm = reinterpret_cast<T*>(smem_raw) + (two ? columns_halves_elements(threads, chunks) : 0);
  const int G = threads / chunks;
  const int stride = G + 1;
  const int count = chunks * stride;  // scalars per array
  const int t = static_cast<int>(threadIdx.x);
  const int g = t % G;  // the thread's system in the block's group, and its chunk
  const int c = t / G;
  const int own = c * stride + g;
  // Coarse solve: lane group q of the warp (chunks lanes) takes system sg, lane j its chunk j;
  // with two segments per system, warp w segment w mod 2 of system w / 2, lane j its chunk
  // 32·(w mod 2) + j.
  const int lane = t & (kWarpLanes - 1);
  const int warp = t / kWarpLanes;
  const int j = two ? (warp & 1) * kWarpLanes + lane : lane % chunks;
  const int sg = two ? warp / 2 : warp * (kWarpLanes / chunks) + lane / chunks;
  const int coarse = j * stride + sg;
  const index_t groups = (batch + G - 1) / G;
  const index_t units = groups * segments;
  const index_t nc = 2 * segments;
  constexpr bool kShifted = std::is_same_v<Form, ShiftedForm<T>>;
  constexpr bool kChunkedTable = columns_chunked_table<K, Pass, T, Form>();
  using Table = ColumnTable<T, K, kChunkedTable>;
  const Table table{sm + 8 * count, Table::slots_of(chunks)};
  const auto lane_table = table.lane_table(c);
  index_t loaded = -1;  // the segment in the table
  // The thread's system in unit u (lanes past the batch repeat the last system), and its rows
  // [p, p + K) there (zero past n).
  auto unit_system = [&](index_t u) {
    const index_t seg = u / groups;
    return std::min((u - seg * groups) * G + g, batch - 1);
  };
  // A chunk's rows inside the system (0 to K) and its rows in memory walked by pointer, one add
  // per row: indices k·system + (p + i)·row formed per row took 12–14 integer instructions and two
  // constant loads per row at the capped kernel's 128 registers (ptxas, real K = 16).
  auto rows_inside = [n](index_t p) {
    return static_cast<int>(std::min<index_t>(std::max<index_t>(n - p, 0), K));
  };
  // Windows: segment `seg` is window seg, whose local row 0 is row `lo` of the system.
  const index_t window_inner = chunks * K - 2 * kWindowHaloRows;
  auto unit_window = [&](index_t seg) { return sweep_window(seg, window_inner, chunks * K, n); };
  auto load_rows = [&](index_t u, T(&v)[K]) {
    const index_t k = unit_system(u);
    index_t p;
    int inside;
    if constexpr (Windows) {
      const SweepWindow w = unit_window(u / groups);
      p = w.lo + c * K;
      inside = static_cast<int>(std::min<index_t>(std::max(w.rows - c * K, 0), K));
    } else {
      p = u / groups * chunks * K + c * K;
      inside = rows_inside(p);
    }
    const T* row = d + ds.at(k, p);
#pragma unroll
    for (int i = 0; i < K; ++i, row += ds.row) v[i] = i < inside ? *row : T(0);
  };
  // Where kPrefetchRows (the shifted form), the next unit's rows, and where kPrefetchShift (also
  // the tiles, whose rows come a unit ahead through shared memory) its shift, loaded before the
  // current unit is solved. The shift loaded at its first use had 24% of the stall samples of the
  // whole pass, real K = 16, 512 × 2^15 (Nsight Compute, H100), and 13.5% of the tiled one,
  // complex K = 16, 64 × 2^18 (H200): every unit waited on it.
  constexpr bool kStaged = Stage == ColumnsStage::rows;
  constexpr bool kTiled = Stage == ColumnsStage::tiles;
  constexpr bool kPrefetchRows = columns_prefetches<K, Pass, T, Form>() && !kTiled;
  constexpr bool kPrefetchShift = kPrefetchRows || kTiled;
  T next[K];
  T next_shift{};
  auto prefetch = [&](index_t u) {
    if constexpr (kPrefetchRows) load_rows(u, next);
    if constexpr (kPrefetchShift) next_shift = form.shifts[unit_system(u)];
  };
  if constexpr (kPrefetchShift)
    if (blockIdx.x < units) prefetch(blockIdx.x);
  // kStaged: unit u's d in shared memory, row i of its segment at stage[i·G + g], copied in 16-byte
  // pieces (systems 2j, 2j + 1 of a row; rows past n and systems past the batch zero-filled).
  static_assert(!kStaged || columns_stages<Pass, T, Form>(), "only columns_stages passes stage d");
  T* stage = sm + 8 * count + (kShifted ? 4 * Table::slots_of(chunks) : 0);
  auto fetch = [&](auto u) {  // generic: instantiated where kStaged only
    const index_t seg = u / groups;
    const index_t k0 = (u - seg * groups) * G;
    const index_t p0 = seg * chunks * K;
    const int pairs = G / 2;
    for (int q = t; q < chunks * K * pairs; q += threads) {
      const int i = q / pairs, j = q - i * pairs;
      const index_t k = k0 + 2 * j, r = p0 + i;
      const index_t left = r < n ? batch - k : 0;
      const unsigned bytes = left >= 2 ? 16u : left == 1 ? 8u : 0u;
      copy_async(reinterpret_cast<double2*>(stage) + q,
                 reinterpret_cast<const double2*>(bytes ? d + ds.at(k, r) : d), bytes);
    }
    copy_async_commit();
  };
  if constexpr (kStaged) {
    if (blockIdx.x < units) fetch(blockIdx.x);
    copy_async_wait();
    __syncthreads();
  }
  // Tiled (one segment, so unit u is the group of systems [u·G, u·G + G)): unit u's rows in a
  // tile, system h's row i at h·tile_stride + i (+ i / K where columns_tile_pads), brought in a
  // unit ahead by bulk copies of runs, the stretches of rows that are one run of memory in d, x
  // and the tile (a system's n rows, or where the tile pads its chunks a chunk's K rows), counted
  // on the tile's mbarrier; two tiles (kColumnsTiles): unit u is solved in its tile and its x
  // written back there, and at the start of the block's next unit, after the barrier that unit
  // needs anyway, bulk copies take that x out (tile_store), the copies of the d of the unit after
  // next into the same tile following once the unit's rows have been reduced (tile_fetch).
  // Thread t takes run t of both (a tile has at most `threads` runs: a system's rows take at most
  // its chunks), found once, so that it waits for its own copy out to have read its run before it
  // copies d into it. The element-wise copies before (an LDGSTS or an LDS and an STG per element,
  // about 46 instructions each) took 28% of the kernel's stall samples (Nsight Compute, complex
  // contiguous 64 × 2^18, K = 16, H200).
  static_assert(!kTiled || columns_tiles<Pass, T, Form>(), "only columns_tiles passes take tiles");
  const int tile_stride = kTiled ? columns_tile_stride(n, K, G, sizeof(T)) : 0;
  const bool tile_pads = columns_tile_pads(G, sizeof(T));
  auto tile_at = [&](int turn) { return stage + turn * G * tile_stride; };
  auto tile_systems = [&](index_t u) {
    return static_cast<int>(std::min<index_t>(G, batch - u * G));
  };
  std::uint64_t* const tile_bars =
      reinterpret_cast<std::uint64_t*>(stage + kColumnsTiles * G * tile_stride);
  const int run_rows = columns_tile_run_rows(n, K, tile_pads);
  const int system_runs = kTiled ? (static_cast<int>(n) + run_rows - 1) / run_rows : 1;
  // Thread t's run: system run_h's rows [run_i, run_i + run_n) (none where run_n ≤ 0 or the unit
  // has fewer systems), at slot run_slot of a tile and run_i + run_h times the system stride after
  // system 0's row 0 in d and x.
  const int run_h = t / system_runs, run_i = (t - run_h * system_runs) * run_rows;
  const int run_n = std::min(run_rows, static_cast<int>(n) - run_i);
  const int run_slot = columns_tile_slot<K>(run_h, run_i, tile_stride, tile_pads);
  const auto run_bytes = static_cast<unsigned>(run_n * static_cast<int>(sizeof(T)));
  auto has_run = [&](index_t u) { return run_n > 0 && run_h < tile_systems(u); };
  auto tile_fetch = [&](index_t u, int turn) {  // uniform over the block
    T* const tile = tile_at(turn);
    const unsigned bar = shared_address(tile_bars + turn);
    if (t == 0) mbarrier_expect(bar, static_cast<unsigned>(tile_systems(u) * n * sizeof(T)));
    bulk_wait_read();  // the thread's copy out of this tile has read it
    if (has_run(u)) bulk_copy_in(tile + run_slot, d + ds.at(u * G + run_h, run_i), run_bytes, bar);
  };
  auto tile_store = [&](index_t u, int turn) {
    if (has_run(u))
      bulk_copy_out(x + xs.at(u * G + run_h, run_i), tile_at(turn) + run_slot, run_bytes);
    bulk_commit();
  };
  unsigned tile_phases = 0;  // bit `turn`: the parity of that tile's mbarrier phase awaited next
  constexpr bool kSweeps = columns_sweeps<K, T, Stage>();
  if constexpr (kTiled) {
    if (t < kColumnsTiles) {
      mbarrier_init(shared_address(tile_bars + t), 1);
      mbarrier_init_fence();
    }
    if constexpr (kSweeps) {
      // Rows past n stay zero (identity rows, d = 0), and the slots of systems past the batch
      // finite, where the chunks are solved in place.
      for (int e = t; e < kColumnsTiles * G * tile_stride; e += threads) stage[e] = T(0);
      bulk_fence_writes();
    }
    __syncthreads();
    if (blockIdx.x < units) tile_fetch(blockIdx.x, 0);
  }
  int turn = 0;          // the current unit's tile
  index_t written = -1;  // the last unit, whose x is in the other tile
  int units_before = 0;  // the block's units before u
  for (index_t u = blockIdx.x; u < units; u += gridDim.x, ++units_before) {
    if constexpr (Watch) {  // a row past the bound counted: the fallback solves the batch
      if (WindowWatch::reads(units_before) && watch.seen_by_block()) break;
    }
    T* tile = tile_at(turn);  // where kTiled
    if constexpr (kTiled) {
      // The unit's rows in its tile, the last unit's x complete in the other one.
      mbarrier_wait(shared_address(tile_bars + turn), (tile_phases >> turn) & 1u);
      tile_phases ^= 1u << turn;
      __syncthreads();
      if (written >= 0) tile_store(written, turn ^ 1);
      written = u;
    }
    const index_t seg = u / groups;
    const index_t k0 = (u - seg * groups) * G;
    const SweepWindow window = Windows ? unit_window(seg) : SweepWindow{};
    const index_t p0 = Windows ? 0 : seg * chunks * K;  // the segment's first row (local)
    if constexpr (kShifted) {
      if (seg != loaded) {                 // uniform over the block
        if (loaded >= 0) __syncthreads();  // every thread done with the previous segment's rows
        table.load(Windows ? window_matrix(form.m, window) : form.m, p0, t, threads);
        loaded = seg;
        __syncthreads();
      }
    }
    const index_t k = std::min(k0 + g, batch - 1);
    const bool stores = k0 + g < batch;
    const index_t p = p0 + c * K;
    const T shift = next_shift;  // where kPrefetchShift
    // Watch: the chunk's rows checked before v takes the unit's rows of d and the next unit's are
    // loaded into `next`, so that K fewer registers are live across the check.
    if constexpr (Watch) {
      static_assert(kPrefetchShift, "the watch takes the prefetched shift");
      watch.count(watch.rows_bounded<K>(
          lane_table.ad(), lane_table.md(), lane_table.ao(), lane_table.mo(), static_cast<int>(p),
          [](int r) { return r; }, shift));
    }
    T v[K];
    if constexpr (kPrefetchRows) {
#pragma unroll
      for (int i = 0; i < K; ++i) v[i] = next[i];
    } else if constexpr (kStaged) {
#pragma unroll
      for (int i = 0; i < K; ++i) v[i] = stage[(c * K + i) * G + g];
    } else if constexpr (kTiled) {
      if constexpr (!kSweeps) {  // kSweeps: the rows stay in the tile
        // Threads past the batch take the group's last system.
        const T* mine = tile + columns_tile_slot<K>(std::min(g, tile_systems(u) - 1), c * K,
                                                    tile_stride, tile_pads);
        const int inside = rows_inside(p);
#pragma unroll
        for (int i = 0; i < K; ++i) v[i] = i < inside ? mine[i] : T(0);
      }
    } else {
      load_rows(u, v);
    }
    if constexpr (kPrefetchShift)
      if (u + gridDim.x < units) prefetch(u + gridDim.x);
    const auto rows = [&] {
      if constexpr (kPrefetchShift)
        return ColumnTableRows<T, K, kChunkedTable>{lane_table, shift, p0};
      else
        return column_rows(form, lane_table, p0, k, ds);
    }();
    const LaneVector<T> vec{v, p};
    // Where kSweeps: the chunk's rows in the unit's tile (threads past the batch on their own
    // system's slots, which no copy fills), and its c′ and v.
    T* const chunk_rows =
        kTiled ? tile + columns_tile_slot<K>(g, c * K, tile_stride, tile_pads) : nullptr;
    SweepLaneKept<T, kSweeps ? K : 1> kept;
    {
      Row4<T> P, Q;
      if constexpr (kSweeps) {
        sweep_reduce(table.sweep_rows(c, shift), chunk_rows, kept, 0, K, P, Q);
      } else {
        lane_reduce<K, columns_lane_middle<K, Pass, T, Form>()>(rows, vec, p, n, P, Q);
      }
      const T r[8] = {P.a, P.b, P.c, P.d[0], Q.a, Q.b, Q.c, Q.d[0]};
#pragma unroll
      for (int e = 0; e < 8; ++e) sm[e * count + own] = r[e];
    }
    __syncthreads();
    if constexpr (kStaged)  // every thread has taken its rows of the stage
      if (u + gridDim.x < units) fetch(u + gridDim.x);
    if constexpr (kTiled)  // the copies out of the other tile have had the reduction to read it
      if (u + gridDim.x < units) tile_fetch(u + gridDim.x, turn ^ 1);
    {
      Row4<T> P{sm[coarse], sm[count + coarse], sm[2 * count + coarse], {sm[3 * count + coarse]}};
      Row4<T> Q{sm[4 * count + coarse],
                sm[5 * count + coarse],
                sm[6 * count + coarse],
                {sm[7 * count + coarse]}};
      const index_t ks = k0 + sg;  // the group's system
      const index_t e = std::min(ks, batch - 1) * nc + 2 * seg;
      if constexpr (Pass == SegmentPass::reduce) {
        const Condensed<T> r = warp_condense(Condensed<T>{P, Q}, chunks);
        if (j == 0 && ks < batch) store_coarse_rows(r, ca, cb, cc, cd, e);
      } else {
        if constexpr (Pass == SegmentPass::substitute) {
          // The segment's first and last unknowns are known: identity rows carrying them.
          if (j == 0) P = {T(0), T(1), T(0), {cd[e]}};
          if (j == chunks - 1) Q = {T(0), T(1), T(0), {cd[e + 1]}};
        }
        if constexpr (kTwoSegments) {
          if (two) {  // uniform over the block
            // The warp's segment condensed to its coarse rows F, L; the system's four coarse rows
            // solved (by both of its warps) for each segment's first and last unknowns, which
            // then stand as identity rows, as in the substitute pass.
            const Condensed<T> r = warp_condense(Condensed<T>{P, Q});
            if (lane == 0) halves[warp] = r;
            __syncthreads();
            T cf, cl;
            solve_coarse_rows(halves + (warp & ~1), 2, 2, cf, cl);
            const T first = shfl_from(cf, warp & 1), last = shfl_from(cl, warp & 1);
            if (lane == 0) P = {T(0), T(1), T(0), {first}};
            if (lane == kWarpLanes - 1) Q = {T(0), T(1), T(0), {last}};
          }
        }
        T xf, xl;
        guarded_reduced_solve<kGuardedLanes<K, T>>(P, Q, xf, xl, two ? kWarpLanes : chunks);
        sm[coarse] = xf;
        sm[count + coarse] = xl;
      }
    }
    if constexpr (Pass != SegmentPass::reduce) {
      __syncthreads();
      if constexpr (kSweeps)
        sweep_substitute(chunk_rows, kept, 0, K, sm[own], sm[count + own]);
      else
        lane_resolve<K, columns_lane_middle<K, Pass, T, Form>()>(rows, vec, p, n, sm[own],
                                                                 sm[count + own]);
      const int inside = rows_inside(p);
      // Tiled: x into the unit's tile (already there where kSweeps), copied out at the next
      // unit's start.
      if constexpr (kTiled) {
        if constexpr (!kSweeps) {
          if (stores) {
#pragma unroll
            for (int i = 0; i < K; ++i)
              if (i < inside) chunk_rows[i] = v[i];
          }
        }
        bulk_fence_writes();
      } else if (stores) {
        T* row = x + xs.at(k, window.lo + p);
#pragma unroll
        for (int i = 0; i < K; ++i, row += xs.row) {
          if constexpr (Windows) {
            if (p + i >= window.write_lo && p + i < window.write_hi) *row = v[i];
          } else if (i < inside) {
            *row = v[i];
          }
        }
      }
    }
    // Before the next unit writes the arrays again: the reduce pass's groups may still read other
    // threads' rows, and the stage must be complete. The whole and substitute passes need no
    // barrier here: every read of another thread's slot came before the barrier above the resolve,
    // and the resolve reads the thread's own slot. H100 (tridiag_bench, interleaved, shifted, 3
    // rounds, ms, with the barrier → without): real K = 16 127 × 2^17 0.1268 → 0.1240, 512 × 2^15
    // 0.1454 → 0.1414; 64 × 2^18, 255 × 2^16 and complex K = 8 and 16 within 1%.
    if constexpr (kStaged) copy_async_wait();  // the next unit's d, before the barrier
    if constexpr (Pass == SegmentPass::reduce || kStaged) __syncthreads();
    turn ^= 1;  // the next unit's tile
  }
  if constexpr (kTiled) {
    if (written >= 0) {
      __syncthreads();
      tile_store(written, turn ^ 1);
    }
    bulk_wait();  // the copies out have read the tile before the block's shared memory goes
  }
}

/// columns_pass with the registers capped by its launch bounds (columns_min_blocks); Windows: the
/// window method's pass (segments: windows), Watch its rows checked as they are solved.
template <int K, SegmentPass Pass, class T, class Form, ColumnsStage Stage, bool Windows = false,
          bool Watch = false>
__global__ void __launch_bounds__(kColumnsMaxThreads, (columns_min_blocks<K, Pass, T>()))
    columns_kernel(Form form, index_t n, index_t batch, index_t segments, int chunks, const T* d,
                   Strides ds, T* x, Strides xs, T* ca, T* cb, T* cc, T* cd, WindowWatch watch) {
  columns_pass<K, Pass, T, Form, Stage, Windows, Watch>(form, n, batch, segments, chunks, d, ds, x,
                                                        xs, ca, cb, cc, cd, watch);
}

/// columns_pass with the registers capped at `Registers` (columns_capped), in blocks of up to
/// columns_capped_threads; Windows and Watch as columns_kernel's.
template <int K, SegmentPass Pass, class T, class Form, ColumnsStage Stage, int Registers,
          bool Windows = false, bool Watch = false>
__global__ void __launch_bounds__(columns_capped_threads<T>()) __maxnreg__(Registers)
    columns_capped_kernel(Form form, index_t n, index_t batch, index_t segments, int chunks,
                          const T* d, Strides ds, T* x, Strides xs, T* ca, T* cb, T* cc, T* cd,
                          WindowWatch watch) {
  static_assert(columns_capped<K, Pass, T, Form>(), "a pass columns_capped does not take");
  columns_pass<K, Pass, T, Form, Stage, Windows, Watch>(form, n, batch, segments, chunks, d, ds, x,
                                                        xs, ca, cb, cc, cd, watch);
}

}  // namespace pscr::tridiag::cuda::detail
