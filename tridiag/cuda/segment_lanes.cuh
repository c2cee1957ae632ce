#pragma once
/// @file The segment method's reduce pass with one lane per (system, segment) unit, for the
/// shifted form, real or complex, rows contiguous: each lane eliminates the interior of its
/// segment of 32·K rows downward by itself (the recurrence of lane_reduce's downward chain and
/// its three carried scalars over the whole segment) and writes the segment's two coarse rows, the
/// same rows as warp_condense leaves (docs/tridiag-performance.md). No shuffles, no condensing
/// tree: about 20 instructions per row (real) against about 80 for lanes of K rows and the tree, so
/// the pass can wait on DRAM alone. The substitute pass runs the same way
/// (segment_lanes_substitute_kernel): each lane walks its segment's tiles backward from the reduce
/// pass's checkpoints of the elimination and solves them upward from the segment's coarse unknowns;
/// Thomas down a segment with both ends known is also the more accurate substitution on indefinite
/// complex systems (the warp's solve of the lanes' reduced rows lost accuracy at a few Helmholtz
/// shifts, this one at none of those probed). Real systems took segment_kernel's substitute pass
/// until the H200 measured this one 3–5% faster at K = 8 (docs/tridiag-performance.md).
///
/// The 32 lanes of a warp take 32 consecutive units in segment-major order (unit = segment·batch +
/// system), so that they share their rows of A and M (two segments at most). The warp copies its
/// units' rows of d and its segments' rows of A and M into shared memory tile by tile (one line per
/// unit and array: 256 bytes, 32 real or 16 complex rows, in both passes: the solve took 4–19%
/// less time with the substitute pass's, then 2–13% less with the reduce pass's, than in lines of
/// 128 bytes) with coalesced 16-byte cp.async, the next tile under the current one, and each lane
/// reads its rows back in 16-byte pieces (its tables as broadcasts). columns_lanes_reduce_kernel
/// and columns_lanes_substitute_kernel do the same for the columns method's systems side by side,
/// real and complex, in 128-byte lines: a warp's lanes take adjacent systems, whose rows it copies
/// line by line. Include only from .cu files.

#include <type_traits>

#include "tridiag/cuda/segment.cuh"

