// How fast the GPU reads 2^24 doubles (134 MB) from DRAM in the pattern of the segment method's
// reduce pass (tridiag/cuda/segment_lanes.cuh) against a plain stream and the device-to-device
// copy (docs/tridiag-performance.md, "The reduce pass's read pattern").
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
//    adjacent in memory), at 8, 16 and 32 warps per SM.
// CSV columns: device, pattern, order, tile_rows, warps_per_sm, median_ms, gbs (bytes read, or
// read + written for the copy, per second). Median of R runs (default 21) after a warm-up.
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

namespace {

constexpr long long kElements = 1LL << 24;
constexpr int kSystemRows = 65536;
constexpr int kBatch = static_cast<int>(kElements / kSystemRows);
constexpr int kUnitRows = 256;
constexpr int kBlockThreads = 128;

enum class Order { segment_major, segment_skewed, system_major };

/// The units pattern (file comment): per lane kLoads 16-byte loads per tile, one tile ahead.
template <Order order, int TileRows>
__global__ void __launch_bounds__(kBlockThreads)
    read_units(const double* __restrict__ d, double* sink, int jobs) {
  constexpr int kPieces = TileRows / 2;  // 16-byte pieces of a unit's tile
  constexpr int kLoads = kPieces;        // per lane: 32 units · kPieces pieces over 32 lanes
  constexpr int kTiles = kUnitRows / TileRows;
  const int lane = static_cast<int>(threadIdx.x) & 31;
  const int warp = static_cast<int>((blockIdx.x * blockDim.x + threadIdx.x) >> 5);
  const int warps = static_cast<int>((gridDim.x * blockDim.x) >> 5);
  double acc = 0;
  for (int job = warp; job < jobs; job += warps) {
    const double2* src[kLoads];
#pragma unroll
    for (int i = 0; i < kLoads; ++i) {
      const int piece = i * 32 + lane;
      const long long unit = 32LL * job + piece / kPieces;
      const long long system = unit % kBatch, segment = unit / kBatch;
      constexpr long long kSegments = kSystemRows / kUnitRows;
      const long long first =
          order == Order::segment_major ? system * kSystemRows + segment * kUnitRows
          : order == Order::segment_skewed
              ? system * kSystemRows + (segment + system) % kSegments * kUnitRows
              : unit * kUnitRows;
      src[i] = reinterpret_cast<const double2*>(d + first) + piece % kPieces;
    }
    double2 current[kLoads], next[kLoads];
#pragma unroll
    for (int i = 0; i < kLoads; ++i) current[i] = src[i][0];
    for (int t = 0; t < kTiles; ++t) {
      if (t + 1 < kTiles) {
#pragma unroll
        for (int i = 0; i < kLoads; ++i) next[i] = src[i][(t + 1) * kPieces];
      }
#pragma unroll
      for (int i = 0; i < kLoads; ++i) acc += current[i].x * current[i].y;
#pragma unroll
      for (int i = 0; i < kLoads; ++i) current[i] = next[i];
    }
  }
  if (acc == 1.0) *sink = acc;  // never true for the zeros read; keeps the loads
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
        "DRAM read rate of the segment method's reduce-pass pattern against a plain stream and\n"
        "the copy (see the comment at the top of bench/read_patterns_bench.cu).\n"
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
    csv << "device,pattern,order,tile_rows,warps_per_sm,median_ms,gbs\n";
    auto row = [&](const char* pattern, const char* order, int tile, int warps, double ms,
                   double bytes_mb) {
      csv << '"' << prop.name << "\"," << pattern << ',' << order << ',' << tile << ',' << warps
          << ',' << ms << ',' << bytes_mb / ms << '\n';
      std::printf("%-6s %-14s tile %2d, %2d warps/SM: %.4f ms, %.0f GB/s\n", pattern, order, tile,
                  warps, ms, bytes_mb / ms);
    };
    row("copy", "-", 0, 0,
        median_ms(reps,
                  [&] {
                    PSCR_CUDA_CHECK(cudaMemcpy(copy.data(), d.data(), kElements * sizeof(double),
                                               cudaMemcpyDeviceToDevice));
                  }),
        2 * mb);
    const int sms = prop.multiProcessorCount;
    for (int blocks : {4, 16})
      row("stream", "-", 0, blocks * kBlockThreads / 32,
          median_ms(reps,
                    [&] {
                      read_stream<<<sms * blocks, kBlockThreads>>>(
                          reinterpret_cast<const double2*>(d.data()), sink.data(), kElements / 2);
                      PSCR_CUDA_CHECK_LAUNCH();
                    }),
          mb);
    const int jobs = static_cast<int>(kElements / kUnitRows / 32);
    for (int blocks : {2, 4, 8}) {
      const int warps = blocks * kBlockThreads / 32;
      auto units = [&](auto kernel, const char* order, int tile) {
        row("units", order, tile, warps,
            median_ms(reps,
                      [&] {
                        kernel<<<sms * blocks, kBlockThreads>>>(d.data(), sink.data(), jobs);
                        PSCR_CUDA_CHECK_LAUNCH();
                      }),
            mb);
      };
      units(read_units<Order::segment_major, 16>, "segment_major", 16);
      units(read_units<Order::segment_skewed, 16>, "segment_skewed", 16);
      units(read_units<Order::system_major, 16>, "system_major", 16);
      units(read_units<Order::segment_major, 32>, "segment_major", 32);
      units(read_units<Order::system_major, 32>, "system_major", 32);
    }
    std::ofstream file(output);
    if (!(file << csv.str()) || !file.flush()) throw std::runtime_error("cannot write " + output);
  } catch (const std::exception& e) {
    std::cerr << "read_patterns_bench: " << e.what() << '\n';
    return 1;
  }
  return 0;
}
