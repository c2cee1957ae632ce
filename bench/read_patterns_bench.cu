// How fast the GPU reads 2^24 doubles (134 MB) from DRAM in the pattern of the segment method's
// reduce pass (tridiag/cuda/segment_lanes.cuh), and copies them in the substitute passes'
// pattern, against a plain stream and the device-to-device copy (docs/tridiag-performance.md,
// "The reduce pass's read pattern" and "Why the contiguous substitute passes are slower"); and
// what a solver reading d once for few long systems could reach (the resident pattern, "Long
// systems held in shared memory across blocks"); and whether the two passes in one launch, each
// unit read again soon after its first read, find d in the L2 the second time (the lagged pattern,
// "Both passes in one launch: the lagged pattern").
//
// Usage: read_patterns_bench OUTPUT.csv [--reps R] [--only PATTERN[,PATTERN...]]
//                            [--warps-per-sm W[,W...]]
// (--only: stream, units, bulk, resident, lagged; the copy runs always. --warps-per-sm: the units
// and lagged patterns at 8, 16 or 32 warps per SM launched; all three by default.)
// Patterns (reads only; the values are multiplied and summed so that no load is dropped):
//  - copy: cudaMemcpy device to device of the same bytes (GB/s on its read + write bytes);
//  - stream: a grid-stride loop, each thread 8 independent 16-byte loads per step (4 or 16 blocks
//    of 128 threads per SM);
//  - units: the reduce pass's pattern. The array is 256 systems of 65536 rows cut into units of
//    256 rows (the segments of K = 8); a warp takes 32 units, lane l unit l, and reads them tile
//    by tile (TILE rows of each unit per tile, 16-byte loads, four or two units' lines per load
//    instruction), the next tile's loads issued before the current one's values are used. Units
//    in segment-major order (unit = segment · batch + system: lines 512 KB apart, as the reduce
//    pass), segment-major skewed (system k's segment s + k mod 256 where the pass has segment s:
//    a warp's lines 512 KB + 2 KB apart, no power of two), or system-major (consecutive units
//    adjacent in memory), at 8, 16 and 32 warps per SM; also interleaved (the columns method's
//    lanes passes: the 256 systems side by side, row r of every system together; a warp takes 32
//    adjacent systems of one segment, lane l system l, and a tile is TILE rows of 256 bytes);
//  - units_copy: the units' orders, each tile's pieces also stored to a second array at the same
//    offsets (the substitute passes' pattern: d read, x written in its place), instead of summed;
//    units_copy_paired: segment-major 16-row tiles, each unit's lines stored two tiles at a time
//    (the even tile's held in registers until the odd one's are stored after it);
//    units_copy_solved: segment-major 16- and 32-row tiles and interleaved 16-row ones, each tile's
//    values through a lane's Thomas sweep before they are stored (a substitute pass's arithmetic
//    per row, without its shared-memory stage);
//    units_copy_halves: segment-major 32-row tiles moved in 128-byte halves of the units' lines
//    (each load or store instruction as at 16-row tiles, a unit's two halves back to back);
//    units_copy_l2_256, units_l2_256: segment-major 16-row tiles, copied or read with each load
//    asking the L2 for its 256-byte block (ld.global.L2::256B);
//  - bulk: the units in segment-major order, each lane's line of a tile (TILE rows, 8·TILE
//    bytes) copied to shared memory by one bulk copy (cp.async.bulk, counted on the stage's
//    mbarrier), STAGES stages per warp (STAGES − 1 tiles in flight while one is read), one warp
//    per block at the warps per SM given, as many as the shared memory holds.
//  - resident: the data movement and synchronization of a solver that would read d once for few,
//    long systems (n = 8192, 65536 and 2^20 rows, 2^24 rows in all, real or complex) by holding
//    each system in shared memory across blocks from its load to its store. A system is cut into
//    chunks of R = M·Threads rows, a block per chunk taken by ticket in order (an atomic counter;
//    a cooperative launch of as many blocks as are resident, so that a block waiting on its
//    system's other chunks never waits on one that has not started). The chunk comes in by bulk
//    copies; each thread's M consecutive rows go through a Thomas sweep down (one division per
//    row; WORK independent sweeps: a reduce step's arithmetic, or twice it), a block sum, the
//    chunk's summary published and its system's count raised; once the count says every chunk of
//    the system is in, warp 0 sums the summaries before the chunk (the coarse step), the threads
//    sweep their rows down (WORK sweeps) and up again (a substitute step's), x written in place
//    of d and stored by bulk copies. With two buffers a block holds the next chunk, copied while
//    it waits on the current chunk's system (a next chunk of the same system is reduced and
//    published before that wait). order: [complex_]nN[_nowait: the same without the wait]
//    [_two_buffers][_indexed][_tables|_l2rows][_workW], tile_rows R, stages the chunks per
//    system. A ceiling, not a solver: the coarse step is a sum, and but for _tables and _l2rows
//    the shifted form's rows of A and M are not read. _indexed: no tickets; block b keeps chunk
//    index b mod C and takes its systems in order (groups of C blocks, as many as are resident),
//    so that it can copy its chunk's slice of those rows (32 bytes per row) into shared memory
//    once, and _tables sweeps on them (row r of A + shift·M, a shift per system) instead of on
//    constants. _l2rows: the ticketed kernels' sweeps on the same rows read from global memory
//    per row (through L1 and L2: the table is shared by every system), no slice staged.
//  - lagged: the segment method's two passes over d in one launch (units of U = 256, 128 or 64
//    rows, 16-row tiles, jobs of 32 units per warp: 64, 32 or 16 KB of d, which the resident
//    warps' jobs span at once: 135, 68 or 34 MB at 16 warps per SM on 132 SMs, against the L2's
//    50 MB, so that U = 256 can hardly find its units again in the L2 whatever the lag, and
//    U = 64, the segments of K = 2, may; U = 128 has the bytes of complex units of 64 rows): the
//    256 systems in groups of G (4 or 16: 2 or 8 MB of d), a group's units segment-major (order
//    grouped), each warp drawing its jobs by ticket in order (an atomic counter): first the reduce
//    jobs of the first L groups (the lag), then a substitute job and a reduce job L groups on,
//    alternately. A reduce job reads its units and sums them, then counts itself done for its
//    group; the group's last one takes the coarse step (no coarse solve: it waits 0, or for units
//    of 64 rows also 2 or 8 µs, about what one warp's solve of the coarse systems of 8192 and
//    65536 rows would take, _coarseTus) and marks it done; a substitute job waits for that mark,
//    reads the same units again and stores them to x at d's offsets, as they are or through a
//    lane's Thomas sweep (_solved, the units_copy_solved arithmetic). Every job a substitute job
//    waits on holds an earlier ticket, so no warp waits on one that has not started. _hinted:
//    the reduce jobs' loads with the L2 policy evict_last, the substitute jobs' loads and stores
//    evict_first (createpolicy, L2::cache_hint), so that x and the units read for the last time
//    make way for those still to be read again. order:
//    groupG_unitU_lagMB[_solved][_hinted][_coarseTus], the lag in MB of d; a lag of all the
//    groups is the two passes' order (every reduce job first: d read twice from DRAM), the
//    control. Whether the second read found d in the L2 shows in the rate on d's and x's bytes
//    against units_copy's (Nsight Compute's dram__bytes_read.sum says it directly).
// CSV columns: device, pattern, order, tile_rows, stages (bulk; 2 for the units, one tile in
// registers and the next loading; resident: chunks per system; lagged: the lag in groups),
// warps_per_sm (resident: 8, 16 or 32 asked, fewer where the kernel's registers allow fewer;
// resident pattern: its blocks'), median_ms, gbs (bytes read, or read + written for the copy and
// the units_copy, resident and lagged patterns, d's and x's bytes once each, per second). Median of
// R runs (default 21) after a warm-up. Exit codes: 0 written, 1 failure (no GPU, a CUDA error, an
// unwritable output), 2 bad arguments.
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "bench/cli.hpp"
#include "common/cuda/check.hpp"
#include "common/cuda/device_buffer.hpp"
#include "common/error.hpp"
#include "tridiag/cuda/complex.cuh"
#include "tridiag/cuda/rows.cuh"