namespace pscr::tridiag::cuda::detail {

/// 16-byte pieces of a unit's line per tile (128 bytes): the columns method's passes.
constexpr int kLanesTilePieces = 8;
/// 16-byte pieces of a unit's line per tile in the segment method's passes (P of their templates):
/// 256 bytes, 32 real or 16 complex rows, with the reduce pass's checkpoints one per tile but the
/// first (segment_lanes_reduce_kernel, segment_lanes_substitute_kernel, where the measurements
/// are).
constexpr int kSegmentLanesPieces = 16;
/// Rows of a unit per tile, one line of P pieces: at 128 bytes 16 real rows (two per piece) or 8
/// complex ones.
template <class T, int P = kLanesTilePieces>
constexpr int lanes_tile_rows() {
  static_assert(sizeof(T) == 8 || sizeof(T) == 16, "real or complex double");
  return P * 16 / static_cast<int>(sizeof(T));
}
/// Warps per block.
constexpr int kLanesWarps = 4;
/// 16-byte pieces of a stage's right-hand sides at 128-byte lines: 32 units × 8; its tables
/// follow them.
constexpr int kLanesDPieces = kWarpLanes * kLanesTilePieces;
/// Systems (of a row of the columns method) or rows (of a unit of the segment method) per 16-byte
/// piece: two real, one complex.
template <class T>
constexpr int scalars_per_piece() {
  return 16 / static_cast<int>(sizeof(T));
}
/// 16-byte pieces of a stage of lines of P pieces: 32 units' lines of d, then two segments' four
/// tables (A's and M's diagonals and couplings) of P pieces each; a warp has two stages (the next
/// tile copied in while the current one is solved).
PSCR_HD constexpr int lanes_stage_pieces(int P) {
  return (kWarpLanes + 2 * 4) * P;
}
constexpr int kLanesStagePieces = lanes_stage_pieces(kLanesTilePieces);

/// Scalars per lane that a substitute pass copies into the stage with each tile
/// (copy_substitute_state): the reduce pass's checkpoint before the tile (LaneChain f, e, g) and
/// A's and M's couplings of the tile's first row to the row before.
constexpr int kLanesStateScalars = 5;
/// 16-byte pieces of a substitute pass's stage beyond kLanesStagePieces: every lane's state.
template <class T>
constexpr int lanes_state_pieces() {
  return kLanesStateScalars * kWarpLanes * static_cast<int>(sizeof(T)) / 16;
}

/// Blocks per SM the lanes kernels of lines of P pieces are built for (__launch_bounds__): in
/// 128-byte lines four (real) or three (complex), as their shared memory allows; in 256-byte lines
/// two (blocks of about twice the shared memory).
template <class T>
constexpr int lanes_min_blocks(int P = kLanesTilePieces) {
  return P != kLanesTilePieces ? 2 : sizeof(T) == 8 ? 4 : 3;
}

/// Shared-memory bytes of a block of the lanes kernels: two stages per warp of
/// lanes_stage_pieces(P) 16-byte pieces and `extra` more (the substitute passes:
/// lanes_state_pieces).
constexpr std::size_t segment_lanes_smem(int extra = 0, int P = kLanesTilePieces) {
  return 16 * static_cast<std::size_t>(lanes_stage_pieces(P) + extra) * 2 * kLanesWarps;
}

/// Slot of piece q (rows 2q, 2q + 1 of a real tile, row q of a complex one) of the warp's unit w
/// in a stage: unit-major, the
/// piece index XORed with w mod 8, so that the 8 lanes of a phase of 16-byte reads (piece q of
/// units w..w+7) meet 8 distinct 16-byte bank groups, as do the 8 lanes copying one unit's line.
template <int P = kLanesTilePieces>
PSCR_HD constexpr int lanes_slot(int w, int q) {
  return w * P + (q ^ (w & 7));
}

/// Whether the pass applies: the shifted form's tables and the rows of d (strides `s`)
/// contiguous and 16-byte aligned wherever a tile starts (d and the tables aligned, for real
/// systems an even system stride, segments of 32·K rows a multiple of the tile's rows), and every
/// warp's 32 consecutive units within two segments (batch ≥ 31, or 16).
template <class T>
bool segment_lanes_apply(const ShiftedMatrix<T>& m, const T* d, Strides s, index_t batch, int K) {
  return s.row == 1 && aligned16(d) && (sizeof(T) == 16 || s.system % 2 == 0) &&
         (kWarpLanes * K) % lanes_tile_rows<T, kSegmentLanesPieces>() == 0 && m.aligned() &&
         (batch >= kWarpLanes - 1 || batch == 16);
}

/// Systems side by side in a stream of columns_lanes_reduce_kernel: 32, or 16 for batches of 16
/// to 31 (a warp then takes two streams, so that half of it does not idle).
__host__ __device__ constexpr int columns_lanes_width(index_t batch) {
  return batch >= kWarpLanes ? kWarpLanes : kWarpLanes / 2;
}

/// Whether columns_lanes_reduce_kernel applies to segments of `rows` rows: the shifted form's
/// tables aligned, the rows of d in 16-byte pieces (real: of two systems, paired_systems; complex:
/// systems side by side, d aligned), the coarse arrays aligned for store_coarse_pairs (`coarse`:
/// the first, the others an even number of scalars after it), segments of at least two tiles,
/// and a batch of at least 16 (a stream's 16 systems).
template <class T>
bool columns_lanes_apply(const ShiftedMatrix<T>& m, const T* d, Strides s, index_t batch, int rows,
                         const T* coarse) {
  const bool pieces = sizeof(T) == 8 ? paired_systems(d, s) : s.system == 1 && aligned16(d);
  return pieces && aligned16(coarse) && m.aligned() && batch >= kWarpLanes / 2 &&
         rows >= 2 * lanes_tile_rows<T>() && rows % lanes_tile_rows<T>() == 0;
}

/// Row h of a 16-byte piece: a real piece holds rows 2q, 2q + 1 (h = 0, 1), a complex one row q.
template <class T>
__device__ __forceinline__ T piece_row(const double2& p, int h) {
  if constexpr (sizeof(T) == 8)
    return h == 0 ? p.x : p.y;
  else
    return T(p.x, p.y);
}

/// *p through the read-only data cache (LDG.CONSTANT), for real or complex scalars.
template <class T>
__device__ __forceinline__ T load_read_only(const T* p) {
  if constexpr (sizeof(T) == 8) {
    return __ldg(p);
  } else {
    const double2 v = __ldg(reinterpret_cast<const double2*>(p));
    return T(v.x, v.y);
  }
}

/// The coupling of row r − 1 to row r of A + s M (the sub-diagonal of row r): 0 at r = 0 and
/// from r = n on (identity rows past the system).
template <class T>
__device__ __forceinline__ T lanes_coupling(const ShiftedMatrix<T>& m, T s, index_t r) {
  return r >= 1 && r < m.n ? load_read_only(m.a_off + r - 1) + s * load_read_only(m.m_off + r - 1)
                           : T(0);
}

/// Bytes of a 16-byte piece of scalars T whose first scalar has `left` scalars from it on in its
/// array: 16 where the piece is whole, 8 where one real scalar is left, 0 past the end.
template <class T, class I>
__device__ __forceinline__ unsigned piece_bytes_left(I left) {
  return left >= scalars_per_piece<T>() ? 16u : left == 1 ? 8u : 0u;
}

/// Table `array` of A + s M's factors as the lanes passes copy them (0, 1: A's and M's diagonals,
/// n rows; 2, 3: their couplings, n − 1), and its rows.
template <class T>
struct LanesTable {
  const T* at;
  index_t rows;
  __device__ LanesTable(const ShiftedMatrix<T>& m, int array)
      : at(array == 0   ? m.a_diag
           : array == 1 ? m.m_diag
           : array == 2 ? m.a_off
                        : m.m_off),
        rows(array < 2 ? m.n : m.n - 1) {}
};

/// The 16-byte piece of rows v[0], v[1] (real) or v[0] (complex): piece_row's inverse.
template <class T>
__device__ __forceinline__ double2 make_piece(const T (&v)[scalars_per_piece<T>()]) {
  if constexpr (sizeof(T) == 8)
    return make_double2(v[0], v[1]);
  else
    return make_double2(v[0].re, v[0].im);
}

/// One tile of a lane's segment: rows r0 .. r0 + lanes_tile_rows<T, P>() − 1, their right-hand
/// sides from `pieces` (pieces(q): the tile's 16-byte piece q, from the stage: piece_row), A's and
/// M's rows at `tab` (its segment's table slots: ad, md, ao, mo, P pieces each; ao, mo zero from
/// row n − 1 on). `sub` carries the coupling to the row before (in: row r0's, out: the next tile's
/// first row's). first_tile: row r0 is the segment's first row; last_tile: the tile's last row is
/// the segment's last (flags uniform over the warp, branches at those two rows only, so one copy of
/// the tile's code serves every tile). Guard: rows may reach n (identity rows there: diagonal 1).
template <bool Guard, int P, class T, class Pieces>
__device__ __forceinline__ void segment_lanes_tile(bool first_tile, bool last_tile, T s, index_t r0,
                                                   index_t n, Pieces pieces, const double2* tab,
                                                   T& sub, LaneChain<T>& chain, Row4<T>& first,
                                                   Row4<T>& last) {
  constexpr int kRowsPerPiece = scalars_per_piece<T>();
#pragma unroll
  for (int q = 0; q < P; ++q) {
    const double2 dd = pieces(q);
    const double2 ad = tab[q], md = tab[P + q], ao = tab[2 * P + q], mo = tab[3 * P + q];
#pragma unroll
    for (int h = 0; h < kRowsPerPiece; ++h) {
      const int i = kRowsPerPiece * q + h;
      const T d = piece_row<T>(dd, h);
      T adi = piece_row<T>(ad, h);
      if constexpr (Guard) adi = r0 + i < n ? adi : T(1);
      const T a = sub, b = adi + s * piece_row<T>(md, h);
      const T c = piece_row<T>(ao, h) + s * piece_row<T>(mo, h);
      sub = c;
      if (i == 0 && first_tile)
        first = {a, b, c, {d}};
      else if (i == lanes_tile_rows<T, P>() - 1 && last_tile)
        last = {a, b, c, {d}};
      else
        chain.take(false, a, b, c, d);
    }
  }
}

/// segment_lanes_tile with or without the guard (uniform over the warp).
template <int P = kLanesTilePieces, class T, class Pieces>
__device__ __forceinline__ void segment_lanes_tile_at(bool first_tile, bool last_tile, bool guard,
                                                      T s, index_t r0, index_t n, Pieces pieces,
                                                      const double2* tab, T& sub,
                                                      LaneChain<T>& chain, Row4<T>& first,
                                                      Row4<T>& last) {
  if (guard)
    segment_lanes_tile<true, P>(first_tile, last_tile, s, r0, n, pieces, tab, sub, chain, first,
                                last);
  else
    segment_lanes_tile<false, P>(first_tile, last_tile, s, r0, n, pieces, tab, sub, chain, first,
                                 last);
}

/// A lane's rows in the segment lanes passes' stage: piece q of its unit (lanes_slot), read
/// (operator()) or overwritten (set).
template <int P>
struct UnitPieces {
  double2* stage;
  int lane;
  __device__ double2 operator()(int q) const { return stage[lanes_slot<P>(lane, q)]; }
  __device__ void set(int q, const double2& v) const { stage[lanes_slot<P>(lane, q)] = v; }
};

/// A warp's units (segment_lanes_reduce_kernel, segment_lanes_substitute_kernel): warp w takes
/// units [32w, 32w + 32) of batch·segments in segment-major order (unit = segment·batch + system),
/// lane l unit 32w + l. They lie within two segments a and b, those at or past `split` (relative
/// to `base`) in b. The warp moves its units' lines of P pieces tile by tile: lane l moves piece
/// q = l mod P of units (32/P)·j + l/P (j = 0..P − 1), the lines of 32/P units per instruction
/// (four of 128 bytes at P = 8).
template <class T, int P>
struct LanesWarp {
  static constexpr int kUnitsPerMove = kWarpLanes / P;
  static constexpr int kTileRows = lanes_tile_rows<T, P>();
  static constexpr int kRowsPerPiece = scalars_per_piece<T>();
  index_t batch, units, base, seg_a = 0, seg_b = 0;
  int rows, lane, q, split = 0, present = 0;

