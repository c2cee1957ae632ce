// How fast the GPU reads 2^24 doubles (134 MB) from DRAM in the pattern of the segment method's
// reduce pass (tridiag/cuda/segment_lanes.cuh), and copies them in the substitute passes'
// pattern, against a plain stream and the device-to-device copy (docs/tridiag-performance.md,
// "The reduce pass's read pattern" and "Why the contiguous substitute passes are slower").
//
// Usage: read_patterns_bench OUTPUT.csv [--reps R]
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
// CSV columns: device, pattern, order, tile_rows, stages (bulk; 2 for the units, one tile in
// registers and the next loading), warps_per_sm (resident: 8, 16 or 32 asked, fewer where the
// kernel's registers allow fewer), median_ms, gbs (bytes read, or read + written for the copy and
// the units_copy patterns, per second). Median of R runs (default 21) after a warm-up.
// Exit codes: 0 written, 1 failure (no GPU, a CUDA error, an unwritable output), 2 bad arguments.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "common/cuda/check.hpp"
#include "common/cuda/device_buffer.hpp"
#include "common/error.hpp"
#include "tridiag/cuda/rows.cuh"

namespace {

constexpr long long kElements = 1LL << 24;
constexpr int kSystemRows = 65536;
constexpr int kBatch = static_cast<int>(kElements / kSystemRows);
constexpr int kUnitRows = 256;
constexpr int kBlockThreads = 128;

enum class Order { segment_major, segment_skewed, system_major, interleaved };

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
/// Halves (segment-major 32-row tiles): each load and store instruction moves 128-byte halves of
/// four units' lines, as at 16-row tiles, where otherwise it moves two units' whole 256-byte lines.
template <Order order, int TileRows, Stores stores = Stores::none, bool Prefetch256 = false,
          bool Halves = false>
__global__ void __launch_bounds__(kBlockThreads)
    read_units(const double* __restrict__ d, double* __restrict__ out, double* sink, int jobs) {
  static_assert(!Halves || (TileRows == 32 && order == Order::segment_major));
  constexpr int kPieces = TileRows / 2;  // 16-byte pieces of a unit's tile
  constexpr int kLoads = kPieces;        // per lane: 32 units · kPieces pieces over 32 lanes
  constexpr int kTiles = kUnitRows / TileRows;
  const int lane = static_cast<int>(threadIdx.x) & 31;
  const int warp = static_cast<int>((blockIdx.x * blockDim.x + threadIdx.x) >> 5);
  const int warps = static_cast<int>((gridDim.x * blockDim.x) >> 5);
  double acc = 0, x_after = 0;
  for (int job = warp; job < jobs; job += warps) {
    const double2* src[kLoads];
#pragma unroll
    for (int i = 0; i < kLoads; ++i) {
      // Halves: loads i and i + kLoads/2 take the two halves of the same four units' lines.
      constexpr int kLinePieces = Halves ? kPieces / 2 : kPieces;
      const int piece = (Halves ? i % (kLoads / 2) : i) * 32 + lane;
      const long long unit = 32LL * job + piece / kLinePieces;
      const long long system = unit % kBatch, segment = unit / kBatch;
      constexpr long long kSegments = kSystemRows / kUnitRows;
      if constexpr (order == Order::interleaved) {
        // Tile rows of 256 bytes (the 256 systems' 16-byte pieces, 32 adjacent systems per warp):
        // piece i·32 + lane is row piece / 16, systems 2·(piece mod 16) and the next.
        const long long group = job % (kBatch / 32), seg = job / (kBatch / 32);
        const long long row = seg * kUnitRows + piece / 16;
        src[i] = reinterpret_cast<const double2*>(d + row * kBatch + group * 32) + piece % 16;
      } else {
        const long long first =
            order == Order::segment_major ? system * kSystemRows + segment * kUnitRows
            : order == Order::segment_skewed
                ? system * kSystemRows + (segment + system) % kSegments * kUnitRows
                : unit * kUnitRows;
        src[i] = reinterpret_cast<const double2*>(d + first) + piece % kLinePieces +
                 (Halves && i >= kLoads / 2 ? kLinePieces : 0);
      }
    }
    // 16-byte pieces from one tile of a unit to its next.
    constexpr long long kTileStep = order == Order::interleaved ? TileRows * kBatch / 2 : kPieces;
    double2 current[kLoads], next[kLoads], held[kLoads];
#pragma unroll
    for (int i = 0; i < kLoads; ++i) current[i] = load_piece<Prefetch256>(src[i]);
    for (int t = 0; t < kTiles; ++t) {
      if (t + 1 < kTiles) {
#pragma unroll
        for (int i = 0; i < kLoads; ++i)
          next[i] = load_piece<Prefetch256>(src[i] + (t + 1) * kTileStep);
      }
      const auto store = [&](int tile, const double2(&v)[kLoads]) {
#pragma unroll
        for (int i = 0; i < kLoads; ++i)
          reinterpret_cast<double2*>(
              out)[src[i] - reinterpret_cast<const double2*>(d) + tile * kTileStep] = v[i];
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
  if (acc + x_after == 1.0) *sink = acc;  // never true for the zeros read; keeps the loads
}

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

int usage(std::ostream& os, int code) {
  os << "Usage: read_patterns_bench OUTPUT.csv [--reps R]\n"
        "DRAM read and copy rates of the lanes passes' patterns against a plain stream and the\n"
        "copy (see the comment at the top of bench/read_patterns_bench.cu).\n"
        "Exit codes: 0 written, 1 failure, 2 bad arguments.\n";
  return code;
}

}  // namespace

int main(int argc, char** argv) {
  std::string output;
  int reps = 21;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") return usage(std::cout, 0);
    if (arg == "--reps" && i + 1 < argc) {
      try {
        reps = std::stoi(argv[++i]);
      } catch (const std::exception&) {
        reps = 0;
      }
      if (reps < 1) {
        std::cerr << "read_patterns_bench: --reps expects a positive integer, got '" << argv[i]
                  << "'\n";
        return 2;
      }
    } else if (output.empty() && arg.rfind("--", 0) != 0) {
      output = arg;
    } else {
      std::cerr << "read_patterns_bench: unexpected argument '" << arg << "'\n";
      return usage(std::cerr, 2);
    }
  }
  if (output.empty()) return usage(std::cerr, 2);
  try {
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
    for (int blocks : {4, 16})
      row("stream", "-", 0, 0, blocks * kBlockThreads / 32,
          median_ms(reps,
                    [&] {
                      read_stream<<<sms * blocks, kBlockThreads>>>(
                          reinterpret_cast<const double2*>(d.data()), sink.data(), kElements / 2);
                      PSCR_CUDA_CHECK_LAUNCH();
                    }),
          mb);
    const int jobs = static_cast<int>(kElements / kUnitRows / 32);
    for (int blocks : {2, 4, 8}) {
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
    std::ofstream file(output);
    if (!(file << csv.str()) || !file.flush()) throw std::runtime_error("cannot write " + output);
  } catch (const std::exception& e) {
    std::cerr << "read_patterns_bench: " << e.what() << '\n';
    return 1;
  }
  return 0;
}