namespace {

constexpr long long kElements = 1LL << 24;
constexpr int kSystemRows = 65536;
constexpr int kBatch = static_cast<int>(kElements / kSystemRows);
constexpr int kUnitRows = 256;
constexpr int kBlockThreads = 128;
/// Blocks per SM that the units and lagged patterns launch: 8, 16 and 32 warps per SM
/// (--warps-per-sm picks among them).
constexpr int kBlocksPerSm[] = {2, 4, 8};

enum class Order { segment_major, segment_skewed, system_major, interleaved, grouped };

/// The units pattern (file comment): per lane kLoads 16-byte loads per tile, one tile ahead.
/// What becomes of each tile's pieces: none, summed (the loads kept); each_tile, stored to `out` at
/// their offsets in d (the pattern in which the substitute passes write x); paired, each odd tile's
/// stores issued right after the even tile's before it (a unit's two adjacent lines written
/// together, the tiles still read one line at a time); solved, run through a lane's Thomas sweep
/// first (down: one FP64 division per value, from a fixed state each tile, as the substitute passes
/// start from their checkpoints; up: one FMA per value, carried across tiles), the results stored,
/// so that a tile's stores wait on the arithmetic a substitute pass's lane does over its unit's
/// rows.
enum class Stores { none, each_tile, paired, solved };
/// A 16-byte piece of d, with the L2 asked to fetch the 256-byte block around it (Prefetch256:
/// ld.global.L2::256B) or not.
template <bool Prefetch256>
__device__ __forceinline__ double2 load_piece(const double2* p) {
  if constexpr (Prefetch256) {
    double2 v;
    asm volatile("ld.global.L2::256B.v2.f64 {%0, %1}, [%2];\n" : "=d"(v.x), "=d"(v.y) : "l"(p));
    return v;
  } else {
    return *p;
  }
}
/// An L2 eviction policy for a whole access (createpolicy.fractional, fraction 1): evict_last for
/// lines to be read again (the lagged pattern's reduce jobs), else evict_first (read for the last
/// time, or x).
template <bool Last>
__device__ __forceinline__ unsigned long long l2_policy() {
  unsigned long long policy;
  if constexpr (Last)
    asm volatile("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(policy));
  else
    asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(policy));
  return policy;
}
/// A 16-byte load or store with an L2 eviction policy (l2_policy).
__device__ __forceinline__ double2 load_hinted(const double2* p, unsigned long long policy) {
  double2 v;
  asm volatile("ld.global.L2::cache_hint.v2.f64 {%0, %1}, [%2], %3;\n"
               : "=d"(v.x), "=d"(v.y)
               : "l"(p), "l"(policy));
  return v;
}
__device__ __forceinline__ void store_hinted(double2* p, double2 v, unsigned long long policy) {
  asm volatile("st.global.L2::cache_hint.v2.f64 [%0], {%1, %2}, %3;\n"
               :
               : "l"(p), "d"(v.x), "d"(v.y), "l"(policy)
               : "memory");
}
__device__ __forceinline__ unsigned load_acquire(const unsigned* p) {
  unsigned v;
  asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}
__device__ __forceinline__ void store_release(unsigned* p, unsigned v) {
  asm volatile("st.release.gpu.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}
/// The GPU's nanosecond clock (%globaltimer), the same on every SM.
__device__ __forceinline__ unsigned long long global_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

/// One job of the units pattern (file comment): 32 units of UnitRows rows (kUnitRows but in the
/// lagged pattern), lane l unit 32·job + l, read tile by tile, each tile's pieces summed into `acc`
/// or stored to `out` (stores; `x_after` the solved stores' carried value). Order::grouped (the
/// lagged pattern's): groups of GroupSystems systems one after another, each group's units in
/// segment-major order. Hinted (the lagged pattern's `_hinted`): loads and stores with an L2
/// eviction policy, evict_last where the job only reads (the units are read again) and
/// evict_first where it stores (d read for the last time, and x). Halves (segment-major 32-row
/// tiles): each load and store instruction moves 128-byte halves of four units' lines, as at
/// 16-row tiles, where otherwise it moves two units' whole 256-byte lines.
template <Order order, int TileRows, Stores stores = Stores::none, bool Prefetch256 = false,
          bool Halves = false, int GroupSystems = 1, int UnitRows = kUnitRows, bool Hinted = false>
__device__ __forceinline__ void unit_job(const double* __restrict__ d, double* __restrict__ out,
                                         int lane, int job, double& acc, double& x_after) {
  static_assert(!Halves || (TileRows == 32 && order == Order::segment_major));
  constexpr int kPieces = TileRows / 2;  // 16-byte pieces of a unit's tile
  constexpr int kLoads = kPieces;        // per lane: 32 units · kPieces pieces over 32 lanes
  constexpr int kTiles = UnitRows / TileRows;
  constexpr long long kSegments = kSystemRows / UnitRows;
  const double2* src[kLoads];
#pragma unroll
  for (int i = 0; i < kLoads; ++i) {
    // Halves: loads i and i + kLoads/2 take the two halves of the same four units' lines.
    constexpr int kLinePieces = Halves ? kPieces / 2 : kPieces;
    const int piece = (Halves ? i % (kLoads / 2) : i) * 32 + lane;
    const long long unit = 32LL * job + piece / kLinePieces;
    const long long system = unit % kBatch, segment = unit / kBatch;
    if constexpr (order == Order::interleaved) {
      // Tile rows of 256 bytes (the 256 systems' 16-byte pieces, 32 adjacent systems per warp):
      // piece i·32 + lane is row piece / 16, systems 2·(piece mod 16) and the next.
      const long long group = job % (kBatch / 32), seg = job / (kBatch / 32);
      const long long row = seg * UnitRows + piece / 16;
      src[i] = reinterpret_cast<const double2*>(d + row * kBatch + group * 32) + piece % 16;
    } else {
      long long first = order == Order::segment_major ? system * kSystemRows + segment * UnitRows
                        : order == Order::segment_skewed
                            ? system * kSystemRows + (segment + system) % kSegments * UnitRows
                            : unit * UnitRows;
      if constexpr (order == Order::grouped) {
        constexpr long long kGroupUnits = GroupSystems * kSegments;
        const long long in_group = unit % kGroupUnits;
        first = (unit / kGroupUnits * GroupSystems + in_group % GroupSystems) * kSystemRows +
                in_group / GroupSystems * UnitRows;
      }
      src[i] = reinterpret_cast<const double2*>(d + first) + piece % kLinePieces +
               (Halves && i >= kLoads / 2 ? kLinePieces : 0);
    }
  }
  // 16-byte pieces from one tile of a unit to its next.
  constexpr long long kTileStep = order == Order::interleaved ? TileRows * kBatch / 2 : kPieces;
  [[maybe_unused]] unsigned long long policy = 0;
  if constexpr (Hinted) policy = l2_policy<stores == Stores::none>();
  const auto load = [&](const double2* p) {
    if constexpr (Hinted)
      return load_hinted(p, policy);
    else
      return load_piece<Prefetch256>(p);
  };
  double2 current[kLoads], next[kLoads], held[kLoads];
#pragma unroll
  for (int i = 0; i < kLoads; ++i) current[i] = load(src[i]);
  for (int t = 0; t < kTiles; ++t) {
    if (t + 1 < kTiles) {
#pragma unroll
      for (int i = 0; i < kLoads; ++i) next[i] = load(src[i] + (t + 1) * kTileStep);
    }
    const auto store = [&](int tile, const double2(&v)[kLoads]) {
#pragma unroll
      for (int i = 0; i < kLoads; ++i) {
        double2* x = reinterpret_cast<double2*>(out) +
                     (src[i] - reinterpret_cast<const double2*>(d) + tile * kTileStep);
        if constexpr (Hinted)
          store_hinted(x, v[i], policy);
        else
          *x = v[i];
      }
    };
    if constexpr (stores == Stores::each_tile) {
      store(t, current);
    } else if constexpr (stores == Stores::solved) {
      double f[2 * kLoads], e[2 * kLoads];
      double fd = 0.25, ed = 0;
#pragma unroll
      for (int r = 0; r < 2 * kLoads; ++r) {
        const double v = r % 2 == 0 ? current[r / 2].x : current[r / 2].y;
        fd = 1.0 / (4.0 + v - fd);
        ed = (v - ed) * fd;
        f[r] = fd;
        e[r] = ed;
      }
      double2 x[kLoads];
#pragma unroll
      for (int r = 2 * kLoads - 1; r >= 0; --r) {
        x_after = e[r] - f[r] * x_after;
        if (r % 2 == 0)
          x[r / 2].x = x_after;
        else
          x[r / 2].y = x_after;
      }
      store(t, x);
    } else if constexpr (stores == Stores::paired) {
      if (t % 2 == 0) {
#pragma unroll
        for (int i = 0; i < kLoads; ++i) held[i] = current[i];
      } else {
        store(t - 1, held);
        store(t, current);
      }
    } else {
#pragma unroll
      for (int i = 0; i < kLoads; ++i) acc += current[i].x * current[i].y;
    }
#pragma unroll
    for (int i = 0; i < kLoads; ++i) current[i] = next[i];
  }
}

/// The units pattern (file comment): each warp takes the jobs warp, warp + warps, ...
template <Order order, int TileRows, Stores stores = Stores::none, bool Prefetch256 = false,
          bool Halves = false>
__global__ void __launch_bounds__(kBlockThreads)
    read_units(const double* __restrict__ d, double* __restrict__ out, double* sink, int jobs) {
  const int lane = static_cast<int>(threadIdx.x) & 31;
  const int warp = static_cast<int>((blockIdx.x * blockDim.x + threadIdx.x) >> 5);
  const int warps = static_cast<int>((gridDim.x * blockDim.x) >> 5);
  double acc = 0, x_after = 0;
  for (int job = warp; job < jobs; job += warps)
    unit_job<order, TileRows, stores, Prefetch256, Halves>(d, out, lane, job, acc, x_after);
  if (acc + x_after == 1.0) *sink = acc;  // never true for the zeros read; keeps the loads
}

/// Where the lagged pattern's warps meet: the ticket counter, and per group of systems the reduce
/// jobs done, the launches whose coarse step is done (the epoch of the last) and the substitute
/// jobs done. Counts grow by launch (`epoch`, 1 for the first), so they are zeroed once per
/// configuration, not before every launch.
struct LaggedSync {
  unsigned long long* tickets;
  unsigned* reduced;
  unsigned* coarsened;
  unsigned* substituted;
};

/// Jobs (32 units of `unit_rows` rows) per group of `systems` systems of the lagged pattern.
__host__ __device__ constexpr long long lagged_group_jobs(int systems, int unit_rows) {
  return static_cast<long long>(systems) * (kSystemRows / unit_rows) / 32;
}

/// The job of ticket t in the lagged pattern (jobs J, lag L ≥ a group's jobs): reduce jobs 0..L−1
/// first, then a substitute job and a reduce job alternately (substitute i, reduce L + i), then the
/// last L substitute jobs. Every reduce job of a substitute job's group then holds an earlier
/// ticket.
struct LaggedJob {
  long long job;
  bool substitute;
};
__host__ __device__ constexpr LaggedJob lagged_job(long long t, long long jobs, long long lag) {
  if (t < lag) return {t, false};
  if (t < 2 * jobs - lag) {
    const long long k = t - lag;
    return k % 2 == 0 ? LaggedJob{k / 2, true} : LaggedJob{lag + k / 2, false};
  }
  return {t - jobs, true};
}
/// Whether lagged_job gives each of `jobs` jobs (at most 64) one reduce ticket and one substitute
/// ticket, every reduce job of a substitute job's group (`group_jobs` jobs) an earlier one.
constexpr bool lagged_order_holds(long long jobs, long long lag, long long group_jobs) {
  long long reduce_ticket[64] = {}, substitute_ticket[64] = {};
  int seen[64] = {};
  for (long long t = 0; t < 2 * jobs; ++t) {
    const LaggedJob j = lagged_job(t, jobs, lag);
    if (j.job < 0 || j.job >= jobs) return false;
    seen[j.job] += j.substitute ? 2 : 1;
    (j.substitute ? substitute_ticket : reduce_ticket)[j.job] = t;
  }
  for (long long i = 0; i < jobs; ++i) {
    if (seen[i] != 3) return false;
    const long long first = i / group_jobs * group_jobs;
    for (long long r = first; r < first + group_jobs && r < jobs; ++r)
      if (reduce_ticket[r] >= substitute_ticket[i]) return false;
  }
  return true;
}
static_assert(lagged_order_holds(8, 2, 2) && lagged_order_holds(8, 4, 2) &&
              lagged_order_holds(8, 8, 2) && lagged_order_holds(64, 8, 8) &&
              lagged_order_holds(64, 24, 8) && lagged_order_holds(64, 64, 8));
static_assert(!lagged_order_holds(8, 1, 2), "a lag under a group's jobs waits on later tickets");

/// The lagged pattern (file comment): the two passes of the segment method in one launch, each
/// warp drawing jobs by ticket (lagged_job): a reduce job reads its 32 units and sums them, then
/// counts itself done for its group, and the group's last one takes the coarse step: it waits
/// `coarse_ns` nanoseconds (where a solver's warp would solve the group's coarse systems) and
/// marks the group's coarse step done; a substitute job waits for that mark, reads the same units
/// again and stores them (substitute: Stores::each_tile or Stores::solved), groups of
/// GroupSystems systems, units of UnitRows rows. With the bytes of d between a unit's two reads
/// within the L2, the second read should find d there.
template <int GroupSystems, int UnitRows, int TileRows, Stores substitute, bool Hinted>
__global__ void __launch_bounds__(kBlockThreads)
    read_lagged(const double* __restrict__ d, double* __restrict__ out, double* sink,
                LaggedSync sync, long long jobs, long long lag, unsigned epoch,
                unsigned long long coarse_ns) {
  constexpr long long kGroupJobs = lagged_group_jobs(GroupSystems, UnitRows);
  const int lane = static_cast<int>(threadIdx.x) & 31;
  const long long warps = (static_cast<long long>(gridDim.x) * blockDim.x) >> 5;
  // Each launch takes every job's ticket and one past the end per warp.
  const unsigned long long base =
      (epoch - 1ull) * static_cast<unsigned long long>(2 * jobs + warps);
  double acc = 0, x_after = 0;
  for (;;) {
    unsigned long long ticket = 0;
    if (lane == 0) ticket = atomicAdd(sync.tickets, 1ull) - base;
    ticket = __shfl_sync(0xffffffffu, ticket, 0);
    if (ticket >= static_cast<unsigned long long>(2 * jobs)) break;
    const LaggedJob j = lagged_job(static_cast<long long>(ticket), jobs, lag);
    const int job = static_cast<int>(j.job);  // fewer than 2^31: 2^19 / UnitRows jobs
    const long long group = job / kGroupJobs;
    if (j.substitute) {
      if (lane == 0)
        while (load_acquire(sync.coarsened + group) < epoch) __nanosleep(64);
      __syncwarp();
      unit_job<Order::grouped, TileRows, substitute, false, false, GroupSystems, UnitRows, Hinted>(
          d, out, lane, job, acc, x_after);
      __syncwarp();
      if (lane == 0) atomicAdd(sync.substituted + group, 1u);
    } else {
      unit_job<Order::grouped, TileRows, Stores::none, false, false, GroupSystems, UnitRows,
               Hinted>(d, out, lane, job, acc, x_after);
      __syncwarp();  // every lane's loads summed before the job counts as done
      if (lane == 0) {
        __threadfence();
        if (atomicAdd(sync.reduced + group, 1u) + 1 == epoch * static_cast<unsigned>(kGroupJobs)) {
          // The group's last reduce job: its coarse step, then the mark its substitute jobs wait
          // for (the other lanes wait for lane 0 at the next ticket's shuffle).
          const unsigned long long until = global_ns() + coarse_ns;
          while (global_ns() < until) __nanosleep(64);
          store_release(sync.coarsened + group, epoch);
        }
      }
    }
  }
  if (acc + x_after == 1.0) *sink = acc;  // never true for the zeros read; keeps the loads
}

/// A configuration of the lagged pattern, its kernel's template arguments named for the host:
/// 16-row tiles, groups of GroupSystems systems, units of UnitRows rows, the substitute jobs'
/// stores through a lane's Thomas sweep (Solved) or as read, loads and stores with L2 eviction
/// policies (Hinted: unit_job) or without.
template <int GroupSystems, int UnitRows, bool Solved, bool Hinted = false>
struct LaggedConfig {
  static constexpr int kGroupSystems = GroupSystems, kUnitRows = UnitRows;
  static constexpr bool kSolved = Solved, kHinted = Hinted;
  static constexpr Stores kStores = Solved ? Stores::solved : Stores::each_tile;
  static constexpr auto kernel = read_lagged<GroupSystems, UnitRows, 16, kStores, Hinted>;
};

/// Bytes of a lane's line in a bulk stage: 8·TileRows and 16 of padding, so that the 8 lanes of a
/// phase of 16-byte shared reads (lines an odd number of 16-byte pieces apart) meet 8 distinct
/// 16-byte bank groups.
__host__ __device__ constexpr int bulk_line_bytes(int tile_rows) {
  return 8 * tile_rows + 16;
}
/// Shared-memory bytes of a bulk block (one warp): its stages' lines, then an mbarrier per stage.
constexpr int bulk_smem(int tile_rows, int stages) {
  return stages * (32 * bulk_line_bytes(tile_rows) + 8);
}

/// The bulk pattern (file comment): units in segment-major order, blocks of one warp.
template <int TileRows, int Stages>
__global__ void __launch_bounds__(32)
    read_units_bulk(const double* __restrict__ d, double* sink, int jobs) {
  using namespace pscr::tridiag::cuda::detail;
  constexpr int kTiles = kUnitRows / TileRows;
  constexpr int kLine = bulk_line_bytes(TileRows);
  extern __shared__ __align__(16) unsigned char smem[];
  const unsigned bars = shared_address(smem + Stages * 32 * kLine);
  const int lane = static_cast<int>(threadIdx.x);
  if (lane == 0) {
    for (int s = 0; s < Stages; ++s) mbarrier_init(bars + 8 * s, 1);
    mbarrier_init_fence();
  }
  __syncwarp();
  // Step j of this warp: job blockIdx.x + (j / kTiles)·gridDim.x, tile j mod kTiles.
  const int jobs_here =
      static_cast<int>(blockIdx.x) < jobs
          ? (jobs - 1 - static_cast<int>(blockIdx.x)) / static_cast<int>(gridDim.x) + 1
          : 0;
  const int steps = jobs_here * kTiles;
  auto issue = [&](int j) {
    const int stage = j % Stages;
    const long long job = blockIdx.x + static_cast<long long>(j / kTiles) * gridDim.x;
    const long long unit = 32 * job + lane;
    const long long system = unit % kBatch, segment = unit / kBatch;
    const double* src = d + system * kSystemRows + segment * kUnitRows + (j % kTiles) * TileRows;
    if (lane == 0) mbarrier_expect(bars + 8 * stage, 32 * 8 * TileRows);
    __syncwarp();
    bulk_copy_in(smem + (stage * 32 + lane) * kLine, src, 8 * TileRows, bars + 8 * stage);
  };
  for (int j = 0; j < Stages - 1 && j < steps; ++j) issue(j);
  double acc = 0;
  for (int j = 0; j < steps; ++j) {
    if (j + Stages - 1 < steps) issue(j + Stages - 1);
    const int stage = j % Stages;
    mbarrier_wait(bars + 8 * stage, (j / Stages) & 1);
    const double2* line = reinterpret_cast<const double2*>(smem + (stage * 32 + lane) * kLine);
#pragma unroll 8
    for (int i = 0; i < TileRows / 2; ++i) acc += line[i].x * line[i].y;
    __syncwarp();  // every lane has read the stage before the next issue copies into it
  }
  if (acc == 1.0) *sink = acc;
}

/// Where the resident pattern's blocks meet: the ticket counter, each system's count of chunks
/// reduced, each chunk's summary. Counts grow by launch (`epoch`, 1 for the first), so they are
/// zeroed once per configuration, not before every launch.
struct ResidentSync {
  unsigned long long* tickets;
  unsigned* arrivals;
  double* summaries;
};

/// Inclusive sum of `v` over the block's threads; `warp_sums` (a shared array of a value per warp)
/// then holds each warp's inclusive total, so that warp_sums[warps − 1] is the block's.
template <int Threads>
__device__ double block_inclusive_sum(double v, double* warp_sums) {
  const int lane = static_cast<int>(threadIdx.x) & 31, warp = static_cast<int>(threadIdx.x) >> 5;
#pragma unroll
  for (int o = 1; o < 32; o *= 2) {
    const double u = __shfl_up_sync(0xffffffffu, v, o);
    if (lane >= o) v += u;
  }
  if (lane == 31) warp_sums[warp] = v;
  __syncthreads();
  if (warp == 0) {
    double w = lane < Threads / 32 ? warp_sums[lane] : 0.0;
#pragma unroll
    for (int o = 1; o < Threads / 32; o *= 2) {
      const double u = __shfl_up_sync(0xffffffffu, w, o);
      if (lane >= o) w += u;
    }
    if (lane < Threads / 32) warp_sums[lane] = w;
  }
  __syncthreads();
  return v + (warp > 0 ? warp_sums[warp - 1] : 0.0);
}

__device__ __forceinline__ double real_part(double v) {
  return v;
}
__device__ __forceinline__ double real_part(const pscr::tridiag::cuda::detail::Complex& v) {
  return v.re;
}

/// Where the resident pattern's sweeps take the shifted form's rows of A and M (4 doubles per row:
/// A's diagonal and off-diagonal, then M's): none (constants), the chunk's slice of the table in
/// shared memory (`_tables`), or the table in global memory, read per row through the L1 and L2
/// (`_l2rows`; 32 MB at n = 2^20, 2 MB at 65536, shared by every system of the batch).
enum class Rows { none, shared, global };

/// The resident pattern's steps on a chunk of R = M·Threads rows (scalars T: double, or the
/// solver's Complex with complex arithmetic) of a system of n rows (file comment), shared by its
/// one-buffer and two-buffer kernels. Shared state: the block's warp sums, the ticket drawn, the
/// chunk's incoming boundary. The block sums and the summaries are real (of the real parts).
template <class T, int M, int Threads, int Work, Rows RowsFrom = Rows::none>
struct ResidentSteps {
  static constexpr int kChunkRows = M * Threads;
  static constexpr int kPieceBytes = 16384;  // bytes per bulk copy
  struct Chunk {
    long long t = 0, s = 0, j = 0, first = 0;
    int bytes = 0;
  };
  const T* d;
  T* x;
  ResidentSync sync;
  long long n, chunks, total;
  unsigned long long base;  // tickets taken by earlier launches
  unsigned epoch;
  double* warp_sums;
  long long* ticket;
  double* chunk_in;
  // The rows of A and M: Rows::shared the chunk's slice (its row 0 the chunk's first row),
  // Rows::global the whole table (row 0 the system's).
  const double* table = nullptr;

  __device__ Chunk chunk(long long t) const {
    Chunk c;
    c.t = t;
    if (t >= total) return c;
    c.s = t / chunks;
    c.j = t % chunks;
    c.first = c.j * kChunkRows;
    c.bytes = static_cast<int>(sizeof(T)) *
              static_cast<int>(n - c.first < kChunkRows ? n - c.first : kChunkRows);
    return c;
  }
  /// The block's next ticket (thread 0 draws, every thread returns it).
  __device__ Chunk draw() const {
    if (threadIdx.x == 0) *ticket = static_cast<long long>(atomicAdd(sync.tickets, 1ull) - base);
    __syncthreads();
    const long long t = *ticket;
    __syncthreads();  // read by every thread before thread 0 draws again
    return chunk(t);
  }
  /// `bytes` from global `src` to shared `dst` in bulk copies of at most kPieceBytes, counted
  /// on `bar` (the calling thread's; thread 0's in the kernels).
  __device__ static void copy_in(void* dst, const void* src, int bytes, unsigned bar) {
    using namespace pscr::tridiag::cuda::detail;
    mbarrier_expect(bar, static_cast<unsigned>(bytes));
    for (int o = 0; o < bytes; o += kPieceBytes)
      bulk_copy_in(static_cast<unsigned char*>(dst) + o, static_cast<const unsigned char*>(src) + o,
                   static_cast<unsigned>(min(kPieceBytes, bytes - o)), bar);
  }
  /// Thread 0 starts the chunk's copy into `rows`, counted on `bar`.
  __device__ void load(const Chunk& c, T* rows, unsigned bar) const {
    if (threadIdx.x == 0 && c.t < total) copy_in(rows, d + c.s * n + c.first, c.bytes, bar);
  }
  /// System s's shift (rows of A and M read): real, or complex with a positive imaginary part.
  __device__ static T shift_of(long long s) {
    if constexpr (std::is_same_v<T, double>)
      return 0.05 + 1e-3 * static_cast<double>(s % 7);
    else
      return T(0.05 + 1e-3 * static_cast<double>(s % 7), 0.02);
  }
  /// Row r of chunk c's value v through the Work Thomas sweeps down: f[w] the sweep's multiplier,
  /// e[w] its right-hand side. Without the rows of A and M (Rows::none) sweep w runs on the
  /// diagonal 4 + w + v; with them on row r of A + shift·M, diagonal + w.
  __device__ void sweep_row(const Chunk& c, int r, const T& v, const T& shift, T (&f)[Work],
                            T (&e)[Work]) const {
    if constexpr (RowsFrom != Rows::none) {
      double2 a, m;
      if constexpr (RowsFrom == Rows::shared) {
        a = reinterpret_cast<const double2*>(table)[2 * r];
        m = reinterpret_cast<const double2*>(table)[2 * r + 1];
      } else {
        const auto* row = reinterpret_cast<const double2*>(table) + 2 * (c.first + r);
        a = __ldg(row);
        m = __ldg(row + 1);
      }
      const T diag = T(a.x) + shift * T(m.x), off = T(a.y) + shift * T(m.y);
#pragma unroll
      for (int w = 0; w < Work; ++w) {
        f[w] = T(1.0) / (diag + T(static_cast<double>(w)) - off * f[w]);
        e[w] = (v - off * e[w]) * f[w];
      }
    } else {
#pragma unroll
      for (int w = 0; w < Work; ++w) {
        f[w] = T(1.0) / (T(4.0 + w) + v - f[w]);
        e[w] = (v - e[w]) * f[w];
      }
    }
  }
  /// Reduce: the thread's M consecutive rows (rows M apart between threads, M odd: the 8-byte reads
  /// of a half-warp fall on distinct banks) through a Thomas sweep down with a spike; the block's
  /// sum published as the chunk's summary, the system's count raised. Returns the sum over the
  /// threads before this one.
  __device__ double reduce(const Chunk& c, const T* rows) const {
    const int tid = static_cast<int>(threadIdx.x);
    const int count = c.bytes / static_cast<int>(sizeof(T));
    const T shift = shift_of(c.s);
    T f[Work], e[Work], g = 1.0;
#pragma unroll
    for (int w = 0; w < Work; ++w) f[w] = 0.25, e[w] = 0.0;
#pragma unroll
    for (int i = 0; i < M; ++i) {
      if (tid * M + i < count) {
        sweep_row(c, tid * M + i, rows[tid * M + i], shift, f, e);
        g = g * f[0];
      }
    }
    double mine = real_part(e[0] + g);
#pragma unroll
    for (int w = 1; w < Work; ++w) mine += real_part(e[w]);
    const double inclusive = block_inclusive_sum<Threads>(mine, warp_sums);
    if (tid == 0) {
      sync.summaries[c.t] = warp_sums[Threads / 32 - 1];
      __threadfence();
      atomicAdd(sync.arrivals + c.s, 1u);
    }
    return inclusive - mine;
  }
  /// The coarse step: once every chunk of the system is reduced (Wait), warp 0 sums the summaries
  /// of the chunks before this one; every thread returns that sum.
  template <bool Wait>
  __device__ double coarse(const Chunk& c) const {
    const int tid = static_cast<int>(threadIdx.x), lane = tid & 31;
    if (tid < 32) {
      if (Wait && lane == 0) {
        const unsigned target = epoch * static_cast<unsigned>(chunks);
        while (load_acquire(sync.arrivals + c.s) < target) __nanosleep(64);
      }
      __syncwarp();
      double acc = 0;
      if (Wait)
        for (long long k = lane; k < c.j; k += 32) acc += __ldcg(sync.summaries + c.s * chunks + k);
#pragma unroll
      for (int o = 16; o > 0; o /= 2) acc += __shfl_xor_sync(0xffffffffu, acc, o);
      if (lane == 0) *chunk_in = acc;
    }
    __syncthreads();
    const double in = *chunk_in;
    __syncthreads();  // read before the next chunk's coarse step writes it
    return in;
  }
  /// Substitute: the sweep again from the boundary, its f kept, then up, x in place of d; thread 0
  /// then stores the chunk (its bulk group committed).
  __device__ void substitute_store(const Chunk& c, T* rows, double boundary) const {
    using namespace pscr::tridiag::cuda::detail;
    const int tid = static_cast<int>(threadIdx.x);
    const int count = c.bytes / static_cast<int>(sizeof(T));
    const T shift = shift_of(c.s);
    T fr[M], f[Work], e[Work];
#pragma unroll
    for (int w = 0; w < Work; ++w) f[w] = 0.25, e[w] = boundary * 1e-300;
#pragma unroll
    for (int i = 0; i < M; ++i) {
      if (tid * M + i < count) {
        sweep_row(c, tid * M + i, rows[tid * M + i], shift, f, e);
        fr[i] = f[0];
        rows[tid * M + i] = e[0];
      }
    }
    T after = 0.0;
#pragma unroll
    for (int w = 1; w < Work; ++w) after = after + e[w] * T(1e-300);
#pragma unroll
    for (int i = M - 1; i >= 0; --i) {
      if (tid * M + i < count) {
        after = rows[tid * M + i] - fr[i] * after;
        rows[tid * M + i] = after;
      }
    }
    bulk_fence_writes();
    __syncthreads();
    if (tid == 0) {
      auto* dst = reinterpret_cast<unsigned char*>(x + c.s * n + c.first);
      for (int o = 0; o < c.bytes; o += kPieceBytes)
        bulk_copy_out(dst + o, reinterpret_cast<unsigned char*>(rows) + o,
                      static_cast<unsigned>(min(kPieceBytes, c.bytes - o)));
      bulk_commit();
    }
  }
};

/// The resident pattern (file comment), Buffers = 1: a block loads, reduces, waits, substitutes and
/// stores one chunk after another (Wait = false: the same without the wait for the system's other
/// chunks). RowsFrom: Rows::none, or Rows::global (the rows of A and M from `table` in global
/// memory). Buffers = 2: a block holds a published chunk and the next one, whose copy runs while
/// the block waits on the first's system; before that wait, a next chunk of the same system is
/// reduced and published first, so that no block waits on a system while holding one of its chunks
/// unpublished (which with tickets in order and all blocks resident rules out a deadlock).
template <class T, int M, int Threads, int MinBlocks, int Buffers, bool Wait, int Work,
          Rows RowsFrom>
__global__ void __launch_bounds__(Threads, MinBlocks)
    resident_chunks(const T* __restrict__ d, T* __restrict__ x, ResidentSync sync, long long n,
                    long long batch, unsigned epoch, const double* __restrict__ table) {
  static_assert(Buffers == 1 || (Buffers == 2 && Wait));
  static_assert(RowsFrom != Rows::shared, "the ticketed chunks take no slice of the rows");
  using namespace pscr::tridiag::cuda::detail;
  using Steps = ResidentSteps<T, M, Threads, Work, RowsFrom>;
  using Chunk = typename Steps::Chunk;
  extern __shared__ __align__(16) unsigned char smem[];
  __shared__ double warp_sums[Threads / 32];
  __shared__ long long ticket;
  __shared__ double chunk_in;
  const long long chunks = (n + Steps::kChunkRows - 1) / Steps::kChunkRows;
  const long long total = chunks * batch;
  // Each launch takes every chunk's ticket and one past the end per block.
  const Steps steps{d,
                    x,
                    sync,
                    n,
                    chunks,
                    total,
                    (epoch - 1ull) * static_cast<unsigned long long>(total + gridDim.x),
                    epoch,
                    warp_sums,
                    &ticket,
                    &chunk_in,
                    table};
  T* rows[2] = {reinterpret_cast<T*>(smem),
                reinterpret_cast<T*>(smem) + (Buffers - 1) * Steps::kChunkRows};
  const unsigned bars = shared_address(smem + Buffers * Steps::kChunkRows * sizeof(T));
  if (threadIdx.x == 0) {
    for (int b = 0; b < Buffers; ++b) mbarrier_init(bars + 8 * b, 1);
    mbarrier_init_fence();
  }
  __syncthreads();
  unsigned phases = 0;  // bit b: the parity buffer b's next load completes
  auto wait_loaded = [&](int b) {
    mbarrier_wait(bars + 8 * b, (phases >> b) & 1u);
    phases ^= 1u << b;
  };
  if constexpr (Buffers == 1) {
    for (;;) {
      if (threadIdx.x == 0) bulk_wait_read();  // the last store has read the rows
      const Chunk c = steps.draw();
      if (c.t >= total) break;
      steps.load(c, rows[0], bars);
      wait_loaded(0);
      const double before = steps.reduce(c, rows[0]);
      steps.substitute_store(c, rows[0], before + steps.template coarse<Wait>(c));
    }
  } else {
    Chunk current = steps.draw();
    if (current.t < total) {
      steps.load(current, rows[0], bars);
      wait_loaded(0);
    }
    double before_current = current.t < total ? steps.reduce(current, rows[0]) : 0.0;
    Chunk next = current.t < total ? steps.draw() : steps.chunk(total);
    steps.load(next, rows[1], bars + 8);
    int b = 0;  // the current chunk's buffer
    while (current.t < total) {
      bool next_reduced = false;
      double before_next = 0;
      if (next.t < total && next.s == current.s) {
        wait_loaded(1 - b);
        before_next = steps.reduce(next, rows[1 - b]);
        next_reduced = true;
      }
      steps.substitute_store(current, rows[b],
                             before_current + steps.template coarse<true>(current));
      if (next.t < total && !next_reduced) {
        wait_loaded(1 - b);
        before_next = steps.reduce(next, rows[1 - b]);
      }
      if (threadIdx.x == 0) bulk_wait_read();  // the store has read the current chunk's rows
      const Chunk after = next.t < total ? steps.draw() : steps.chunk(total);
      steps.load(after, rows[b], bars + 8 * b);
      current = next;
      before_current = before_next;
      next = after;
      b = 1 - b;
    }
  }
  if (threadIdx.x == 0) bulk_wait();
}

/// The resident pattern with the rows of A and M (file comment): block b keeps chunk index
/// j = b mod C and takes systems k, k + P, ... in order (k = b / C, P = gridDim.x / C groups of C
/// blocks, every group resident, so the blocks waiting on a system are the ones that hold its
/// chunks); its chunk's slice of the table (4 doubles per row) is copied into shared memory once,
/// and the next system's chunk into the second buffer while the block works on the current one.
/// RowsFrom: Rows::shared (the sweeps read that slice), or Rows::none (the same shared memory, the
/// slice neither loaded nor read).
template <class T, int M, int Threads, int Work, Rows RowsFrom>
__global__ void __launch_bounds__(Threads, 1)
    resident_indexed(const T* __restrict__ d, T* __restrict__ x, ResidentSync sync, long long n,
                     long long batch, unsigned epoch, const double* __restrict__ table) {
  static_assert(RowsFrom != Rows::global, "the indexed blocks read their slice of the rows");
  constexpr bool kSlice = RowsFrom == Rows::shared;
  using namespace pscr::tridiag::cuda::detail;
  using Steps = ResidentSteps<T, M, Threads, Work, RowsFrom>;
  using Chunk = typename Steps::Chunk;
  constexpr int kRows = Steps::kChunkRows;
  extern __shared__ __align__(16) unsigned char smem[];
  __shared__ double warp_sums[Threads / 32];
  __shared__ double chunk_in;
  const long long chunks = (n + kRows - 1) / kRows, total = chunks * batch;
  const long long groups = gridDim.x / chunks, j = blockIdx.x % chunks, k = blockIdx.x / chunks;
  Steps steps{d, x, sync, n, chunks, total, 0, epoch, warp_sums, nullptr, &chunk_in};
  auto* slice = reinterpret_cast<double*>(smem);
  T* rows[2] = {reinterpret_cast<T*>(slice + 4 * kRows),
                reinterpret_cast<T*>(slice + 4 * kRows) + kRows};
  const unsigned bars = shared_address(rows[1] + kRows);  // buffers 0 and 1, then the slice's
  if (threadIdx.x == 0) {
    for (int b = 0; b < 3; ++b) mbarrier_init(bars + 8 * b, 1);
    mbarrier_init_fence();
  }
  __syncthreads();
  if (k >= groups) return;  // the launch has groups · chunks blocks; none past them
  const int slice_rows = static_cast<int>(n - j * kRows < kRows ? n - j * kRows : kRows);
  if (kSlice && threadIdx.x == 0)
    Steps::copy_in(slice, table + 4 * j * kRows, 32 * slice_rows, bars + 16);
  if (kSlice) mbarrier_wait(bars + 16, 0);
  steps.table = slice;
  auto chunk_of = [&](long long s) { return steps.chunk(s < batch ? s * chunks + j : total); };
  unsigned phases = 0;  // bit b: the parity buffer b's next load completes
  long long s = k;
  Chunk current = chunk_of(s), next = chunk_of(s + groups);
  steps.load(current, rows[0], bars);
  steps.load(next, rows[1], bars + 8);
  for (int b = 0; current.t < total; b = 1 - b) {
    mbarrier_wait(bars + 8 * b, (phases >> b) & 1u);
    phases ^= 1u << b;
    const double before = steps.reduce(current, rows[b]);
    steps.substitute_store(current, rows[b], before + steps.template coarse<true>(current));
    if (threadIdx.x == 0) bulk_wait_read();  // the store has read the current chunk's rows
    s += groups;
    const Chunk after = chunk_of(s + groups);
    steps.load(after, rows[b], bars + 8 * b);
    current = next;
    next = after;
  }
  if (threadIdx.x == 0) bulk_wait();
}

/// A configuration of the resident pattern, its kernel's template arguments named for the host:
/// resident_chunks (Indexed false), or resident_indexed (two buffers of d, and shared memory for
/// the chunk's slice of the table, which only Rows::shared loads and reads).
template <class T, int M, int Threads, int Buffers, bool Wait, int Work, Rows RowsFrom,
          bool Indexed>
struct ResidentShape {
  static constexpr bool kComplex = !std::is_same_v<T, double>;
  static constexpr int kChunkRows = M * Threads, kThreads = Threads, kBuffers = Buffers;
  static constexpr int kWork = Work;
  static constexpr bool kWait = Wait, kIndexed = Indexed;
  static constexpr Rows kRowsFrom = RowsFrom;
};
template <class T, int M, int Threads, int MinBlocks, int Buffers, bool Wait, int Work,
          Rows RowsFrom = Rows::none>
struct ResidentConfig : ResidentShape<T, M, Threads, Buffers, Wait, Work, RowsFrom, false> {
  static constexpr auto kernel =
      resident_chunks<T, M, Threads, MinBlocks, Buffers, Wait, Work, RowsFrom>;
};
template <class T, int M, int Threads, int Work, Rows RowsFrom>
struct ResidentIndexedConfig : ResidentShape<T, M, Threads, 2, true, Work, RowsFrom, true> {
  static constexpr auto kernel = resident_indexed<T, M, Threads, Work, RowsFrom>;
};

/// The stream pattern (file comment).
__global__ void __launch_bounds__(kBlockThreads)
    read_stream(const double2* __restrict__ d, double* sink, long long pairs) {
  double acc = 0;
  const long long step = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
       i + 7 * step < pairs; i += 8 * step) {
    double2 v[8];
#pragma unroll
    for (int k = 0; k < 8; ++k) v[k] = d[i + k * step];
#pragma unroll
    for (int k = 0; k < 8; ++k) acc += v[k].x * v[k].y;
  }
  if (acc == 1.0) *sink = acc;
}

template <class Launch>
double median_ms(int reps, Launch launch) {
  pscr::cuda::Event start, stop;
  launch();  // warm-up (and the module's load)
  PSCR_CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<float> ms(reps);
  for (float& t : ms) {
    start.record(nullptr);
    launch();
    stop.record(nullptr);
    stop.synchronize();
    t = stop.elapsed_ms_since(start);
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

constexpr const char* kUsage =
    "usage: read_patterns_bench OUTPUT.csv [--reps R] [--only PATTERN[,PATTERN...]]\n"
    "                           [--warps-per-sm W[,W...]]\n";

/// The patterns --only may name (the copy runs always: every rate is read against it).
const std::vector<std::string> kPatterns = {"stream", "units", "bulk", "resident", "lagged"};

/// kPatterns as a list for messages: "stream, units, ...".
std::string pattern_list() {
  std::string list;
  for (const std::string& p : kPatterns) list += (list.empty() ? "" : ", ") + p;
  return list;
}

/// The items of option `what`'s comma-separated value `text`, at least one.
std::vector<std::string> list_items(const std::string& what, const std::string& text,
                                    const char* items) {
  std::vector<std::string> list;
  std::stringstream stream(text);
  for (std::string item; std::getline(stream, item, ',');) list.push_back(item);
  if (list.empty()) PSCR_INPUT_ERROR(what << ": expected a list of " << items << " after it");
  return list;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc >= 2 && pscr::bench::is_help(argv[1])) {
    std::cout
        << kUsage
        << "DRAM rates of the lanes passes' read and copy patterns and of the resident\n"
           "pattern (one read of d for long systems held in shared memory) and of the lagged\n"
           "pattern (both passes in one launch, the second read meant to find d in the L2)\n"
           "against a plain stream and the copy (see the comment at the top of\n"
           "bench/read_patterns_bench.cu).\n"
           "  --reps R      runs per configuration, the median reported (default 21)\n"
           "  --only LIST   only these patterns (and the copy): stream, units, bulk,\n"
           "                resident, lagged (default: all)\n"
           "  --warps-per-sm LIST  the units and lagged patterns at these warps per SM\n"
           "                launched, among 8, 16, 32 (default: all three)\n"
           "Exit codes: 0 written, 1 failure (no GPU, a CUDA error, an unwritable output),\n"
           "2 bad arguments.\n";
    return 0;
  }
  if (argc < 2) {
    std::cerr << kUsage;
    return 2;
  }
  const std::string output = argv[1];
  int reps = 21;
  std::vector<std::string> only = kPatterns;
  std::vector<int> warps_per_sm = {8, 16, 32};
  try {
    if (output.rfind('-', 0) == 0)
      PSCR_INPUT_ERROR("expected OUTPUT.csv first, found '" << output << "'");
    for (int i = 2; i < argc; ++i) {
      const std::string arg = argv[i];
      if (arg == "--reps") {
        if (i + 1 == argc) PSCR_INPUT_ERROR(arg << ": expected a positive integer after it");
        reps = pscr::bench::parse_positive<int>(arg, argv[++i]);
      } else if (arg == "--only") {
        if (i + 1 == argc) PSCR_INPUT_ERROR(arg << ": expected a list of patterns after it");
        only = list_items(arg, argv[++i], "patterns");
        for (const std::string& name : only)
          if (std::find(kPatterns.begin(), kPatterns.end(), name) == kPatterns.end())
            PSCR_INPUT_ERROR(arg << ": expected patterns among " << pattern_list() << ", found '"
                                 << name << "'");
      } else if (arg == "--warps-per-sm") {
        if (i + 1 == argc) PSCR_INPUT_ERROR(arg << ": expected a list of warp counts after it");
        warps_per_sm.clear();
        for (const std::string& item : list_items(arg, argv[++i], "warp counts")) {
          const int warps = pscr::bench::parse_positive<int>(arg, item);
          if (warps != 8 && warps != 16 && warps != 32)
            PSCR_INPUT_ERROR(arg << ": expected warps per SM among 8, 16, 32, found '" << item
                                 << "'");
          warps_per_sm.push_back(warps);
        }
      } else {
        PSCR_INPUT_ERROR("unknown argument '" << arg << "'");
      }
    }
  } catch (const pscr::InputError& e) {
    std::cerr << "read_patterns_bench: " << e.what() << '\n' << kUsage;
    return 2;
  }
  try {
    if (pscr::cuda::device_count() == 0) throw pscr::LibraryError("no CUDA device");
    std::ostringstream csv;  // written to `output` once every pattern has run
    cudaDeviceProp prop{};
    PSCR_CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
    pscr::cuda::DeviceBuffer<double> d(kElements), copy(kElements), sink(1);
    PSCR_CUDA_CHECK(cudaMemset(d.data(), 0, kElements * sizeof(double)));
    const double mb = kElements * sizeof(double) / 1e6;  // MB per ms = GB/s
    csv << "device,pattern,order,tile_rows,stages,warps_per_sm,median_ms,gbs\n";
    auto row = [&](const char* pattern, const char* order, int tile, int stages, int warps,
                   double ms, double bytes_mb) {
      csv << '"' << prop.name << "\"," << pattern << ',' << order << ',' << tile << ',' << stages
          << ',' << warps << ',' << ms << ',' << bytes_mb / ms << '\n';
      std::printf("%-17s %-14s tile %3d, %d stages, %2d warps/SM: %.4f ms, %.0f GB/s\n", pattern,
                  order, tile, stages, warps, ms, bytes_mb / ms);
    };
    row("copy", "-", 0, 0, 0,
        median_ms(reps,
                  [&] {
                    PSCR_CUDA_CHECK(cudaMemcpy(copy.data(), d.data(), kElements * sizeof(double),
                                               cudaMemcpyDeviceToDevice));
                  }),
        2 * mb);
    const int sms = prop.multiProcessorCount;
    const auto runs = [&](const char* pattern) {
      return std::find(only.begin(), only.end(), pattern) != only.end();
    };
    // Whether the units and lagged patterns run at `blocks` blocks per SM (--warps-per-sm).
    const auto at_warps = [&](int blocks) {
      return std::find(warps_per_sm.begin(), warps_per_sm.end(), blocks * kBlockThreads / 32) !=
             warps_per_sm.end();
    };
    for (int blocks : {4, 16}) {
      if (!runs("stream")) break;
      row("stream", "-", 0, 0, blocks * kBlockThreads / 32,
          median_ms(reps,
                    [&] {
                      read_stream<<<sms * blocks, kBlockThreads>>>(
                          reinterpret_cast<const double2*>(d.data()), sink.data(), kElements / 2);
                      PSCR_CUDA_CHECK_LAUNCH();
                    }),
          mb);
    }
    const int jobs = static_cast<int>(kElements / kUnitRows / 32);
    for (int blocks : kBlocksPerSm) {
      if (!runs("units")) break;
      if (!at_warps(blocks)) continue;
      auto units = [&](auto kernel, const char* order, int tile, const char* pattern = "units") {
        const bool copies = std::string(pattern).find("copy") != std::string::npos;
        // Warps resident per SM: the blocks launched per SM, or fewer where the kernel's
        // registers hold fewer (the remaining blocks wait for an SM).
        int resident = 0;
        PSCR_CUDA_CHECK(
            cudaOccupancyMaxActiveBlocksPerMultiprocessor(&resident, kernel, kBlockThreads, 0));
        const int warps = std::min(blocks, resident) * kBlockThreads / 32;
        row(pattern, order, tile, 2, warps,
            median_ms(reps,
                      [&] {
                        kernel<<<sms * blocks, kBlockThreads>>>(d.data(), copy.data(), sink.data(),
                                                                jobs);
                        PSCR_CUDA_CHECK_LAUNCH();
                      }),
            copies ? 2 * mb : mb);
      };
      units(read_units<Order::segment_major, 16>, "segment_major", 16);
      units(read_units<Order::segment_skewed, 16>, "segment_skewed", 16);
      units(read_units<Order::system_major, 16>, "system_major", 16);
      units(read_units<Order::segment_major, 32>, "segment_major", 32);
      units(read_units<Order::system_major, 32>, "system_major", 32);
      units(read_units<Order::interleaved, 16>, "interleaved", 16);
      constexpr Stores kEach = Stores::each_tile;
      units(read_units<Order::segment_major, 16, kEach>, "segment_major", 16, "units_copy");
      units(read_units<Order::segment_skewed, 16, kEach>, "segment_skewed", 16, "units_copy");
      units(read_units<Order::system_major, 16, kEach>, "system_major", 16, "units_copy");
      units(read_units<Order::segment_major, 32, kEach>, "segment_major", 32, "units_copy");
      units(read_units<Order::segment_major, 32, kEach, false, true>, "segment_major", 32,
            "units_copy_halves");
      units(read_units<Order::interleaved, 16, kEach>, "interleaved", 16, "units_copy");
      units(read_units<Order::segment_major, 16, Stores::paired>, "segment_major", 16,
            "units_copy_paired");
      units(read_units<Order::segment_major, 16, kEach, true>, "segment_major", 16,
            "units_copy_l2_256");
      units(read_units<Order::segment_major, 16, Stores::none, true>, "segment_major", 16,
            "units_l2_256");
      constexpr Stores kSolved = Stores::solved;
      units(read_units<Order::segment_major, 16, kSolved>, "segment_major", 16,
            "units_copy_solved");
      units(read_units<Order::segment_major, 32, kSolved>, "segment_major", 32,
            "units_copy_solved");
      units(read_units<Order::interleaved, 16, kSolved>, "interleaved", 16, "units_copy_solved");
    }
    int smem_per_sm = 0;
    PSCR_CUDA_CHECK(
        cudaDeviceGetAttribute(&smem_per_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, 0));
    auto bulk = [&](auto kernel, int tile, int stages) {
      if (!runs("bulk")) return;
      const int bytes = bulk_smem(tile, stages);
      PSCR_CUDA_CHECK(
          cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
      for (int warps : {4, 8, 12, 16, 24, 32}) {
        if (warps * (bytes + 1024) > smem_per_sm) break;  // 1 KB per block the system keeps
        row("bulk", "segment_major", tile, stages, warps,
            median_ms(reps,
                      [&] {
                        kernel<<<sms * warps, 32, bytes>>>(d.data(), sink.data(), jobs);
                        PSCR_CUDA_CHECK_LAUNCH();
                      }),
            mb);
      }
    };
    bulk(read_units_bulk<16, 2>, 16, 2);
    bulk(read_units_bulk<16, 3>, 16, 3);
    bulk(read_units_bulk<16, 4>, 16, 4);
    bulk(read_units_bulk<32, 2>, 32, 2);
    bulk(read_units_bulk<32, 3>, 32, 3);
    bulk(read_units_bulk<64, 2>, 64, 2);
    bulk(read_units_bulk<64, 3>, 64, 3);
    bulk(read_units_bulk<128, 2>, 128, 2);
    // The resident pattern: every chunk's count checked after the runs of a configuration, so that
    // a run in which some block skipped its chunk or its wait would fail here.
    pscr::cuda::DeviceBuffer<unsigned long long> tickets(1);
    pscr::cuda::DeviceBuffer<unsigned> arrivals(kElements / 8192);
    pscr::cuda::DeviceBuffer<double> summaries(kElements / 1024);
    // Complex systems: 2^24 rows as well (the issue's shapes), in arrays of their own.
    pscr::cuda::DeviceBuffer<double> complex_d(2 * kElements), complex_x(2 * kElements);
    PSCR_CUDA_CHECK(cudaMemset(complex_d.data(), 0, 2 * kElements * sizeof(double)));
    // The rows of A and M, n ≤ 2^20: the 1D Laplacian and mass matrix.
    std::vector<double> table_host(4 << 20);
    for (std::size_t r = 0; r < table_host.size() / 4; ++r) {
      table_host[4 * r] = 2.0, table_host[4 * r + 1] = -1.0;
      table_host[4 * r + 2] = 4.0 / 6, table_host[4 * r + 3] = 1.0 / 6;
    }
    pscr::cuda::DeviceBuffer<double> table(table_host.size());
    PSCR_CUDA_CHECK(cudaMemcpy(table.data(), table_host.data(), table_host.size() * sizeof(double),
                               cudaMemcpyHostToDevice));
    const double* table_rows = table.data();
    auto resident = [&](auto config) {
      if (!runs("resident")) return;
      using Config = decltype(config);
      constexpr auto kernel = Config::kernel;
      constexpr bool complex_rows = Config::kComplex;
      constexpr int scalar_bytes = complex_rows ? 16 : 8, threads = Config::kThreads;
      constexpr int chunk_rows = Config::kChunkRows;
      // Shared memory: the buffers of d and their mbarriers, and for the indexed kernel the
      // chunk's slice of the table (32 bytes per row) and its mbarrier.
      constexpr int bytes = Config::kBuffers * (chunk_rows * scalar_bytes + 8) +
                            (Config::kIndexed ? 32 * chunk_rows + 8 : 0);
      PSCR_CUDA_CHECK(
          cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
      int per_sm = 0;
      PSCR_CUDA_CHECK(
          cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, bytes));
      for (const long long n : {8192LL, 65536LL, 1LL << 20}) {
        const long long batch = kElements / n, chunks = (n + chunk_rows - 1) / chunk_rows;
        const int resident_blocks = per_sm * sms;
        // The indexed kernel runs whole groups of a block per chunk index.
        const int grid = Config::kIndexed ? static_cast<int>(resident_blocks / chunks * chunks)
                                          : resident_blocks;
        if (chunks > resident_blocks || chunks * batch > static_cast<long long>(summaries.size()))
          continue;
        PSCR_CUDA_CHECK(cudaMemset(tickets.data(), 0, sizeof(unsigned long long)));
        PSCR_CUDA_CHECK(cudaMemset(arrivals.data(), 0, arrivals.size() * sizeof(unsigned)));
        unsigned epoch = 0;
        ResidentSync sync{tickets.data(), arrivals.data(), summaries.data()};
        const void* src = complex_rows ? complex_d.data() : d.data();
        void* dst = complex_rows ? complex_x.data() : copy.data();
        const double ms = median_ms(reps, [&] {
          ++epoch;
          // Both kernels take the table last; only Rows::shared and Rows::global read it.
          void* args[] = {
              &src,   &dst,       &sync, const_cast<long long*>(&n), const_cast<long long*>(&batch),
              &epoch, &table_rows};
          PSCR_CUDA_CHECK(cudaLaunchCooperativeKernel(reinterpret_cast<const void*>(kernel), grid,
                                                      threads, args, bytes, nullptr));
        });
        PSCR_CUDA_CHECK(cudaDeviceSynchronize());
        std::vector<unsigned> counts(batch);
        PSCR_CUDA_CHECK(cudaMemcpy(counts.data(), arrivals.data(), batch * sizeof(unsigned),
                                   cudaMemcpyDeviceToHost));
        for (const unsigned c : counts)
          if (c != epoch * chunks)
            throw std::runtime_error("resident pattern: a system's chunks counted " +
                                     std::to_string(c) + " times in " + std::to_string(epoch) +
                                     " launches of " + std::to_string(chunks) + " chunks");
        const std::string order =
            std::string(complex_rows ? "complex_n" : "n") + std::to_string(n) +
            (Config::kWait ? "" : "_nowait") + (Config::kBuffers == 2 ? "_two_buffers" : "") +
            (Config::kIndexed ? "_indexed" : "") +
            (Config::kRowsFrom == Rows::shared   ? "_tables"
             : Config::kRowsFrom == Rows::global ? "_l2rows"
                                                 : "") +
            (Config::kWork > 1 ? "_work" + std::to_string(Config::kWork) : "");
        row("resident", order.c_str(), chunk_rows, static_cast<int>(chunks), per_sm * threads / 32,
            ms, 2 * mb * scalar_bytes / 8);
      }
    };
    using pscr::tridiag::cuda::detail::Complex;
    resident(ResidentConfig<double, 17, 512, 2, 1, true, 1>{});
    resident(ResidentConfig<double, 25, 512, 2, 1, true, 1>{});
    resident(ResidentConfig<double, 31, 256, 3, 1, true, 1>{});
    resident(ResidentConfig<double, 25, 512, 2, 1, false, 1>{});
    resident(ResidentConfig<double, 25, 512, 1, 2, true, 1>{});
    resident(ResidentConfig<double, 13, 512, 2, 2, true, 1>{});
    resident(ResidentConfig<double, 13, 512, 2, 2, true, 2>{});
    resident(ResidentConfig<double, 31, 256, 3, 1, true, 2>{});
    resident(ResidentConfig<Complex, 9, 512, 2, 1, true, 1>{});
    resident(ResidentConfig<Complex, 13, 512, 2, 1, true, 1>{});
    resident(ResidentConfig<Complex, 13, 512, 2, 1, false, 1>{});
    resident(ResidentConfig<Complex, 13, 256, 2, 2, true, 1>{});
    resident(ResidentConfig<Complex, 13, 512, 1, 2, true, 1>{});
    resident(ResidentConfig<Complex, 7, 512, 2, 2, true, 1>{});
    resident(ResidentConfig<Complex, 9, 512, 2, 1, true, 2>{});
    resident(ResidentConfig<Complex, 13, 256, 2, 2, true, 2>{});
    resident(ResidentConfig<Complex, 13, 512, 1, 2, true, 2>{});
    resident(ResidentConfig<Complex, 7, 512, 2, 2, true, 2>{});
    // The best configurations above with the rows of A and M read from global memory.
    constexpr Rows kL2 = Rows::global, kSlice = Rows::shared, kNoRows = Rows::none;
    resident(ResidentConfig<double, 17, 512, 2, 1, true, 1, kL2>{});
    resident(ResidentConfig<double, 13, 512, 2, 2, true, 1, kL2>{});
    resident(ResidentConfig<double, 13, 512, 2, 2, true, 2, kL2>{});
    resident(ResidentConfig<Complex, 13, 512, 1, 2, true, 1, kL2>{});
    resident(ResidentConfig<Complex, 7, 512, 2, 2, true, 1, kL2>{});
    resident(ResidentConfig<Complex, 13, 512, 1, 2, true, 2, kL2>{});
    resident(ResidentConfig<Complex, 7, 512, 2, 2, true, 2, kL2>{});
    resident(ResidentIndexedConfig<double, 9, 512, 1, kNoRows>{});
    resident(ResidentIndexedConfig<double, 9, 512, 1, kSlice>{});
    resident(ResidentIndexedConfig<double, 9, 512, 2, kSlice>{});
    resident(ResidentIndexedConfig<Complex, 7, 512, 1, kNoRows>{});
    resident(ResidentIndexedConfig<Complex, 7, 512, 1, kSlice>{});
    resident(ResidentIndexedConfig<Complex, 7, 512, 2, kSlice>{});
    resident(ResidentIndexedConfig<Complex, 5, 512, 1, kSlice>{});
    // The lagged pattern: every group's reduce and substitute jobs counted after the runs of a
    // configuration, and x (the copy of d's zeros, poisoned with NaN before the first run) read
    // back, so that a run in which some job was skipped, or some store missed, fails here.
    pscr::cuda::DeviceBuffer<unsigned long long> lagged_tickets(1);
    // Per group, one array after the other: reduce jobs done, the epoch of the last coarse step,
    // substitute jobs done (LaggedSync), zeroed and read back together.
    pscr::cuda::DeviceBuffer<unsigned> counts(3 * kBatch);
    std::vector<double> x_host(kElements);  // x read back after each configuration
    auto lagged = [&](auto config) {
      if (!runs("lagged")) return;
      using Config = decltype(config);
      constexpr auto kernel = Config::kernel;
      constexpr int group_systems = Config::kGroupSystems, unit_rows = Config::kUnitRows;
      const long long jobs = kElements / unit_rows / 32;
      const long long group_jobs = lagged_group_jobs(group_systems, unit_rows);
      const long long groups = jobs / group_jobs;
      const double job_mb = 32.0 * unit_rows * sizeof(double) / 1e6;
      int resident_per_sm = 0;
      PSCR_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&resident_per_sm, kernel,
                                                                    kBlockThreads, 0));
      // Lags of 1, 2, 4 and 8 groups where they are fewer than all jobs, and all of them (every
      // reduce job before any substitute job: the two passes' DRAM bytes, the control).
      std::vector<long long> lags_in_groups;
      for (const long long g : {1LL, 2LL, 4LL, 8LL})
        if (g < groups) lags_in_groups.push_back(g);
      lags_in_groups.push_back(groups);
      // The coarse step's time: none, and for units of 64 rows (whose coarse systems, 1/32 of the
      // rows, a solver's warp would take longest to solve) 2 and 8 µs, about a warp's solve of
      // the coarse systems of 8192 and 65536 rows.
      std::vector<unsigned long long> coarse_times_ns = {0};
      if (unit_rows == 64) coarse_times_ns.insert(coarse_times_ns.end(), {2000, 8000});
      for (const unsigned long long coarse_ns : coarse_times_ns)
        for (const long long lag_groups : lags_in_groups) {
          const long long lag = lag_groups * group_jobs;
          for (int blocks : kBlocksPerSm) {
            if (!at_warps(blocks)) continue;
            const int warps = std::min(blocks, resident_per_sm) * kBlockThreads / 32;
            PSCR_CUDA_CHECK(cudaMemset(lagged_tickets.data(), 0, sizeof(unsigned long long)));
            PSCR_CUDA_CHECK(cudaMemset(counts.data(), 0, 3 * groups * sizeof(unsigned)));
            PSCR_CUDA_CHECK(cudaMemset(copy.data(), 0xff, kElements * sizeof(double)));
            const LaggedSync sync{lagged_tickets.data(), counts.data(), counts.data() + groups,
                                  counts.data() + 2 * groups};
            unsigned epoch = 0;
            const double ms = median_ms(reps, [&] {
              ++epoch;
              kernel<<<sms * blocks, kBlockThreads>>>(d.data(), copy.data(), sink.data(), sync,
                                                      jobs, lag, epoch, coarse_ns);
              PSCR_CUDA_CHECK_LAUNCH();
            });
            PSCR_CUDA_CHECK(cudaDeviceSynchronize());
            std::vector<unsigned> done(3 * groups);
            PSCR_CUDA_CHECK(cudaMemcpy(done.data(), counts.data(), done.size() * sizeof(unsigned),
                                       cudaMemcpyDeviceToHost));
            for (long long i = 0; i < 3 * groups; ++i) {
              const bool coarse = i / groups == 1;
              const unsigned expected = coarse ? epoch : epoch * group_jobs;
              if (done[i] != expected)
                throw std::runtime_error(
                    std::string("lagged pattern: a group's ") +
                    (coarse ? "coarse step marked for launch " : "jobs counted ") +
                    std::to_string(done[i]) + (coarse ? " after " : " times in ") +
                    std::to_string(epoch) + " launches of " + std::to_string(group_jobs) + " jobs");
            }
            PSCR_CUDA_CHECK(cudaMemcpy(x_host.data(), copy.data(), kElements * sizeof(double),
                                       cudaMemcpyDeviceToHost));
            const auto wrong =
                std::find_if(x_host.begin(), x_host.end(), [](double v) { return v != 0.0; });
            if (wrong != x_host.end())
              throw std::runtime_error("lagged pattern: x[" +
                                       std::to_string(wrong - x_host.begin()) + "] not stored");
            std::ostringstream order;
            order << "group" << group_systems << "_unit" << unit_rows << "_lag"
                  << std::lround(lag * job_mb) << "MB" << (Config::kSolved ? "_solved" : "")
                  << (Config::kHinted ? "_hinted" : "");
            if (coarse_ns > 0) order << "_coarse" << coarse_ns / 1000 << "us";
            row("lagged", order.str().c_str(), 16, static_cast<int>(lag_groups), warps, ms, 2 * mb);
          }
        }
    };
    lagged(LaggedConfig<4, 256, false>{});
    lagged(LaggedConfig<16, 256, false>{});
    lagged(LaggedConfig<4, 128, false>{});  // the jobs' bytes of complex units of 64 rows
    lagged(LaggedConfig<4, 64, false>{});
    lagged(LaggedConfig<16, 64, false>{});
    lagged(LaggedConfig<4, 256, true>{});
    lagged(LaggedConfig<4, 64, true>{});
    lagged(LaggedConfig<4, 256, false, true>{});
    lagged(LaggedConfig<4, 128, false, true>{});
    lagged(LaggedConfig<4, 64, false, true>{});
    std::ofstream file(output);
    if (!(file << csv.str()) || !file.flush()) throw std::runtime_error("cannot write " + output);
  } catch (const std::exception& e) {
    std::cerr << "read_patterns_bench: " << e.what() << '\n';
    return 1;
  }
  return 0;
}