  /// The calling warp's units of batch·segments segments of `rows` rows (kLanesWarps warps per
  /// block); a warp past the last unit has none (idle).
  __device__ LanesWarp(index_t batch_, index_t segments, int rows_)
      : batch(batch_),
        units(batch_ * segments),
        base((static_cast<index_t>(blockIdx.x) * kLanesWarps + threadIdx.x / kWarpLanes) *
             kWarpLanes),
        rows(rows_),
        lane(static_cast<int>(threadIdx.x) & (kWarpLanes - 1)),
        q(lane & (P - 1)) {
    if (idle()) return;
    const index_t last_unit = std::min(base + kWarpLanes - 1, units - 1);
    seg_a = base / batch;
    seg_b = last_unit / batch;
    split = static_cast<int>(std::min<index_t>(seg_b * batch - base, kWarpLanes));
    present = static_cast<int>(std::min<index_t>(units - base, kWarpLanes));
  }
  __device__ bool idle() const { return base >= units; }
  /// The lane's unit: unit 32w + l (lanes past the last unit repeat it; `active` is false there),
  /// its segment, system k, first row p, and its segment's table pieces in a stage (`slot`).
  struct Unit {
    index_t u, seg, k, p;
    bool active;
    int slot;
  };
  __device__ Unit unit() const {
    Unit a;
    a.u = std::min(base + lane, units - 1);
    a.active = base + lane < units;
    a.seg = a.u / batch;
    a.k = a.u - a.seg * batch;
    a.p = a.seg * rows;
    a.slot = a.seg == seg_a ? 0 : 4 * P;
    return a;
  }
  /// Rows left in a system of `total` rows from `first_row` on, at most a segment's.
  __device__ int rows_left(index_t total, index_t first_row) const {
    return static_cast<int>(std::min<index_t>(std::max<index_t>(total - first_row, 0), rows));
  }
  /// Bytes of a piece at tile t whose line has `left` rows from its piece at tile 0 on (real: 8
  /// where one row is left).
  __device__ static unsigned piece_bytes(int left, int t) {
    return piece_bytes_left<T>(left - t * kTileRows);
  }
};

/// The lines of a warp's units in d or x (system k at k·system_stride, rows contiguous), lines of
/// P pieces: unit U·j + lane/P (U = 32/P) of segment h (0: a, 1: b) has its piece q of tile t at
/// at[h] + j·unit_step + P·t, and left[h] rows from its piece of tile 0 on.
template <class T, class Piece, int P>
struct LanesLines {
  using Warp = LanesWarp<T, P>;
  Piece* at[2];
  int left[2];
  index_t unit_step;  // pieces from unit w to unit w + U

  template <class Scalar>
  __device__ LanesLines(const Warp& w, Scalar* v, index_t system_stride, index_t n) {
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const index_t seg = h == 0 ? w.seg_a : w.seg_b;
      const index_t first_row = seg * w.rows + Warp::kRowsPerPiece * w.q;
      at[h] = reinterpret_cast<Piece*>(v + (w.base + w.lane / P - seg * w.batch) * system_stride +
                                       first_row);
      left[h] = w.rows_left(n, first_row);
    }
    unit_step = Warp::kUnitsPerMove * system_stride / Warp::kRowsPerPiece;
  }
  /// f(slot in the stage, piece, bytes) for the lane's P pieces of tile t.
  template <class F>
  __device__ void each(const Warp& w, int t, F&& f) const {
#pragma unroll
    for (int j = 0; j < P; ++j) {
      const int u = Warp::kUnitsPerMove * j + w.lane / P;
      const bool b = u >= w.split;
      const unsigned bytes = u < w.present ? Warp::piece_bytes(b ? left[1] : left[0], t) : 0u;
      f(lanes_slot<P>(u, w.q), (b ? at[1] : at[0]) + j * unit_step + t * P, bytes);
    }
  }
};

/// The warp's copies of tile t into a stage (no commit): its units' lines of d, and its segments'
/// rows of A and M, 4P pieces per segment (array a at a·P, segment b after a; b's only where the
/// warp's units reach it), lane l copying pieces 32k + l of each (k < 4P/32: array (32k + l)/P,
/// piece l mod P). `zero` is any readable address, the source of copies of no bytes (which fill
/// zeros).
template <class T, int P>
struct LanesFetch {
  using Warp = LanesWarp<T, P>;
  static constexpr int kStagePieces = lanes_stage_pieces(P);
  static constexpr int kTableCopies = 4 * P / kWarpLanes;  // per lane and segment
  LanesLines<T, const double2, P> d;
  const double2* table[2][kTableCopies];
  int table_left[2][kTableCopies];

  __device__ LanesFetch(const Warp& w, const ShiftedMatrix<T>& m, const T* dv,
                        index_t system_stride)
      : d(w, dv, system_stride, m.n) {
#pragma unroll
    for (int k = 0; k < kTableCopies; ++k) {
      const LanesTable<T> tab(m, (kWarpLanes * k + w.lane) / P);
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const index_t first_row = (h == 0 ? w.seg_a : w.seg_b) * w.rows + Warp::kRowsPerPiece * w.q;
        table[h][k] = reinterpret_cast<const double2*>(tab.at + first_row);
        table_left[h][k] = w.rows_left(tab.rows, first_row);
      }
    }
  }
  __device__ void operator()(const Warp& w, double2* stage, int t, const double2* zero) const {
    d.each(w, t, [&](int slot, const double2* from, unsigned bytes) {
      copy_async(stage + slot, bytes ? from : zero, bytes);
    });
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      // Units all in segment a (seg_b == seg_a: Unit::slot 0 for each) leave b's slots unread.
      if (h == 1 && w.seg_b == w.seg_a) break;
#pragma unroll
      for (int k = 0; k < kTableCopies; ++k) {
        const unsigned bytes = Warp::piece_bytes(table_left[h][k], t);
        copy_async(stage + kWarpLanes * P + 4 * P * h + kWarpLanes * k + w.lane,
                   bytes ? table[h][k] + t * P : zero, bytes);
      }
    }
  }
};

/// A warp's two stages in the block's shared memory (tile t in stage t mod 2), each of
/// kLanesStagePieces pieces and `Extra` more (segment_lanes_smem), and its copies into them
/// (`copy`: LanesFetch or ColumnsLanesFetch): fetch(w, t) copies tile t, none outside [0, tiles),
/// and commits either way, so that every wait counts the same groups whichever way a pass walks
/// its tiles; fetch(w, t, also) also calls also(stage) before the commit, where tile t is copied.
/// `zero` is any readable address, the source of copies of no bytes.
template <class Fetch, int Extra = 0>
struct LanesStages {
  static constexpr int kPieces = Fetch::kStagePieces + Extra;
  Fetch copy;
  double2* stages;
  const double2* zero;
  int tiles;

  template <class Scalar>
  __device__ LanesStages(const Fetch& copy_, unsigned char* smem, const Scalar* any, int tiles_)
      : copy(copy_),
        stages(reinterpret_cast<double2*>(smem) + threadIdx.x / kWarpLanes * 2 * kPieces),
        zero(reinterpret_cast<const double2*>(any)),
        tiles(tiles_) {}
  __device__ double2* operator[](int t) const { return stages + (t & 1) * kPieces; }
  template <class Warp>
  __device__ void fetch(const Warp& w, int t) const {
    fetch(w, t, [](double2*) {});
  }
  template <class Warp, class Also>
  __device__ void fetch(const Warp& w, int t, const Also& also) const {
    if (t >= 0 && t < tiles) {
      copy(w, (*this)[t], t, zero);
      also((*this)[t]);
    }
    copy_async_commit();
  }
};

/// The lane's state before a tile of its segment, for the substitute passes, copied (no commit)
/// into the stage's last lanes_state_pieces<T>() pieces (`stage`: the stage): its checkpoint at
/// `checkpoint` (LaneChain f, e, g at checkpoint[0], [units], [2·units]; null at the segment's
/// first tile, whose state is the start), and A's and M's couplings of the tile's first row r0 to
/// the row before (zeros at r0 = 0 and from n on, as lanes_coupling). Copied with the tile, they
/// arrive with it, where loads issued at the tile's turn made each tile wait once more on the
/// memory (take_substitute_state reads them back): H200 A/B, shifted, 8192 × 2^11 to 2^20 × 16,
/// the segment method 1.6–3.1% (real) and 3–9% (complex) faster, the columns method's K = 16
/// 2.7–3.5% (real; 2^20 × 16 unchanged) and 16–20% (complex; docs/tridiag-performance.md).
/// `zero`: any readable address. StagePieces: the stage's pieces before the state.
template <int StagePieces = kLanesStagePieces, class T>
__device__ __forceinline__ void copy_substitute_state(double2* stage, int lane, const T* checkpoint,
                                                      index_t units, const ShiftedMatrix<T>& m,
                                                      index_t r0, const void* zero) {
  T* state = reinterpret_cast<T*>(stage + StagePieces);
  const T* none = static_cast<const T*>(zero);
  constexpr unsigned kBytes = sizeof(T);
#pragma unroll
  for (int f = 0; f < 3; ++f)
    copy_async(state + f * kWarpLanes + lane, checkpoint ? checkpoint + f * units : none,
               checkpoint ? kBytes : 0u);
  const bool coupled = r0 >= 1 && r0 < m.n;
  copy_async(state + 3 * kWarpLanes + lane, coupled ? m.a_off + r0 - 1 : none,
             coupled ? kBytes : 0u);
  copy_async(state + 4 * kWarpLanes + lane, coupled ? m.m_off + r0 - 1 : none,
             coupled ? kBytes : 0u);
}

/// The state copy_substitute_state copied into the stage: the elimination's state before the tile
/// (`first_tile`: the start) and the coupling of its first row to the row before (lanes_coupling).
template <int StagePieces = kLanesStagePieces, class T>
__device__ __forceinline__ void take_substitute_state(const double2* stage, int lane,
                                                      bool first_tile, T s, LaneChain<T>& chain,
                                                      T& sub) {
  const T* state = reinterpret_cast<const T*>(stage + StagePieces);
  chain = LaneChain<T>::before_first();
  if (!first_tile) {
    chain.f = state[lane];
    chain.e = state[kWarpLanes + lane];
    chain.g = state[2 * kWarpLanes + lane];
  }
  sub = state[3 * kWarpLanes + lane] + s * state[4 * kWarpLanes + lane];
}

/// The elimination's state (LaneChain f, e, g) before tile ts ≥ 1 of a unit, kept by the reduce
/// passes for the substitute passes at checkpoints[(3(ts − 1) + f)·units + unit] (f = 0, 1, 2): the
/// units' scalars adjacent, so that a warp's lanes store them together (copy_substitute_state
/// copies them back).
template <class T>
__device__ __forceinline__ void store_checkpoint(T* checkpoints, index_t units, int ts,
                                                 index_t unit, const LaneChain<T>& chain) {
  T* at = checkpoints + 3 * (ts - 1) * units + unit;
  at[0] = chain.f;
  at[units] = chain.e;
  at[2 * units] = chain.g;
}
/// A piece of x from the stage (`from`), of `bytes` (16, 8: its first scalar only, 0: none).
__device__ __forceinline__ void store_piece(double2* to, const double2* from, unsigned bytes) {
  const double2 v = *from;
  if (bytes == 16)
    *to = v;
  else if (bytes == 8)
    *reinterpret_cast<double*>(to) = v.x;
}

/// Scalars of the elimination states that segment_lanes_reduce_kernel<T, P> keeps for
/// segment_lanes_substitute_kernel<T, P>: (LaneChain f, e, g) before the first row of every tile
/// (lines of P pieces) but the first of each unit.
template <class T, int P = kLanesTilePieces>
index_t segment_lanes_checkpoints(index_t batch, index_t segments, int rows) {
  return 3 * batch * segments * (rows / lanes_tile_rows<T, P>() - 1);
}

/// The reduce pass: lane l of warp w takes unit 32w + l (LanesWarp) and writes its segment's
/// coarse rows F, L as rows 2·segment, + 1 of system k's coarse system (at k·2·segments, as
/// segment_kernel's reduce pass), and the elimination's state (LaneChain f, e, g) before each tile
/// t ≥ 1 of its lines of P pieces (store_checkpoint), for segment_lanes_substitute_kernel<T, P>.
/// Lanes past the last unit repeat it without storing. `rows` = 32·K, a multiple of
/// lanes_tile_rows<T, P>(); segment_lanes_apply.
template <class T, int P>
__global__ void __launch_bounds__(kLanesWarps* kWarpLanes, lanes_min_blocks<T>(P))
    segment_lanes_reduce_kernel(ShiftedMatrix<T> m, const T* shifts, index_t batch,
                                index_t segments, int rows, const T* d, index_t system_stride,
                                T* ca, T* cb, T* cc, T* cd, T* checkpoints, Gate gate) {
  constexpr int kTileRows = lanes_tile_rows<T, P>();
  extern __shared__ __align__(16) unsigned char smem_raw[];
  const LanesWarp<T, P> w(batch, segments, rows);
  if (w.idle() || gate.closed()) return;  // uniform over the warp
  const int tiles = rows / kTileRows, lane = w.lane;
  const LanesStages<LanesFetch<T, P>> stages(LanesFetch<T, P>(w, m, d, system_stride), smem_raw, d,
                                             tiles);
  const index_t n = m.n, units = w.units;
  stages.fetch(w, 0);

  const auto [u, seg, k, p, active, slot] = w.unit();
  const T s = shifts[k];
  const bool guard = !__all_sync(0xffffffffu, p + rows <= n);
  T sub = lanes_coupling(m, s, p);
  LaneChain<T> chain = LaneChain<T>::before_first();
  Row4<T> first, last;
  for (int t = 0; t < tiles; ++t) {
    stages.fetch(w, t + 1);
    if (active && t > 0) store_checkpoint(checkpoints, units, t, u, chain);
    copy_async_wait_pending<1>();
    __syncwarp();
    double2* stage = stages[t];
    const double2* tab = stage + kWarpLanes * P + slot;
    const index_t r0 = p + static_cast<index_t>(t) * kTileRows;
    segment_lanes_tile_at<P>(t == 0, t == tiles - 1, guard, s, r0, n, UnitPieces<P>{stage, lane},
                             tab, sub, chain, first, last);
    __syncwarp();  // the stage is fetched into again at the next tile
  }
  Condensed<T> coarse;
  lane_reduced_rows(first, last, chain.alpha, chain.beta, chain.gamma, chain.e, chain.g, -chain.f,
                    coarse.F, coarse.L);
  if (active) store_coarse_rows(coarse, ca, cb, cc, cd, k * 2 * segments + 2 * seg);
}

/// One tile of a lane's segment in the substitute pass: rows r0 .. r0 + lanes_tile_rows<T>() − 1
/// from the lane's pieces of the stage (`pieces`: UnitPieces or ColumnPieces) and A's and M's
/// rows at `tab`, as segment_lanes_tile reads them, eliminated again downward from the state
/// `chain` before the tile (LaneChain: interior row i is x_i = y_i − f_i x_{i+1} with y_i = e_i
/// + g_i x_first), then solved upward from x_next (in: the unknown of the row after the tile; out:
/// the tile's first row's), each x_i written over its right-hand side in the stage. The segment's
/// first row (first_tile) is x_first, its last (last_tile) x_last. With x_first known, y follows
/// e's own recurrence, y_i = (d_i − a_i y_{i−1})/p_i (the spike column's g_i = −a_i g_{i−1}/p_i
/// folded in), so y starts from the state's e + g x_first and no row forms g (as lane_resolve
/// moves the known ends into the right-hand side): 12 FP64 operations fewer a complex row, 3 a real
/// one. P: pieces per line (the tile's rows and the tables' layout, LanesFetch).
template <bool Guard, int P, class T, class Pieces>
__device__ __forceinline__ void segment_lanes_resolve_tile(bool first_tile, bool last_tile, T s,
                                                           index_t r0, index_t n, Pieces pieces,
                                                           const double2* tab, T sub,
                                                           LaneChain<T> chain, T x_first, T x_last,
                                                           T& x_next) {
  constexpr int kRowsPerPiece = scalars_per_piece<T>();
  constexpr int kTileRows = lanes_tile_rows<T, P>();
  T cp[kTileRows];
  chain.e = chain.e + chain.g * x_first;  // y before the tile
#pragma unroll
  for (int q = 0; q < P; ++q) {
    const double2 dd = pieces(q);
    T y[kRowsPerPiece];
    const double2 ad = tab[q], md = tab[P + q], ao = tab[2 * P + q], mo = tab[3 * P + q];
#pragma unroll
    for (int h = 0; h < kRowsPerPiece; ++h) {
      const int i = kRowsPerPiece * q + h;
      T adi = piece_row<T>(ad, h);
      if constexpr (Guard) adi = r0 + i < n ? adi : T(1);
      const T a = sub, b = adi + s * piece_row<T>(md, h);
      const T c = piece_row<T>(ao, h) + s * piece_row<T>(mo, h);
      sub = c;
      if (i == 0 && first_tile) {
        cp[i] = T(0);
        y[h] = x_first;
      } else if (i == kTileRows - 1 && last_tile) {
        cp[i] = T(0);
        y[h] = x_last;
      } else {
        chain.take(false, a, b, c, piece_row<T>(dd, h));
        cp[i] = chain.f;
        y[h] = chain.e;
      }
    }
    pieces.set(q, make_piece(y));  // y over the piece's right-hand sides
  }
#pragma unroll
  for (int q = P - 1; q >= 0; --q) {
    const double2 yy = pieces(q);
    T xs[kRowsPerPiece];
#pragma unroll
    for (int h = kRowsPerPiece - 1; h >= 0; --h) {
      const int i = kRowsPerPiece * q + h;
      x_next = piece_row<T>(yy, h) - cp[i] * x_next;
      xs[h] = x_next;
    }
    pieces.set(q, make_piece(xs));
  }
}

/// segment_lanes_resolve_tile with or without the guard (uniform over the warp).
template <int P = kLanesTilePieces, class T, class Pieces>
__device__ __forceinline__ void segment_lanes_resolve_tile_at(
    bool first_tile, bool last_tile, bool guard, T s, index_t r0, index_t n, Pieces pieces,
    const double2* tab, T sub, LaneChain<T> chain, T x_first, T x_last, T& x_next) {
  if (guard)
    segment_lanes_resolve_tile<true, P>(first_tile, last_tile, s, r0, n, pieces, tab, sub, chain,
                                        x_first, x_last, x_next);
  else
    segment_lanes_resolve_tile<false, P>(first_tile, last_tile, s, r0, n, pieces, tab, sub, chain,
                                         x_first, x_last, x_next);
}

/// The substitute pass after segment_lanes_reduce_kernel (with checkpoints) and the coarse solve
/// (the coarse unknowns in cd): lane l of warp w takes unit 32w + l (LanesWarp), whose segment's
/// first and last unknowns are rows 2·segment, + 1 of system k's coarse solution, and walks its
/// tiles backward, the warp copying the next tile (the one before) under the current one, with
/// each lane's state before it (copy_substitute_state: the reduce pass's checkpoint, tile 0 the
/// start; the coupling to the row before): per tile segment_lanes_resolve_tile, and the tile's x
/// stored line by line from the stage as d was copied. So each row's d is read once more and its x
/// written once, with about a quarter of the instructions per row of segment_kernel's substitute
/// pass (lanes of K rows and the warp's solve of their reduced rows). x may alias d. Launched while
/// the coarse solve's last grid ends (launch_after_previous, solve.cu): it copies its first tile,
/// then waits for that grid (wait_previous_grid) before it reads cd. P: pieces per line, as the
/// reduce pass's (segment_lanes_reduce_kernel<T, P>, whose checkpoints it reads). solve.cu
/// launches both passes with P = 16: a unit's lines of 256 bytes (32 real rows, 16 complex), two
/// blocks per SM (8 warps; this pass 90 or 100 KB a block and 238 or 244 registers, the reduce
/// pass 80 KB and 255 or 254, no spill), where at P = 8 (128-byte lines, four or three blocks per
/// SM) a copy in this pass's pattern ran 10–11% below one in 256-byte lines (read_patterns_bench).
/// H200 A/B, contiguous, shifted, 512 × 2^15 to 2^20 × 16: this pass at P = 16, real segment K = 8
/// 4–6% and K = 16 14–19% less time (65536 × 256 0.1724 → 0.1405 ms, K = 16 now the faster),
/// complex 8–15%; then the reduce pass too (its checkpoints halved), real K = 8 about 2% and
/// K = 16 5–6% less time (65536 × 256 0.1414 → 0.1343 ms), complex K = 8 7–13% and K = 16 2–4%
/// (docs/tridiag-performance.md).
template <class T, int P>
__global__ void __launch_bounds__(kLanesWarps* kWarpLanes, lanes_min_blocks<T>(P))
    segment_lanes_substitute_kernel(ShiftedMatrix<T> m, const T* shifts, index_t batch,
                                    index_t segments, int rows, const T* d, index_t d_stride, T* x,
                                    index_t x_stride, const T* cd, const T* checkpoints,
                                    Gate gate) {
  constexpr int kTileRows = lanes_tile_rows<T, P>();
  constexpr int kStagePieces = lanes_stage_pieces(P);
  extern __shared__ __align__(16) unsigned char smem_raw[];
  const LanesWarp<T, P> w(batch, segments, rows);
  if (w.idle() || gate.closed()) return;  // uniform over the warp
  const int tiles = rows / kTileRows, lane = w.lane;
  const LanesStages<LanesFetch<T, P>, lanes_state_pieces<T>()> stages(
      LanesFetch<T, P>(w, m, d, d_stride), smem_raw, d, tiles);
  const index_t n = m.n, units = w.units;
  const LanesLines<T, double2, P> out(w, x, x_stride, n);
  const auto [u, seg, k, p, active, slot] = w.unit();
  // The lane's state before tile t, copied with the tile.
  const auto state = [&, u = u, p = p](int t) {
    return [&, t, u, p](double2* stage) {
      copy_substitute_state<kStagePieces>(stage, lane,
                                          t > 0 ? checkpoints + 3 * (t - 1) * units + u : nullptr,
                                          units, m, p + static_cast<index_t>(t) * kTileRows, d);
    };
  };
  stages.fetch(w, tiles - 1, state(tiles - 1));

  const T s = shifts[k];
  const bool guard = !__all_sync(0xffffffffu, p + rows <= n);
  wait_previous_grid();  // the coarse solve's last grid wrote cd
  const T x_first = cd[k * 2 * segments + 2 * seg], x_last = cd[k * 2 * segments + 2 * seg + 1];
  T x_next = x_last;
  for (int t = tiles - 1; t >= 0; --t) {
    stages.fetch(w, t - 1, state(t - 1));
    const index_t r0 = p + static_cast<index_t>(t) * kTileRows;
    copy_async_wait_pending<1>();
    __syncwarp();
    double2* stage = stages[t];
    const double2* tab = stage + kWarpLanes * P + slot;
    LaneChain<T> chain;
    T sub;
    take_substitute_state<kStagePieces>(stage, lane, t == 0, s, chain, sub);
    segment_lanes_resolve_tile_at<P>(t == 0, t == tiles - 1, guard, s, r0, n,
                                     UnitPieces<P>{stage, lane}, tab, sub, chain, x_first, x_last,
                                     x_next);
    __syncwarp();  // the tile's x in the stage
    out.each(w, t, [&](int piece, double2* to, unsigned bytes) {
      store_piece(to, stage + piece, bytes);
    });
    __syncwarp();  // the stage is fetched into again at the next tile
  }
}

/// store_coarse_rows with one 16-byte store per array and real rows (rows e, e + 1; e even, the
/// arrays 16-byte aligned): where each lane writes its own system's rows, every store touches a
/// sector per lane, and half as many stores leave the load-store queue to the copies of the stage.
/// Complex rows are 16 bytes each: store_coarse_rows.
template <class T>
__device__ void store_coarse_pairs(const Condensed<T>& r, T* ca, T* cb, T* cc, T* cd, index_t e) {
  if constexpr (sizeof(T) == 8) {
    *reinterpret_cast<double2*>(ca + e) = make_double2(r.F.a, r.L.a);
    *reinterpret_cast<double2*>(cb + e) = make_double2(r.F.b, r.L.b);
    *reinterpret_cast<double2*>(cc + e) = make_double2(r.F.c, r.L.c);
    *reinterpret_cast<double2*>(cd + e) = make_double2(r.F.d[0], r.L.d[0]);
  } else {
    store_coarse_rows(r, ca, cb, cc, cd, e);
  }
}

/// A warp's streams in the columns lanes passes (columns_lanes_reduce_kernel,
/// columns_lanes_substitute_kernel), systems side by side (row r of system k at k + r·row_stride):
/// the warp's lanes take W adjacent systems per stream, 32 / W streams. Stream σ is system group
/// g = σ mod groups (systems gW .. gW + W − 1) over the band b = σ / groups of `per` consecutive
/// segments of `rows` rows, whose tiles its lanes walk one segment after the other. A tile of a
/// stream is TR = lanes_tile_rows<T>() rows (16 real, 8 complex) of its W systems, TR lines of W
/// scalars, in the stage row by row; lane l reads its system's column (stride W: ColumnPieces).
template <int W, class T>
struct ColumnsLanesWarp {
  static_assert(W == kWarpLanes || W == kWarpLanes / 2, "16 or 32 systems per stream");
  static constexpr int kTileRows = lanes_tile_rows<T>();
  static constexpr int kPerPiece = scalars_per_piece<T>();  // systems per piece of d
  static constexpr int kStreams = kWarpLanes / W;
  static constexpr int kRowPieces = W / kPerPiece;              // 16-byte pieces per stream row
  static constexpr int kStreamPieces = kTileRows * kRowPieces;  // a stream's tile of d
  static_assert(kStreams * kStreamPieces == kLanesDPieces, "the stage holds every stream's tile");
  index_t batch, segments, streams, first_stream;
  int rows, per, lane;
  // Stream h of the warp: its first system and the first row of its band (n for a stream past
  // the last, whose rows are all identity rows and which stores nothing).
  index_t stream_k0[kStreams], stream_row[kStreams];

  __device__ ColumnsLanesWarp(index_t batch_, index_t segments_, int rows_, int per_, index_t n)
      : batch(batch_),
        segments(segments_),
        streams((batch_ + W - 1) / W * ((segments_ + per_ - 1) / per_)),
        first_stream((static_cast<index_t>(blockIdx.x) * kLanesWarps + threadIdx.x / kWarpLanes) *
                     kStreams),
        rows(rows_),
        per(per_),
        lane(static_cast<int>(threadIdx.x) & (kWarpLanes - 1)) {
    const index_t groups = (batch + W - 1) / W;
#pragma unroll
    for (int h = 0; h < kStreams; ++h) {
      const index_t sigma = first_stream + h;
      stream_k0[h] = sigma % groups * W;
      stream_row[h] = sigma < streams ? sigma / groups * per * rows : n;
    }
  }
  __device__ bool idle() const {
    return first_stream >= streams;
  }
  /// Tiles of a band.
  __device__ int tiles() const {
    return per * (rows / kTileRows);
  }
  /// The lane's column: its stream h (selects, not a local array's index), system k (the last
  /// one for lanes past the batch; `active` is false there and on a stream past the last) and
  /// its band's first row p.
  struct Column {
    int h;
    index_t k, p;
    bool active;
  };
  __device__ Column column() const {
    Column c;
    c.h = lane / W;
    const index_t kk = (c.h == 0 ? stream_k0[0] : stream_k0[kStreams - 1]) + lane % W;
    c.active = kk < batch && first_stream + c.h < streams;
    c.k = std::min(kk, batch - 1);
    c.p = c.h == 0 ? stream_row[0] : stream_row[kStreams - 1];
    return c;
  }
};

/// A lane's rows in the columns lanes passes' stage: piece q of its system's column in stream h's
/// tile (real rows 2q, 2q + 1, complex row q), read (operator()) or overwritten (set).
template <int W, class T>
struct ColumnPieces {
  double2* stage;  // the stream's tile
  int column;      // the lane's system in its stream (lane mod W)
  __device__ double2 operator()(int q) const {
    if constexpr (sizeof(T) == 8) {
      const double* c = reinterpret_cast<const double*>(stage) + column;
      return make_double2(c[2 * q * W], c[(2 * q + 1) * W]);
    } else {
      return stage[q * W + column];
    }
  }
  __device__ void set(int q, const double2& v) const {
    if constexpr (sizeof(T) == 8) {
      double* c = reinterpret_cast<double*>(stage) + column;
      c[2 * q * W] = v.x;
      c[(2 * q + 1) * W] = v.y;
    } else {
      stage[q * W + column] = v;
    }
  }
};

/// The rows of a warp's streams in d or x (row r of system k at k + r·row_stride), as the stage
/// holds them: lane l moves pieces P = 32j + l (j = 0..7), piece P being piece l mod kRowPieces
/// (real: systems 2·piece, + 1 of its stream; complex: system piece) of row
/// (32j mod kStreamPieces + l) / kRowPieces of stream 32j / kStreamPieces: real two (W = 32) or
/// four (W = 16) rows of a stream per instruction, complex one or two. Per stream, the lane's
/// first row, its address and the bytes of its piece (16; 8 where one real system is left; 0 past
/// the batch) are set once, and each tile adds its rows.
template <int W, class T, class Scalar>
struct ColumnsLanesLines {
  using Warp = ColumnsLanesWarp<W, T>;
  using Piece = std::conditional_t<std::is_const_v<Scalar>, const double2, double2>;
  Scalar* at[Warp::kStreams];
  index_t row[Warp::kStreams];
  unsigned bytes[Warp::kStreams];
  index_t row_stride, n;

  __device__ ColumnsLanesLines(const Warp& w, Scalar* v, index_t row_stride_, index_t n_)
      : row_stride(row_stride_), n(n_) {
#pragma unroll
    for (int h = 0; h < Warp::kStreams; ++h) {
      const index_t k = w.stream_k0[h] + Warp::kPerPiece * (w.lane % Warp::kRowPieces);
      row[h] = w.stream_row[h] + w.lane / Warp::kRowPieces;
      bytes[h] = piece_bytes_left<T>(w.batch - k);
      at[h] = v + std::min(k, w.batch - 1) + std::min(row[h], n - 1) * row_stride;
    }
  }
  /// f(slot in the stage, piece, bytes) for the lane's eight pieces of tile t.
  template <class F>
  __device__ void each(const Warp& w, int t, F&& f) const {
    const index_t tile_row = static_cast<index_t>(t) * Warp::kTileRows;
#pragma unroll
    for (int j = 0; j < 8; ++j) {
      constexpr int kRowsPerCopy = kWarpLanes / Warp::kRowPieces;
      const int h = kWarpLanes * j / Warp::kStreamPieces;  // known once unrolled
      const int i = j * kRowsPerCopy % Warp::kTileRows;
      const unsigned b = row[h] + tile_row + i < n ? bytes[h] : 0u;
      f(kWarpLanes * j + w.lane, reinterpret_cast<Piece*>(at[h] + (tile_row + i) * row_stride), b);
    }
  }
};

/// The warp's copies of tile t into a stage (no commit): its streams' rows of d
/// (ColumnsLanesLines), and of the tables of A and M, piece l of each stream, array l/8, real
/// rows 2(l mod 8), + 1, complex row l mod 8, at kLanesDPieces + 32h + l. `zero` is any readable
/// address, the source of copies of no bytes (which fill zeros).
template <int W, class T>
struct ColumnsLanesFetch {
  using Warp = ColumnsLanesWarp<W, T>;
  static constexpr int kStagePieces = kLanesStagePieces;
  ColumnsLanesLines<W, T, const T> d;
  const T* table[Warp::kStreams];
  index_t table_row[Warp::kStreams], table_n;

  __device__ ColumnsLanesFetch(const Warp& w, const ShiftedMatrix<T>& m, const T* dv,
                               index_t row_stride)
      : d(w, dv, row_stride, m.n) {
    const LanesTable<T> tab(m, w.lane / 8);
    table_n = tab.rows;
#pragma unroll
    for (int h = 0; h < Warp::kStreams; ++h) {
      table_row[h] = w.stream_row[h] + Warp::kPerPiece * (w.lane & 7);
      table[h] = tab.at + std::min(table_row[h], m.n - 1);
    }
  }
  __device__ void operator()(const Warp& w, double2* stage, int t, const double2* zero) const {
    d.each(w, t, [&](int slot, const double2* from, unsigned bytes) {
      copy_async(stage + slot, bytes ? from : zero, bytes);
    });
    const index_t tile_row = static_cast<index_t>(t) * Warp::kTileRows;
#pragma unroll
    for (int h = 0; h < Warp::kStreams; ++h) {
      const unsigned bytes = piece_bytes_left<T>(table_n - (table_row[h] + tile_row));
      copy_async(stage + kLanesDPieces + 32 * h + w.lane,
                 bytes ? reinterpret_cast<const double2*>(table[h] + tile_row) : zero, bytes);
    }
  }
};

/// The same reduce pass for systems side by side (the columns method's interleaved rows) and its
/// segments of `rows` rows (solve.cu: columns_lanes_rows): each warp's streams (ColumnsLanesWarp)
/// walk their bands tile by tile, one segment after the other (the coupling to the row before
/// carried across), each lane writing its segment's coarse rows as columns_kernel's reduce pass
/// writes them, and the elimination's state (LaneChain f, e, g) before each tile ts ≥ 1 of a
/// segment (store_checkpoint; unit = segment·batch + system, so a stream's lanes store adjacent
/// scalars), for columns_lanes_substitute_kernel. A tile's rows of d are copied with coalesced
/// 16-byte cp.async into the stage row by row, and its segment's rows of A and M as in
/// segment_lanes_reduce_kernel. `rows` ≥ 2 TR, a multiple of TR; columns_lanes_apply. Complex: at
/// most 168 registers (three blocks per SM), as the segment pass's complex instance takes.
template <int W, class T>
__global__ void __launch_bounds__(kLanesWarps* kWarpLanes, lanes_min_blocks<T>())
    columns_lanes_reduce_kernel(ShiftedMatrix<T> m, const T* shifts, index_t batch,
                                index_t segments, int rows, int per, const T* d, index_t row_stride,
                                T* ca, T* cb, T* cc, T* cd, T* checkpoints, Gate gate) {
  using Warp = ColumnsLanesWarp<W, T>;
  constexpr int kTileRows = Warp::kTileRows;
  extern __shared__ __align__(16) unsigned char smem_raw[];
  const Warp w(batch, segments, rows, per, m.n);
  if (w.idle() || gate.closed()) return;  // uniform over the warp
  const int seg_tiles = rows / kTileRows, tiles = w.tiles();
  const LanesStages<ColumnsLanesFetch<W, T>> stages(ColumnsLanesFetch<W, T>(w, m, d, row_stride),
                                                    smem_raw, d, tiles);
  const index_t n = m.n, units = batch * segments;
  stages.fetch(w, 0);

  const auto [h, k, p, active] = w.column();
  const T s = shifts[k];
  T sub = lanes_coupling(m, s, p);
  LaneChain<T> chain = LaneChain<T>::before_first();
  Row4<T> first, last;
  index_t seg = p / rows;  // the lane's segment, and its tile ts in it
  int ts = 0;
  for (int t = 0; t < tiles; ++t) {
    stages.fetch(w, t + 1);
    if (active && ts > 0 && seg < segments)
      store_checkpoint(checkpoints, units, ts, seg * batch + k, chain);
    copy_async_wait_pending<1>();
    __syncwarp();
    double2* stage = stages[t];
    const index_t r0 = p + static_cast<index_t>(t) * kTileRows;
    const bool guard = __any_sync(0xffffffffu, r0 + kTileRows > n);
    segment_lanes_tile_at(ts == 0, ts == seg_tiles - 1, guard, s, r0, n,
                          ColumnPieces<W, T>{stage + h * Warp::kStreamPieces, w.lane % W},
                          stage + kLanesDPieces + 32 * h, sub, chain, first, last);
    if (++ts == seg_tiles) {
      Row4<T> P, Q;
      lane_reduced_rows(first, last, chain.alpha, chain.beta, chain.gamma, chain.e, chain.g,
                        -chain.f, P, Q);
      if (active && seg < segments)
        store_coarse_pairs(Condensed<T>{P, Q}, ca, cb, cc, cd, k * 2 * segments + 2 * seg);
      chain = LaneChain<T>::before_first();
      ts = 0;
      ++seg;
    }
    __syncwarp();  // the stage is fetched into again at the next tile
  }
}

/// The substitute pass after columns_lanes_reduce_kernel (with checkpoints) and the coarse solve
/// (the coarse unknowns in cd), for systems side by side: each warp's streams (ColumnsLanesWarp,
/// bands of `per` segments, not necessarily the reduce pass's) walk their bands' tiles backward,
/// the next one (the one before) copied under the current one, with each lane's state before it
/// (copy_substitute_state: the reduce pass's checkpoint, a segment's first tile the start; the
/// coupling to the row before). Per tile a lane takes that state and its segment's coarse unknowns
/// (rows 2·segment, + 1 of system k's coarse solution), segment_lanes_resolve_tile, and the warp
/// stores the tile's x from the stage row by row as d was copied. x may alias d. Launched and
/// waiting as segment_lanes_substitute_kernel.
template <int W, class T>
__global__ void __launch_bounds__(kLanesWarps* kWarpLanes, lanes_min_blocks<T>())
    columns_lanes_substitute_kernel(ShiftedMatrix<T> m, const T* shifts, index_t batch,
                                    index_t segments, int rows, int per, const T* d,
                                    index_t d_row_stride, T* x, index_t x_row_stride, const T* cd,
                                    const T* checkpoints, Gate gate) {
  using Warp = ColumnsLanesWarp<W, T>;
  constexpr int kTileRows = Warp::kTileRows;
  extern __shared__ __align__(16) unsigned char smem_raw[];
  const Warp w(batch, segments, rows, per, m.n);
  if (w.idle() || gate.closed()) return;  // uniform over the warp
  const int seg_tiles = rows / kTileRows, tiles = w.tiles();
  const LanesStages<ColumnsLanesFetch<W, T>, lanes_state_pieces<T>()> stages(
      ColumnsLanesFetch<W, T>(w, m, d, d_row_stride), smem_raw, d, tiles);
  const index_t n = m.n, units = batch * segments;
  const ColumnsLanesLines<W, T, T> out(w, x, x_row_stride, n);
  const typename Warp::Column c = w.column();
  const index_t k = c.k, p = c.p;
  // The lane's segment (clamped where a band runs past the last: identity rows, nothing stored)
  // and its tile ts in it, walked backward.
  index_t seg = p / rows + w.per - 1;
  int ts = seg_tiles - 1;
  // The lane's state before tile t (segment sg, its tile st), copied with the tile.
  const auto state = [&](int t, index_t sg, int st) {
    return [&, t, sg, st](double2* stage) {
      const index_t unit = std::min(sg, segments - 1) * batch + k;
      copy_substitute_state(stage, w.lane,
                            st > 0 ? checkpoints + 3 * (st - 1) * units + unit : nullptr, units, m,
                            p + static_cast<index_t>(t) * kTileRows, d);
    };
  };
  stages.fetch(w, tiles - 1, state(tiles - 1, seg, ts));
  const T s = shifts[k];
  wait_previous_grid();  // the coarse solve's last grid wrote cd
  T x_first, x_last, x_next;
  auto coarse = [&] {
    const T* at = cd + k * 2 * segments + 2 * std::min(seg, segments - 1);
    x_first = at[0];
    x_last = at[1];
    x_next = x_last;
  };
  coarse();
  for (int t = tiles - 1; t >= 0; --t) {
    stages.fetch(w, t - 1,
                 ts > 0 ? state(t - 1, seg, ts - 1) : state(t - 1, seg - 1, seg_tiles - 1));
    const index_t r0 = p + static_cast<index_t>(t) * kTileRows;
    copy_async_wait_pending<1>();
    __syncwarp();
    double2* stage = stages[t];
    LaneChain<T> chain;
    T sub;
    take_substitute_state(stage, w.lane, ts == 0, s, chain, sub);
    const bool guard = __any_sync(0xffffffffu, r0 + kTileRows > n);
    segment_lanes_resolve_tile_at(ts == 0, ts == seg_tiles - 1, guard, s, r0, n,
                                  ColumnPieces<W, T>{stage + c.h * Warp::kStreamPieces, w.lane % W},
                                  stage + kLanesDPieces + 32 * c.h, sub, chain, x_first, x_last,
                                  x_next);
    __syncwarp();  // the tile's x in the stage
    out.each(w, t,
             [&](int slot, double2* to, unsigned bytes) { store_piece(to, stage + slot, bytes); });
    __syncwarp();  // the stage is fetched into again at the next tile
    if (ts-- == 0) {
      ts = seg_tiles - 1;
      --seg;
      if (t > 0) coarse();
    }
  }
}

}  // namespace pscr::tridiag::cuda::detail
