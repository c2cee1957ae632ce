// Host side of the GPU tridiagonal solvers: argument checks, the launch plans of p-Thomas and
// of the partition method (one block per system group, or several blocks per system with a
// recursive coarse solve), of the warp method (one warp per system, blocks looping over system
// groups), of the segment, block, columns, sweep and tiled PCR methods, and the instantiations.
// Kernels: thomas.cuh, partition.cuh, warp.cuh, segment.cuh, segment_lanes.cuh, columns.cuh,
// sweep.cuh, tiled_pcr.cuh.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <variant>

#include "common/cuda/check.hpp"
#include "common/cuda/launch.cuh"
#include "common/error.hpp"
#include "tridiag/cuda/columns.cuh"
#include "tridiag/cuda/partition.cuh"
#include "tridiag/cuda/segment.cuh"
#include "tridiag/cuda/segment_lanes.cuh"
#include "tridiag/cuda/selection.hpp"
#include "tridiag/cuda/solve.hpp"
#include "tridiag/cuda/sweep.cuh"
#include "tridiag/cuda/sweep_cluster.cuh"
#include "tridiag/cuda/thomas.cuh"
#include "tridiag/cuda/tiled_pcr.cuh"
#include "tridiag/cuda/warp.cuh"

namespace pscr::tridiag::cuda {
namespace {

using pscr::cuda::allow_shared;
using pscr::cuda::max_block_shared;
using pscr::cuda::multiprocessors;
using pscr::cuda::resident_blocks;

using detail::as_kernel;
using detail::kernel_scalar_t;
using detail::Strides;

constexpr int kChunkedThreads = 128;    // blocks of the kernels of ChunkedSystems (thomas.cuh)
constexpr int kPartitionThreads = 256;  // target block size of the partition kernels

/// p-Thomas chunk: 16 rows of 8-byte scalars, 8 of 16-byte ones (128 bytes per system).
template <class T>
constexpr int thomas_chunk() {
  return sizeof(T) <= 8 ? 16 : 8;
}

Strides strides(const BatchLayout& l) {
  return {l.system_stride, l.row_stride};
}
/// Whether the elements of n × batch systems at `a` (layout al) and at `b` (bl) share memory: their
/// spans, first to last element, intersect.
template <class T>
bool arrays_overlap(const T* a, const BatchLayout& al, const T* b, const BatchLayout& bl, index_t n,
                    index_t batch) {
  const T* a_end = a + al.offset(batch - 1, n - 1) + 1;
  const T* b_end = b + bl.offset(batch - 1, n - 1) + 1;
  return a < b_end && b < a_end;
}
/// Rows of a system are closer together than systems of a row: walk rows fastest.
bool row_fastest(const BatchLayout& l) {
  return l.row_stride <= l.system_stride;
}

/// Launches a kernel of ChunkedSystems (thomas.cuh: thomas_kernel, pivoting_kernel, C =
/// thomas_chunk rows per chunk): one thread per system in blocks of kChunkedThreads, the block's
/// shared memory C + 1 scalars per thread for d's tile and as many for each of Form::tiles
/// coefficient tiles (the general form's a, b, c).
template <class T, class Form>
void launch_chunked(void (*kernel)(Form, index_t, index_t, const T*, Strides, bool, T*, Strides,
                                   bool, T*),
                    cudaStream_t stream, const Form& form, index_t n, index_t batch, const T* d,
                    const BatchLayout& dl, T* x, const BatchLayout& xl, T* ws) {
  const std::size_t smem =
      sizeof(T) * (1 + Form::tiles) * kChunkedThreads * (thomas_chunk<T>() + 1);
  allow_shared(kernel, smem);
  const index_t blocks = (batch + kChunkedThreads - 1) / kChunkedThreads;
  kernel<<<static_cast<unsigned>(blocks), kChunkedThreads, smem, stream>>>(
      form, n, batch, d, strides(dl), row_fastest(dl), x, strides(xl), row_fastest(xl), ws);
  PSCR_CUDA_CHECK_LAUNCH();
}

int round_up_warp(index_t t) {
  return static_cast<int>((t + 31) / 32 * 32);
}

/// Launch plans computed once per device and key (their occupancy queries cost microseconds on
/// the host per launch otherwise), safe to share between threads.
template <class Key, class Plan>
class PerDevice {
 public:
  template <class Compute>
  Plan get(const Key& key, Compute compute) {
    int device = 0;
    PSCR_CUDA_CHECK(cudaGetDevice(&device));
    const std::pair<int, Key> at{device, key};
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      const auto it = plans_.find(at);
      if (it != plans_.end()) return it->second;
    }
    const Plan plan = compute();
    const std::lock_guard<std::mutex> lock(mutex_);
    return plans_.emplace(at, plan).first->second;
  }

 private:
  std::mutex mutex_;
  std::map<std::pair<int, Key>, Plan> plans_;
};

/// What one SM of the current device holds of shared memory (of which `reserved` bytes go to each
/// resident block besides its own).
struct SmLimits {
  int smem = 0;
  int reserved = 0;
};
SmLimits sm_limits() {
  int device = 0;
  PSCR_CUDA_CHECK(cudaGetDevice(&device));
  SmLimits l;
  PSCR_CUDA_CHECK(
      cudaDeviceGetAttribute(&l.smem, cudaDevAttrMaxSharedMemoryPerMultiprocessor, device));
  PSCR_CUDA_CHECK(
      cudaDeviceGetAttribute(&l.reserved, cudaDevAttrReservedSharedMemoryPerBlock, device));
  return l;
}

/// Launch plan of the partition method for one problem.
struct PartitionPlan {
  int M = 8;           ///< rows per partition
  bool single = true;  ///< whole systems in one block
  index_t G = 1;       ///< systems per block
  index_t P = 1;       ///< partitions per system and block
  int threads = 32;
  std::size_t smem = 0;
  index_t chunks = 1;  ///< blocks per system (several blocks only)
  index_t nc = 1;      ///< coarse rows per system
};

/// Elements of a padded tile system of `rows` rows (detail::PaddedIndex<M>::system_stride).
index_t padded_rows(index_t rows, int M) {
  return rows + rows / M + 1;
}

/// `tiles` coefficient tiles per system and `shared_tiles` tables per block (the Form's).
PartitionPlan plan_partition(index_t n, index_t batch, int M, bool interleaved,
                             std::size_t scalar_bytes, int tiles, int shared_tiles,
                             std::size_t budget) {
  PartitionPlan pl;
  pl.M = M;
  pl.nc = detail::coarse_size(n, M);
  const index_t P = (n + M - 1) / M;
  if (P <= detail::kMaxPartitionThreads) {
    // d tile, coefficient tiles, coarse a, b, c, d (2P rows each) per system; shared tables.
    auto smem_for = [&](index_t G) {
      return scalar_bytes * static_cast<std::size_t>(G * ((1 + tiles) * padded_rows(n, M) + 8 * P) +
                                                     shared_tiles * padded_rows(n, M));
    };
    index_t G = std::clamp<index_t>(kPartitionThreads / P, 1, batch);
    while (G > 1 && smem_for(G) > budget) G /= 2;
    if (smem_for(G) <= budget) {
      pl.G = G;
      pl.P = P;
      pl.threads = round_up_warp(G * P);
      pl.smem = smem_for(G);
      return pl;
    }
  }
  // Several blocks per system; interleaved layouts take several systems per block to coalesce.
  pl.single = false;
  index_t G = interleaved ? std::min<index_t>(batch, 8) : 1;
  index_t Pc = std::max<index_t>(1, kPartitionThreads / G);
  auto smem_for = [&](index_t g, index_t pc) {
    return scalar_bytes *
           static_cast<std::size_t>(((1 + tiles) * g + shared_tiles) * padded_rows(pc * M, M));
  };
  while (Pc > 1 && smem_for(G, Pc) > budget) Pc /= 2;
  while (G > 1 && smem_for(G, Pc) > budget) G /= 2;
  pl.G = G;
  pl.P = Pc;
  pl.threads = round_up_warp(G * Pc);
  pl.smem = smem_for(G, Pc);
  pl.chunks = (n + Pc * M - 1) / (Pc * M);
  return pl;
}

/// Largest n of the warp method: 32 lanes of at most 16 rows.
constexpr index_t kWarpMaxRows = detail::kWarpLanes * 16;

/// Rows per lane of the warp method: the smallest of 2, 4, 8, 16 that covers n, or `requested`
/// if larger.
int warp_rows(index_t n, int requested) {
  int k = 2;
  while (detail::kWarpLanes * k < n) k *= 2;
  return std::max(k, requested);
}

/// Dynamic shared memory of segment_block_kernel for systems of `segments` segments of K rows per
/// lane: per warp, its coarse rows and (shifted form) its A, M tables and, real, its staged d.
std::size_t segment_block_smem(index_t segments, int K, bool general, std::size_t scalar_bytes) {
  const int per_warp = detail::segment_block_warp_elements(K, general, scalar_bytes) +
                       (general ? 0 : detail::shifted_lane_elements(K));
  return scalar_bytes * static_cast<std::size_t>(segments * per_warp);
}

/// Shared memory of a block of the sweep kernel with `warps` warps and K rows per lane: the
/// block's tables and each warp's detail::sweep_warp_arrays(register_rows) arrays
/// (detail::sweep_array scalars each).
std::size_t sweep_smem(int K, int warps, std::size_t scalar_bytes, int register_rows) {
  return scalar_bytes * static_cast<std::size_t>(detail::sweep_array(K)) *
         static_cast<std::size_t>(detail::kSweepTables +
                                  detail::sweep_warp_arrays(register_rows) * warps);
}

/// Most warps per block of the sweep kernel with K rows per lane (c′ in registers up to
/// `register_rows`, 0: in shared memory): as many as `budget` bytes of shared memory hold, at most
/// `max_warps` (the kernel's detail::sweep_max_warps); 0 where not one fits or K is beyond
/// kSweepMaxLaneRows (the method does not apply).
int sweep_warps(int K, std::size_t scalar_bytes, int register_rows, std::size_t budget,
                int max_warps) {
  if (K > kSweepMaxLaneRows) return 0;
  int warps = 0;
  while (warps < max_warps && sweep_smem(K, warps + 1, scalar_bytes, register_rows) <= budget)
    ++warps;
  return warps;
}

/// Warps per block of a sweep kernel and the warps of such blocks resident per SM.
struct SweepBlocks {
  int warps;
  int resident;
};

/// Of 1..sweep_warps warps per block, the count that keeps the most warps resident per SM (the
/// larger of equals: fewer copies of the tables), as the driver counts resident blocks
/// (resident_blocks: shared memory, threads, and registers per warp scheduler, each holding a
/// quarter of the SM's: a block of 3 warps at 222 registers fits twice, not three times as a
/// count of the SM's registers had it, which put complex K = 12's buffers at 6 warps per SM where
/// blocks of 8 warps keep 8; Nsight Compute, H200).
/// A warp solves its systems one after another, so resident warps are what overlaps one
/// system's loads with another's arithmetic.
template <class T, int RegisterRows, bool Guarded, detail::SweepStaging Staging>
SweepBlocks sweep_block_warps(int K, std::size_t budget) {
  // Once per device, K and budget: a launch would otherwise ask for up to 16 block sizes.
  static PerDevice<std::pair<int, std::size_t>, SweepBlocks> chosen;
  return chosen.get({K, budget}, [&] {
    auto* kernel = detail::sweep_kernel<T, RegisterRows, Guarded, Staging>;
    const index_t sms = multiprocessors();
    SweepBlocks best{1, 0};
    for (int w = sweep_warps(K, sizeof(T), RegisterRows, budget,
                             detail::sweep_max_warps<T, RegisterRows, Staging>());
         w >= 1; --w) {
      const std::size_t smem = sweep_smem(K, w, sizeof(T), RegisterRows);
      const int blocks =
          static_cast<int>(resident_blocks(kernel, w * detail::kWarpLanes, smem) / sms);
      if (blocks * w > best.resident) best = {w, blocks * w};
    }
    return best;
  });
}

/// Whether the sweep method takes systems of n rows with its cluster kernel, else with one warp
/// per system: real systems of at least detail::kSweepClusterMinRows = 769 rows. H100 A/B
/// (tridiag_bench, real, about 2^24 rows, one warp against the cluster kernel, ms): 513 rows 0.148
/// / 0.181 (K = 8, one block of 3 warps), 600 0.139 / 0.161, 768 0.135 / 0.136, 900 0.139 / 0.118
/// (K = 16, one block of 2 segment warps and slots), 1000 0.139 / 0.115, 1024 0.135 / 0.121, and
/// from 1025 rows on, where a warp's lanes keep c′ in shared memory (at most 7 warps per SM),
/// 1100 0.182 / 0.158, 1536 0.228 / 0.127, 2048 0.270 / 0.114 (the block method 0.166). Complex
/// systems from the same number of rows (K = 8; docs/tridiag-performance.md, section "The cluster
/// kernel for complex systems").
bool sweep_uses_clusters(index_t n) {
  return n >= detail::kSweepClusterMinRows;
}

/// Whether the sweep method's kernels (one warp per system, and the cluster kernel) guard their
/// reduced solves (guarded_reduced_solve, sweep.cuh and sweep_cluster.cuh): complex systems not
/// declared diagonally dominant.
constexpr bool sweep_guarded(bool complex, bool dominant) {
  return complex && !dominant;
}

/// Rows of a batch (n · batch) from which the sweep method's cluster kernel takes K = 16 wherever
/// a call leaves K open (sweep_cluster_rows).
constexpr index_t kSweepClusterWideRows = index_t{1} << 23;

static_assert(kSweepComplexWideMaxRows == detail::kSweepClusterBlockMaxRows,
              "complex K = 16 only where the InBlock instance takes the systems");

/// Rows per lane of the sweep method's cluster kernel for a batch of systems of n rows and a
/// call's rows_per_thread: complex 16 where it asks for more than 8 up to kSweepComplexWideMaxRows
/// rows (the InBlock instance; with spikes, complex K = 16 loses accuracy), else
/// detail::kSweepClusterComplexRows; real 8 where it asks for 1 to
/// 8, 16 where it asks for more; where it leaves K open, 8 where the batch has fewer than
/// kSweepClusterWideRows rows and K = 8 pads the systems to at least a tenth fewer rows than 16,
/// counted in segments of 256 against 512 rows (not in sweep_cluster_shape's, which may add
/// identity segments: docs/tridiag-performance.md), else 16. K = 8 only where it covers n
/// (n ≤ 8192). K = 16 runs blocks of 2 to 4 segment warps with slots, K = 8 one block of 5 to 8
/// warps. Measured, tridiag_bench, real, shifted, contiguous,
/// ms, K = 16 against 8 (docs/tridiag-performance.md, section of 2026-11-27 on PSCR's batches):
///  - about 2^24 rows, K = 16 faster wherever measured: H100, two runs, n = 1025 0.150 / 0.164
///    (1536 rows against 1280), 1100 0.145 / 0.156, 1200 0.136 / 0.149, 1280 0.135 / 0.143, 2049
///    0.173 / 0.176 (3072 against 2560), 4097 0.177 / 0.196, 8192 0.156 / 0.182 (these two
///    before slots); H200, three runs, 1025 × 16384 0.150 / 0.166, 1280 × 13107 0.127 / 0.141,
///    2049 × 8192 0.172 / 0.176, 2560 × 6553 0.142 / 0.146;
///  - smaller batches (PSCR's: about n systems), H200, three runs: where K = 8 pads a tenth or
///    more fewer rows, K = 8 faster: 1025² 0.0222 / 0.0217, 1100² 0.0251 / 0.0230, 1280² 0.0250 /
///    0.0245, 2049² 0.0590 / 0.0556, 2300² 0.0631 / 0.0600, 1025 × 4096 0.0541 / 0.0519, 1100 ×
///    3000 0.0455 / 0.0424, 1200 × 600 0.0209 / 0.0195; where it pads 6% fewer, K = 16 (4097 × 700
///    0.0445 / 0.0495, one run); where both pad alike, K = 16 faster at 1536² 0.0298 / 0.0323,
///    1800² 0.0410 / 0.0435, 2048 × 1024 to 4096 (2048² 0.0447 / 0.0491), 3000² 0.0797 /
///    0.0951, 4096 × 1024 0.0463 / 0.0507, 8192 × 512 0.0487 / 0.0557, and K = 8 at the fewest
///    systems and at 1024² (2048 × 512 0.0219 / 0.0204, 1024 × 512 0.0182 / 0.0160, 1024² 0.0219
///    / 0.0200 in one run, 2560² 0.0676 / 0.0666), not taken: PSCR's 2D Poisson 2048² (separate
///    stages, H200 A/B) ran 6% slower with K = 8 for every batch below 2^23 rows, 1024² 4% faster.
int sweep_cluster_rows(index_t n, index_t batch, int requested, bool complex) {
  if (complex) return sweep_complex_wide(n, requested) ? 16 : detail::kSweepClusterComplexRows;
  auto padded = [n](int K) {
    const index_t rows = static_cast<index_t>(detail::kWarpLanes) * K;
    return (n + rows - 1) / rows * rows;
  };
  // K = 8 pads to fewer rows by 256 or not at all: by a tenth or more up to 2560 rows.
  const bool eight = requested == 0 ? n * batch < kSweepClusterWideRows &&
                                          10 * (padded(16) - padded(8)) >= padded(16)
                                    : requested <= 8;
  return eight && n <= detail::sweep_cluster_max_rows(8, static_cast<int>(sizeof(double))) ? 8 : 16;
}

/// The cluster kernel's instance for K rows per lane (8 or 16) and `shape` (its slots at most
/// detail::sweep_cluster_max_slots: K = 8 has only the instance of one slot), real (InBlock where
/// detail::sweep_cluster_in_block holds, any slots); complex `guarded` or not, K = 8 with one
/// slot or K = 16 InBlock (sweep_cluster_rows: complex K = 16 only where that holds).
template <class T>
auto* sweep_cluster_kernel(int K, const detail::SweepClusterShape& shape, bool guarded) {
  if constexpr (std::is_same_v<T, double>) {
    if (K <= 8) return detail::sweep_cluster_kernel<double, 8, false, false>;
    if (detail::sweep_cluster_in_block(K, shape))
      return detail::sweep_cluster_kernel<double, 16, true, false, true>;
    return shape.slots > 1 ? detail::sweep_cluster_kernel<double, 16, true, false>
                           : detail::sweep_cluster_kernel<double, 16, false, false>;
  } else {
    if (K > detail::kSweepClusterComplexRows)
      return guarded ? detail::sweep_cluster_kernel<T, 16, true, true, true>
                     : detail::sweep_cluster_kernel<T, 16, true, false, true>;
    return guarded
               ? detail::sweep_cluster_kernel<T, detail::kSweepClusterComplexRows, false, true>
               : detail::sweep_cluster_kernel<T, detail::kSweepClusterComplexRows, false, false>;
  }
}

/// A launch configuration for cudaLaunchKernelEx with one attribute (`attribute`, which the
/// configuration points at).
cudaLaunchConfig_t launch_config(index_t blocks, int threads, std::size_t smem, cudaStream_t stream,
                                 cudaLaunchAttribute& attribute) {
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(static_cast<unsigned>(blocks));
  config.blockDim = dim3(static_cast<unsigned>(threads));
  config.dynamicSmemBytes = smem;
  config.stream = stream;
  config.attrs = &attribute;
  config.numAttrs = 1;
  return config;
}

/// The cluster kernel's launch configuration for `shape`, `smem` bytes per block and `clusters`
/// clusters (`attribute` holds the cluster's size; the configuration points at it).
cudaLaunchConfig_t sweep_cluster_config(const detail::SweepClusterShape& shape, std::size_t smem,
                                        index_t clusters, cudaStream_t stream,
                                        cudaLaunchAttribute& attribute) {
  attribute = cudaLaunchAttribute{};
  attribute.id = cudaLaunchAttributeClusterDimension;
  attribute.val.clusterDim.x = static_cast<unsigned>(shape.blocks);
  attribute.val.clusterDim.y = 1;
  attribute.val.clusterDim.z = 1;
  return launch_config(clusters * shape.blocks, shape.block_warps() * detail::kWarpLanes, smem,
                       stream, attribute);
}

/// Launch plan of the sweep method's cluster kernel for systems of n rows: its shape
/// (detail::sweep_cluster_shape) with the slots that keep the most warps resident per SM within
/// `budget` bytes of shared memory per block, those bytes (0: no slot fits) and the clusters
/// resident at once. Of equals, the most slots that still leave two blocks per SM: H100
/// A/B (tridiag_bench, real, contiguous, K = 16, 2 segment warps per block, 12 warps per SM either
/// way), 2 slots in 3 blocks per SM against 3 in 2: 8192 × 2^11 0.146 / 0.131 ms, 4096 × 2^12
/// 0.135 / 0.121, 6500 × 2600 0.161 / 0.153. A block alone on its SM (16384 rows: 4 segment warps,
/// 2 slots) is not measured. Against one slot in blocks of up to 4 segment warps (H200):
/// 8192 × 2^11 0.148 → 0.133 ms, 4097 × 2^12 0.175 → 0.147, 6500 × 2600 0.195 → 0.151.
struct SweepClusterPlan {
  detail::SweepClusterShape shape;
  std::size_t smem = 0;
  index_t resident = 0;
};
template <class T>
SweepClusterPlan compute_sweep_cluster_plan(index_t n, int K, bool guarded, std::size_t budget) {
  SweepClusterPlan best;
  int best_warps = 0;
  detail::SweepClusterShape shape = detail::sweep_cluster_shape(n, K, static_cast<int>(sizeof(T)));
  for (shape.slots = 1; shape.slots <= detail::sweep_cluster_max_slots(K, shape); ++shape.slots) {
    const std::size_t smem = sizeof(T) * static_cast<std::size_t>(detail::sweep_cluster_elements(
                                             K, shape, static_cast<int>(sizeof(T))));
    if (smem > budget) break;
    auto* kernel = sweep_cluster_kernel<T>(K, shape, guarded);
    allow_shared(kernel, smem);
    cudaLaunchAttribute attribute;
    const cudaLaunchConfig_t config = sweep_cluster_config(shape, smem, 1, nullptr, attribute);
    int resident = 0, per_sm = 0;
    PSCR_CUDA_CHECK(cudaOccupancyMaxActiveClusters(&resident, kernel, &config));
    PSCR_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &per_sm, kernel, shape.block_warps() * detail::kWarpLanes, smem));
    const int warps = resident > 0 ? per_sm * shape.block_warps() : 0;  // per SM
    if (warps > best_warps || (warps == best_warps && warps > 0 && per_sm >= 2)) {
      best = {shape, smem, resident};
      best_warps = warps;
    }
  }
  return best;
}

/// compute_sweep_cluster_plan, once per device, n, K, scalar type, guard and budget: its occupancy
/// queries took about 5 µs each, several per solve, on the host before the kernel starts (H200,
/// tridiag_bench).
SweepClusterPlan sweep_cluster_plan(index_t n, int K, bool complex, bool guarded,
                                    std::size_t budget) {
  static PerDevice<std::tuple<index_t, int, bool, bool, std::size_t>, SweepClusterPlan> plans;
  return plans.get(std::make_tuple(n, K, complex, guarded, budget), [&] {
    return complex ? compute_sweep_cluster_plan<detail::Complex>(n, K, guarded, budget)
                   : compute_sweep_cluster_plan<double>(n, K, false, budget);
  });
}

/// Whether the current device runs the kernels built on compute capability 9.0's features (thread
/// block clusters, mbarrier transaction counts, bulk copies): the sweep method's cluster kernel
/// and the columns method's tiles. Asked once per device.
bool device_runs_sm90_kernels() {
  static PerDevice<std::monostate, bool> answers;
  return answers.get({}, [] {
    int device = 0, major = 0;
    PSCR_CUDA_CHECK(cudaGetDevice(&device));
    PSCR_CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
    return major >= 9;
  });
}

/// Whether the sweep method's cluster kernel takes systems of n > 768 rows with K rows per lane
/// (complex: `guarded` or not): up to detail::sweep_cluster_max_rows, where its blocks' shared
/// memory fits `budget` and the device launches clusters (device_runs_sm90_kernels).
bool sweep_cluster_applies(index_t n, int K, bool complex, bool guarded, std::size_t budget) {
  const int scalar_bytes = static_cast<int>((complex ? 2 : 1) * sizeof(double));
  return n <= detail::sweep_cluster_max_rows(K, scalar_bytes) && device_runs_sm90_kernels() &&
         sweep_cluster_plan(n, K, complex, guarded, budget).smem != 0;
}

/// PCR steps of the tiled PCR method where the call and the table leave them open. Four steps
/// measured faster than eight at every shape of issue 5 with n ≥ 512 (H200, tridiag_bench,
/// shifted form, contiguous: real 2^20 × 16 0.98 against 1.45 ms, 65536 × 256 0.95 against
/// 1.31 ms, 1024 × 2^14 0.74 against 1.67 ms): the independent systems' solve (the selection
/// table's method) spreads them over threads by itself, so more steps only add PCR work and halo.
constexpr int kTiledPcrSteps = 4;

/// The tiled PCR method's k where the call and the table leave it open: kTiledPcrSteps, fewer
/// where 2^k ≥ n already (every independent system one row), at least 1.
int tiled_pcr_steps(index_t n) {
  int k = 1;
  while (k < kTiledPcrSteps && (index_t{1} << k) < n) ++k;
  return k;
}

/// Bytes of shared memory of the columns method's whole pass on contiguous rows through tiles
/// (detail::ColumnsStage::tiles) for shifted systems of n rows, K rows per thread; 0 where it does
/// not apply: real systems (detail::columns_tiles_scalar), the general form, or several segments.
std::size_t columns_tiles_smem(index_t n, int K, bool general, std::size_t scalar_bytes) {
  if (general || !detail::columns_tiles_scalar(scalar_bytes) ||
      detail::columns_segments(n, K, scalar_bytes, false) != 1)
    return 0;
  const int chunks = detail::columns_chunks(n, K, scalar_bytes, false);
  const int G = detail::columns_systems(chunks, K, scalar_bytes, false);
  const bool chunked =
      detail::columns_chunked_table_pass(detail::SegmentPass::whole, K, scalar_bytes, false);
  return scalar_bytes * static_cast<std::size_t>(detail::columns_smem_elements(
                            G * chunks, chunks, K, true, chunked, detail::ColumnsStage::tiles,
                            detail::columns_tile_elements(n, K, G, scalar_bytes)));
}

/// Whether the columns method's tiles can take these rows: contiguous in d and x, on a device that
/// runs their bulk copies (device_runs_sm90_kernels). The tiles take complex rows only, whose
/// arrays every entry point has checked 16-byte aligned (check_aligned), as the copies need.
bool tiles_take_rows(const BatchLayout& dl, const BatchLayout& xl) {
  return dl.row_stride == 1 && xl.row_stride == 1 && device_runs_sm90_kernels();
}

/// Whether the columns method's whole pass takes its rows through tiles: complex shifted systems of
/// one segment (columns_tiles_smem) whose rows the tiles can take (tiles_take_rows).
template <class T>
bool columns_tiles_apply(index_t n, int K, bool general, const BatchLayout& dl,
                         const BatchLayout& xl) {
  return columns_tiles_smem(n, K, general, sizeof(T)) > 0 && tiles_take_rows(dl, xl);
}

/// Fills in an automatic method / rows_per_thread / staging from the current device's selection
/// table (of the general form where `general`: a form with coefficient tiles); checks the rest. The
/// sweep method on the general form, on interleaved layouts or where its arrays do not fit `budget`
/// becomes the block method. The warp method on n > kWarpMaxRows becomes the partition method;
/// the block method on systems of one segment, of more than kSegmentBlockMaxSegments, or whose
/// tables exceed `budget` bytes of shared memory, the segment method; the segment (and block)
/// method on layouts whose rows are not contiguous (interleaved) the columns method, and the
/// columns method on row-fastest layouts the segment method unless it runs there through tiles
/// (columns_tiles_smem: complex shifted systems of one segment, whose rows the tiles can take:
/// `tileable_rows`, tiles_take_rows) (all with the same K): columns_kernel reading such rows
/// through strides was slower.
Options resolve(Options opt, index_t n, index_t batch, bool interleaved, bool tileable_rows,
                bool complex, bool general, std::size_t budget) {
  check_options(opt);
  opt.dominant = opt.dominant || opt.window_bound;  // |a| + |c| ≤ θ|b| with θ < 1 is dominance
  const int r = opt.rows_per_thread;
  const Options table = select_method(current_selection_gpu(), n, batch, interleaved, complex,
                                      general, opt.dominant, opt.window_bound);
  const bool from_table = opt.method == Method::automatic;
  if (from_table) opt.method = table.method;
  if (opt.method == Method::warp && n > kWarpMaxRows) {
    opt.method = Method::partition;
    opt.rows_per_thread = 0;
  }
  // Rows per thread where neither the call nor a table entry of the same kind of method gives
  // them: 8, 4 complex unless dominant (more rows eliminated per thread without pivoting lose
  // accuracy on indefinite complex systems: bench/tridiag_select.py).
  const int default_rows = complex && !opt.dominant ? kMaxComplexLaneRows : 8;
  // K of the segment, block and columns methods (rows per lane or thread in all three): the
  // call's where it is one (a sweep's K of 6, 10, 12, ... is not), else the table's where its
  // entry is one of them, else default_rows. So a coarse solve asked for the segment method takes
  // the measured K where the table's nearest entry is the block method.
  const bool call_lanes = LaneRows::contains(r);
  const bool table_lanes = table.method == Method::segment || table.method == Method::block ||
                           table.method == Method::columns;
  const int lanes_k = call_lanes                                  ? r
                      : table_lanes && table.rows_per_thread != 0 ? table.rows_per_thread
                                                                  : default_rows;
  if (opt.method == Method::window) {
    // Windows of kWindowRows rows (the sweep window kernel's, or on interleaved layouts the
    // columns method's); a system that one window covers and the general form run the sweep
    // method (and where it does not apply, its replacements).
    if (general || n <= kWindowRows) {
      opt.method = Method::sweep;
      opt.rows_per_thread = 0;
    } else {
      opt.rows_per_thread = kWindowLaneRows;
      return opt;
    }
  }
  if (opt.method == Method::sweep) {
    // The sweep method's K: the call's, else the table's where the method is its entry's (0
    // where the measured K is the one left open: bench/tridiag_select.py, table_rows).
    const int sweep_k = r == 0 && from_table ? table.rows_per_thread : r;
    const bool clusters = sweep_uses_clusters(n);
    const int K =
        clusters ? sweep_cluster_rows(n, batch, sweep_k, complex) : detail::sweep_rows(n, sweep_k);
    const bool fits =
        clusters
            ? sweep_cluster_applies(n, K, complex, sweep_guarded(complex, opt.dominant), budget)
            : sweep_warps(K, complex ? 16 : 8, 0, budget, detail::kSweepMaxWarps) > 0;
    if (general || interleaved || !fits)
      opt.method = Method::block;
    else
      opt.rows_per_thread = K;
  }
  if (opt.method == Method::block) {
    const index_t segments = detail::segment_count(n, lanes_k);
    opt.rows_per_thread = lanes_k;
    if (interleaved || segments == 1 || segments > detail::kSegmentBlockMaxSegments ||
        segment_block_smem(segments, lanes_k, general, complex ? 16 : 8) > budget)
      opt.method = Method::segment;
  }
  if (opt.method == Method::segment || opt.method == Method::columns) {
    const std::size_t tiles = columns_tiles_smem(n, lanes_k, general, complex ? 16 : 8);
    const bool tiled =
        opt.method == Method::columns && tileable_rows && tiles > 0 && tiles <= budget;
    opt.rows_per_thread = lanes_k;
    opt.method = interleaved || tiled ? Method::columns : Method::segment;
  }
  // M of the partition method: the table's where its entry is one, else default_rows.
  if (opt.method == Method::partition && (opt.rows_per_thread == 0 || opt.rows_per_thread == 2))
    opt.rows_per_thread = table.method == Method::partition && table.rows_per_thread != 0
                              ? table.rows_per_thread
                              : default_rows;
  if (opt.method == Method::warp) opt.rows_per_thread = warp_rows(n, opt.rows_per_thread);
  if (opt.method == Method::tiled_pcr && opt.rows_per_thread == 0)
    opt.rows_per_thread = table.method == Method::tiled_pcr && table.rows_per_thread != 0
                              ? table.rows_per_thread
                              : tiled_pcr_steps(n);
  if (opt.staging == Staging::automatic) opt.staging = table.staging;
  return opt;
}

/// How the segment method solves its coarse systems (general form): the block method where they
/// fit it, in one launch (resolve sends the others to the segment method). Real 65536 × 256 at
/// K = 8 has coarse systems of 512 rows, which the segment method solved in three launches, 17 µs
/// (Nsight Compute, H100).
Options segment_coarse_options() {
  return Options{Method::block};
}

/// Scalars of workspace that the segment method's lanes passes keep beyond the coarse systems:
/// the reduce pass's checkpoints, from which the substitute pass solves each segment again
/// (detail::segment_lanes_substitute_kernel). Real systems took segment_kernel's substitute pass
/// until 2026-12-02: its checkpoints had cost the reduce pass 3–5% at K = 8 on the H100, and the
/// lanes substitute pass did not pay it back there, but on the H200 the pair runs 3–5% faster over
/// the copy at K = 8 (512 × 2^15 to 2^20 × 16) and 11–15% at K = 16 (docs/tridiag-performance.md).
template <class T>
index_t segment_lanes_workspace(index_t n, index_t batch, int K) {
  return detail::segment_lanes_checkpoints<T, detail::kSegmentLanesPieces>(
      batch, detail::segment_count(n, K), detail::kWarpLanes * K);
}

/// Chunks of K rows in a complex segment of the columns method's lanes passes: four times
/// columns_kernel's 16 (256 rows at K = 4). A lane eliminates its whole segment alone and
/// substitutes it with both ends known, which a CPU probe found accurate on indefinite Helmholtz
/// systems at segments of 128 to 512 rows alike (docs/tridiag-performance.md), so the bound on K
/// for complex systems (kMaxComplexLaneRows, which limits the rows a thread of columns_kernel
/// eliminates) need not keep them as short as columns_kernel's: at 64 rows (K = 4) the
/// per-segment work (coarse rows, coarse unknowns, the coarse solve of n/32 rows) made the passes
/// 13–16% slower than at 256 (H100, complex interleaved, 1024 × 2^14 to 2^20 × 16; 512 × 2^15 24%
/// faster). Systems of at most that many rows keep columns_kernel's segments: in one segment they
/// would not run by lanes at all, and complex 255 × 2^16 took 0.57 ms that way against 0.47 in
/// segments of 64 rows by lanes (K = 4, H100).
constexpr int kColumnsComplexLanesChunks = 64;

/// Rows of a segment of the columns method's lanes passes for systems of n rows and K rows per
/// chunk: columns_kernel's segments (16 chunks of K), for complex systems of more than
/// kColumnsComplexLanesChunks·K rows that many.
template <class T>
int columns_lanes_rows(index_t n, int K) {
  const int complex_rows = kColumnsComplexLanesChunks * K;
  return sizeof(T) == 16 && n > complex_rows ? complex_rows
                                             : detail::columns_segment_chunks(sizeof(T), false) * K;
}

/// Segments of columns_lanes_rows in a system of n rows.
template <class T>
index_t columns_lanes_segments(index_t n, int K) {
  const int rows = columns_lanes_rows<T>(n, K);
  return (n + rows - 1) / rows;
}

/// Whether systems of n rows take several segments both in columns_kernel's passes and in the
/// lanes passes, which alone may run them. Where columns_kernel's chunks cover a system (n ≤ 32·K)
/// its one pass beats the two lanes passes: complex 512 × 2^15 at K = 16, 0.313 against 0.390 ms
/// in segments of 256 rows (H100).
template <class T>
bool columns_lanes_segmented(index_t n, int K) {
  return columns_lanes_segments<T>(n, K) > 1 &&
         detail::columns_segments(n, K, sizeof(T), false) > 1;
}

/// Scalars of workspace that the columns method's lanes passes keep beyond the coarse systems:
/// the reduce pass's checkpoints.
template <class T>
index_t columns_lanes_workspace(index_t n, index_t batch, int K) {
  return detail::segment_lanes_checkpoints<T>(batch, columns_lanes_segments<T>(n, K),
                                              columns_lanes_rows<T>(n, K));
}

template <class T>
index_t required_workspace(index_t n, index_t batch, bool interleaved, int tiles, Options opt,
                           std::size_t budget);

/// What the window method's batches of shifted systems solve with where a row fails its bound, or
/// x aliases d: the selection table's exact method for them (select_method's `exact`: the entry's
/// own configuration, never the window method; of more than kWindowRows rows the sweep, block,
/// segment or columns method, whose kernels are gated: solve_device checks it).
Options window_fallback(const Options& opt, index_t n, index_t batch, bool interleaved,
                        bool complex) {
  return select_method(current_selection_gpu(), n, batch, interleaved, complex, false, opt.dominant,
                       false, true);
}

/// Whether every kernel of a method reads its form's detail::Gate (those a fallback of the window
/// method launches: the coarse solves of the segment and columns methods take the block or
/// segment method).
bool gateable_method(Method method) {
  return method == Method::sweep || method == Method::block || method == Method::segment ||
         method == Method::columns;
}

/// Scalars at the front of the window method's workspace that hold its check
/// (detail::WindowCheck): 32 bytes, so that the fallback's workspace after them keeps the
/// alignment of the caller's.
template <class T>
constexpr index_t window_check_scalars() {
  static_assert(sizeof(detail::WindowCheck) <= 32, "the check fits its 32 bytes");
  return 32 / static_cast<index_t>(sizeof(T));
}

/// Workspace scalars of a segmented solve (run_segmented) of `segments` segments per system that
/// keeps `kept` scalars besides its coarse systems: none for one segment.
template <class T>
index_t segmented_workspace(index_t segments, index_t batch, index_t kept, std::size_t budget) {
  if (segments == 1) return 0;
  const index_t nc = 2 * segments;
  return 4 * nc * batch + kept +
         required_workspace<T>(nc, batch, false, detail::GeneralForm<T>::tiles,
                               segment_coarse_options(), budget);
}

/// Workspace scalars of one non-pivoting solve with a known form (tiles), layout and options.
template <class T>
index_t required_workspace(index_t n, index_t batch, bool interleaved, int tiles, Options opt,
                           std::size_t budget) {
  // Rows taken as tileable where row-fastest: a system of one segment, which is all the tiles
  // take, needs no workspace in the columns method or the segment method.
  opt = resolve(opt, n, batch, interleaved, !interleaved, !std::is_floating_point_v<T>, tiles > 0,
                budget);
  if (opt.method == Method::thomas) return n * batch;
  if (opt.method == Method::tiled_pcr) {
    const detail::PcrGeometry geo = detail::pcr_geometry(n, opt.rows_per_thread);
    return 4 * geo.rows(batch) + required_workspace<T>(geo.sub_rows, batch * geo.span, true,
                                                       detail::GeneralForm<T>::tiles, Options{},
                                                       budget);
  }
  if (opt.method == Method::warp || opt.method == Method::block || opt.method == Method::sweep)
    return 0;
  if (opt.method == Method::window)  // its check's count and the exact fallback's
    return window_check_scalars<T>() +
           required_workspace<T>(
               n, batch, interleaved, tiles,
               window_fallback(opt, n, batch, interleaved, !std::is_floating_point_v<T>), budget);
  const bool shifted = tiles == detail::ShiftedForm<T>::tiles;
  const int K = opt.rows_per_thread;
  if (opt.method == Method::segment) {
    const index_t segments = detail::segment_count(n, K);
    return segmented_workspace<T>(segments, batch,
                                  shifted ? segment_lanes_workspace<T>(n, batch, K) : 0, budget);
  }
  if (opt.method == Method::columns) {
    // columns_kernel's passes, or the lanes passes where they run (decided at the solve).
    const index_t kernel = segmented_workspace<T>(
        detail::columns_segments(n, K, sizeof(T), !shifted), batch, 0, budget);
    if (!shifted || !columns_lanes_segmented<T>(n, K)) return kernel;
    return std::max(kernel,
                    segmented_workspace<T>(columns_lanes_segments<T>(n, K), batch,
                                           columns_lanes_workspace<T>(n, batch, K), budget));
  }
  const PartitionPlan pl =
      plan_partition(n, batch, opt.rows_per_thread, interleaved, sizeof(T), tiles, 0, budget);
  if (pl.single) return 0;
  return 4 * pl.nc * batch + required_workspace<T>(pl.nc, batch, false,
                                                   detail::GeneralForm<T>::tiles, Options{},
                                                   budget);
}

/// Calls f(std::integral_constant<int, V>{}) for the runtime value v, one of the list's Vs.
template <int... Vs, class F>
void with_constant(RowsList<Vs...>, int v, const char* what, F&& f) {
  const bool found = ((v == Vs ? (f(std::integral_constant<int, Vs>{}), true) : false) || ...);
  if (!found)
    PSCR_INPUT_ERROR("tridiag::cuda: " << what << " must be " << RowsList<Vs...>::text() << ", got "
                                       << v);
}

/// Rows each thread of thomas_direct_kernel loads at once (U): 8 real, 4 complex (the same 64
/// registers).
template <class T>
constexpr int thomas_direct_rows() {
  return sizeof(T) <= 8 ? 8 : 4;
}

/// Fewest blocks of thomas_direct_kernel per SM (warps to overlap one another's loads) that the
/// shared-memory rows are sized for; fewer rows stay resident when n needs more.
constexpr int kThomasDirectMinBlocks = 3;

/// Launch plan of thomas_direct_kernel: the rows of c' and d' each thread keeps in shared memory
/// (all n where that leaves kThomasDirectMinBlocks blocks per SM) and the bytes per block.
struct ThomasDirectPlan {
  int resident = 0;
  std::size_t smem = 0;
};

ThomasDirectPlan thomas_direct_plan(index_t n, std::size_t scalar_bytes) {
  const SmLimits sm = sm_limits();
  const std::size_t row_bytes = 2 * detail::kThomasDirectThreads * scalar_bytes;
  const std::size_t per_block = std::min(
      static_cast<std::size_t>(sm.smem / kThomasDirectMinBlocks - sm.reserved), max_block_shared());
  ThomasDirectPlan pl;
  pl.resident = static_cast<int>(std::min<index_t>(n, static_cast<index_t>(per_block / row_bytes)));
  pl.smem = pl.resident * row_bytes;
  return pl;
}

/// Rows per thread of thomas_twisted_kernel's instances (R, detail::twisted_rows).
using TwistedRows = RowsList<8, 16, detail::kTwistedMaxRows>;

/// p-Thomas: the shifted form's systems of up to 2·kTwistedMaxRows rows side by side from both
/// ends in registers (thomas_twisted_kernel; H200, interleaved, 2^24 rows, against thomas_kernel:
/// real 32 and 64 rows 0.087 and 0.104 ms against 0.185 and 0.220, complex 0.169 and 0.211 against
/// 0.367 and 0.399; on contiguous rows, read by each lane 8 or 16 bytes at a time, real 64 rows
/// took 0.305 ms against the tiles' 0.230: docs/tridiag-performance.md); the general form straight
/// from global memory where the systems of a, b, c, d and x are adjacent (thomas_direct_kernel);
/// else through shared-memory tiles in the coalesced order (thomas_kernel). The shifted form's
/// other systems keep the tiles: reading only d per row, the direct kernel's few warps per SM kept
/// too few bytes in flight (H100, interleaved, tridiag_bench: real 361 × 2^16 0.49 ms tiled, 0.79
/// ms direct; the general form 1.24 → 0.59 ms, docs/tridiag-performance.md).
template <class T, class Form>
void launch_thomas(cudaStream_t stream, const Form& form, index_t n, index_t batch, const T* d,
                   const BatchLayout& dl, T* x, const BatchLayout& xl, T* ws) {
  if constexpr (std::is_same_v<Form, detail::ShiftedForm<T>>) {
    if (n <= 2 * detail::kTwistedMaxRows && !row_fastest(dl) && !row_fastest(xl)) {
      with_constant(TwistedRows{}, detail::twisted_rows(n), "twisted rows", [&](auto r) {
        constexpr int kRows = decltype(r)::value;
        auto* kernel = detail::thomas_twisted_kernel<kRows, T>;
        constexpr std::size_t kSmem = detail::twisted_couplings_smem<kRows, T>();
        allow_shared(kernel, kSmem);
        const index_t blocks =
            (batch + detail::kTwistedBlockSystems - 1) / detail::kTwistedBlockSystems;
        kernel<<<static_cast<unsigned>(blocks), detail::kTwistedThreads, kSmem, stream>>>(
            form.m, form.shifts, batch, d, strides(dl), x, strides(xl));
        PSCR_CUDA_CHECK_LAUNCH();
      });
      return;
    }
  }
  if constexpr (std::is_same_v<Form, detail::GeneralForm<T>>) {
    if (dl.system_stride == 1 && xl.system_stride == 1) {
      const ThomasDirectPlan pl = thomas_direct_plan(n, sizeof(T));
      auto* kernel = detail::thomas_direct_kernel<thomas_direct_rows<T>(), T>;
      allow_shared(kernel, pl.smem);
      const index_t blocks =
          (batch + detail::kThomasDirectThreads - 1) / detail::kThomasDirectThreads;
      kernel<<<static_cast<unsigned>(blocks), detail::kThomasDirectThreads, pl.smem, stream>>>(
          form, n, batch, d, strides(dl), x, strides(xl), ws, pl.resident);
      PSCR_CUDA_CHECK_LAUNCH();
      return;
    }
  }
  launch_chunked(detail::thomas_kernel<thomas_chunk<T>(), T, Form>, stream, form, n, batch, d, dl,
                 x, xl, ws);
}

template <class T, class Form>
void solve_device(cudaStream_t stream, const Form& form, index_t n, index_t batch, const T* d,
                  const BatchLayout& dl, T* x, const BatchLayout& xl, T* ws, index_t wc,
                  Options opt, std::size_t budget);

/// Tiled PCR with k PCR steps (tiled_pcr.cuh): the PCR stage, a block per chunk of a system,
/// writes the level-k rows (a, b, c, d: four arrays of batch·2^k·J in ws), which form batch·2^k
/// independent systems of J rows in an interleaved layout; they are solved in place by the method
/// the selection table picks for them (general form, recursively), and the scatter writes x.
template <class T, class Form>
void launch_tiled_pcr(cudaStream_t stream, const Form& form, int k, index_t n, index_t batch,
                      const T* d, const BatchLayout& dl, T* x, const BatchLayout& xl, T* ws,
                      index_t wc, std::size_t budget) {
  const detail::PcrGeometry geo = detail::pcr_geometry(n, k);
  const index_t subsystems = batch * geo.span;
  const index_t rows = geo.rows(batch);
  const detail::PcrLevels<T> levels = geo.levels(ws, batch);  // tiled_pcr_block writes them
  const std::size_t smem = 3 * sizeof(T) * static_cast<std::size_t>(detail::pcr_window_total(k));
  auto* pcr = detail::tiled_pcr_kernel<T, Form>;
  allow_shared(pcr, smem);
  pcr<<<static_cast<unsigned>(batch * geo.chunks), detail::kPcrThreads, smem, stream>>>(
      form, n, batch, d, strides(dl), geo, ws);
  PSCR_CUDA_CHECK_LAUNCH();
  const BatchLayout sl = BatchLayout::interleaved(subsystems);
  solve_device(stream, detail::GeneralForm<T>{levels.a, levels.b, levels.c, geo.sub_rows},
               geo.sub_rows, subsystems, levels.d, sl, levels.d, sl, ws + 4 * rows, wc - 4 * rows,
               Options{}, budget);
  const index_t blocks = (rows + detail::kPcrScatterThreads - 1) / detail::kPcrScatterThreads;
  detail::pcr_scatter_kernel<T>
      <<<static_cast<unsigned>(blocks), detail::kPcrScatterThreads, 0, stream>>>(
          geo, n, batch, levels.d, x, strides(xl));
  PSCR_CUDA_CHECK_LAUNCH();
}

/// Shared-memory bytes of the warp kernel with G systems per group (d tile, the Form's tiles per
/// system and tables per block, padded as detail::PaddedIndex<K>).
std::size_t warp_smem(index_t n, int K, index_t G, int tiles, int shared_tiles,
                      std::size_t scalar_bytes) {
  return scalar_bytes *
         static_cast<std::size_t>(((1 + tiles) * G + shared_tiles) * padded_rows(n, K));
}

/// Bytes of d a block of the warp method loads per group (enough in flight per load phase).
constexpr std::size_t kWarpGroupBytes = 32 * 1024;

/// The warp method (n ≤ kWarpMaxRows): 8 warps per block (fewer for a smaller batch), groups of
/// G systems (about kWarpGroupBytes of d, fewer where the tiles do not fit), and as many blocks
/// as are resident at once, each looping over groups.
template <class T, class Form>
void launch_warp(cudaStream_t stream, const Form& form, int K, index_t n, index_t batch, const T* d,
                 const BatchLayout& dl, T* x, const BatchLayout& xl, std::size_t budget) {
  const index_t warps = std::min<index_t>(batch, detail::kMaxWarpThreads / detail::kWarpLanes);
  const index_t per_warp = std::max<index_t>(
      1, static_cast<index_t>(kWarpGroupBytes / (sizeof(T) * n * warps * (1 + Form::tiles))));
  index_t G = std::min(warps * per_warp, batch);
  while (G > 1 && warp_smem(n, K, G, Form::tiles, Form::shared_tiles, sizeof(T)) > budget) G /= 2;
  const std::size_t smem = warp_smem(n, K, G, Form::tiles, Form::shared_tiles, sizeof(T));
  const int threads = static_cast<int>(std::min(warps, G)) * detail::kWarpLanes;
  const index_t groups = (batch + G - 1) / G;
  auto go = [&](auto k) {
    auto* kernel = detail::warp_partition_kernel<decltype(k)::value, T, Form>;
    const index_t blocks = std::min(groups, resident_blocks(kernel, threads, smem));
    kernel<<<static_cast<unsigned>(blocks), threads, smem, stream>>>(
        form, n, batch, static_cast<int>(G), d, strides(dl), row_fastest(dl), x, strides(xl),
        row_fastest(xl));
    PSCR_CUDA_CHECK_LAUNCH();
  };
  with_constant(LaneRows{}, K, "warp rows per lane", go);
}

/// The segment kernel's form for a tiled form: the shifted form keeps A and M in each warp's
/// shared slice (detail::ShiftedLaneCoefs), the general form loads a, b, c per system.
template <class T>
detail::ShiftedSegmentForm<T> segment_form(const detail::ShiftedForm<T>& f) {
  return {f.m, f.shifts, f.gate};
}
template <class T>
detail::GeneralSegmentForm<T> segment_form(const detail::GeneralForm<T>& f) {
  return {f.a, f.b, f.c, f.n, f.gate};
}

/// Launches one pass of the segment kernel over at most as many warps as are resident, walking the
/// units so that a warp changes segment (and loads its rows of A and M) as rarely as it can
/// (detail::segment_walk).
template <detail::SegmentPass Pass, class T, class SegForm>
void launch_segment(cudaStream_t stream, const SegForm& form, int K, index_t n, index_t batch,
                    const T* d, const BatchLayout& dl, T* x, const BatchLayout& xl, T* ca, T* cb,
                    T* cc, T* cd) {
  const index_t segments = detail::segment_count(n, K);
  const int width = detail::segment_width(n, K);
  const index_t groups = detail::kWarpLanes / width;
  constexpr int warps_per_block = detail::kSegmentThreads / detail::kWarpLanes;
  auto launch = [&](auto k, auto staged) {
    constexpr int kk = decltype(k)::value;
    constexpr bool st = decltype(staged)::value;
    auto* kernel = detail::segment_kernel<kk, Pass, T, SegForm, st>;
    const std::size_t smem =
        sizeof(T) * static_cast<std::size_t>(detail::segment_warp_elements<kk, SegForm, st>()) *
        warps_per_block;
    const index_t resident =
        resident_blocks(kernel, detail::kSegmentThreads, smem) * warps_per_block;
    const detail::SegmentWalk walk = detail::segment_walk(
        batch, segments, groups, resident, SegForm::template shared_elements<kk> > 0);
    const index_t blocks = (walk.warps + warps_per_block - 1) / warps_per_block;
    kernel<<<static_cast<unsigned>(blocks), detail::kSegmentThreads, smem, stream>>>(
        form, n, batch, segments, width, walk, d, strides(dl), x, strides(xl), ca, cb, cc, cd);
    PSCR_CUDA_CHECK_LAUNCH();
  };
  // Staged where the pass may stage and the rows of d are contiguous (LaneStage copies row u of
  // a segment from its first row + u); the whole pass where a warp's rows are one run of them.
  auto go = [&](auto k) {
    constexpr int kk = decltype(k)::value;
    if constexpr (detail::segment_pass_stages<Pass>(kk, SegForm::template shared_elements<kk> == 0,
                                                    sizeof(T))) {
      if (Pass == detail::SegmentPass::whole
              ? detail::whole_pass_rows_in_one_run(n, kk, strides(dl))
              : dl.row_stride == 1)
        return launch(k, std::true_type{});
    }
    launch(k, std::false_type{});
  };
  with_constant(LaneRows{}, K, "segment rows per lane", go);
}

/// Whether a reduce pass with one lane per (system, segment) unit has enough warps to run instead
/// of the kernel whose lanes share a segment: 2 per SM for real systems, 1.5 for complex ones,
/// whatever the pass's line width. Each warp walks its segments' rows alone, so with few warps the
/// pass waits on the latency of their recurrences. H100 A/B (real, K = 8) against segment_kernel's
/// reduce pass: 17 warps (1000 × 130) 50% slower, 64 (4096 × 128) 19% slower, 256 (8192 × 256,
/// 4096 × 512) equal, 512 and more 6–8% faster. H200 A/B of the segment method's passes in
/// 256-byte lines (n = 4096, K = 8 and 16, docs/tridiag-performance.md): real, with the lanes
/// passes from 1 warp per SM, 1.2–1.6 times slower than segment_kernel's at 150 to 250 warps (0.061
/// ms at K = 8 and 0.106 at K = 16 whatever the batch; segment_kernel's 0.038–0.046 and
/// 0.067–0.089); complex, segment_kernel's passes equal to the lanes passes at 200 warps (K = 8
/// 0.1012 ms against 0.1004, K = 16 0.1799 against 0.1837) and 14–16% slower at 250 (0.1142
/// against 0.1003, 0.2134 against 0.1832); with the boundary by scalar, complex at 250 warps took
/// the lanes passes again (H200 A/B against 2 warps per SM for both: K = 8 batch 500 0.1105 →
/// 0.0961 ms, K = 16 batch 1000 0.2103 → 0.1780). The columns method's passes (128-byte lines: 4
/// blocks of 4 warps resident per SM real, 3 complex) started at an eighth of their resident
/// warps, the same boundaries.
bool lanes_pass_pays(index_t warps, bool complex) {
  return 2 * warps >= (complex ? 3 : 4) * multiprocessors();
}

/// Threads of a block of the lanes kernels.
constexpr int kLanesThreads = detail::kLanesWarps * detail::kWarpLanes;

/// Shared-memory bytes of a block of a lanes kernel of lines of P pieces: the reduce passes'
/// stages, or the substitute passes' with each lane's state (detail::lanes_state_pieces).
template <class T>
std::size_t lanes_smem(detail::SegmentPass pass, int P = detail::kLanesTilePieces) {
  return detail::segment_lanes_smem(
      pass == detail::SegmentPass::substitute ? detail::lanes_state_pieces<T>() : 0, P);
}

/// Warps of a lanes kernel of `smem` bytes per block (lanes_smem) resident on the device at once;
/// allows that shared memory.
template <class Kernel>
index_t lanes_resident(Kernel* kernel, std::size_t smem) {
  return resident_blocks(kernel, kLanesThreads, smem) * detail::kLanesWarps;
}

/// Warps of the segment method's lanes passes: one per 32 (system, segment) units.
index_t segment_lanes_warps(index_t batch, index_t segments) {
  return (batch * segments + detail::kWarpLanes - 1) / detail::kWarpLanes;
}

/// Whether the segment method's passes run one lane per (system, segment) unit for this solve
/// (launch_segment_lanes_reduce, launch_segment_lanes_substitute): the shifted form, several
/// segments, the rows of d and x contiguous and 16-byte aligned (detail::segment_lanes_apply), and
/// the reduce pass's warps enough to pay (lanes_pass_pays).
template <class T, class Form>
bool segment_lanes_run(const Form& form, int K, index_t n, index_t batch, const T* d,
                       const BatchLayout& dl, const T* x, const BatchLayout& xl) {
  if constexpr (std::is_same_v<Form, detail::ShiftedForm<T>>) {
    const index_t segments = detail::segment_count(n, K);
    return segments > 1 && detail::segment_lanes_apply(form.m, d, strides(dl), batch, K) &&
           detail::segment_lanes_apply(form.m, x, strides(xl), batch, K) &&
           lanes_pass_pays(segment_lanes_warps(batch, segments), !std::is_floating_point_v<T>);
  } else {
    return false;
  }
}

/// The segment method's reduce pass with one lane per (system, segment) unit
/// (detail::segment_lanes_reduce_kernel; one warp per 32 units, one launch), keeping the
/// elimination's checkpoints at `checkpoints`, where segment_lanes_run.
template <class T, class Form>
void launch_segment_lanes_reduce(cudaStream_t stream, const Form& form, int K, index_t n,
                                 index_t batch, const T* d, const BatchLayout& dl, T* ca, T* cb,
                                 T* cc, T* cd, T* checkpoints) {
  if constexpr (std::is_same_v<Form, detail::ShiftedForm<T>>) {
    const index_t segments = detail::segment_count(n, K);
    const index_t blocks =
        (segment_lanes_warps(batch, segments) + detail::kLanesWarps - 1) / detail::kLanesWarps;
    auto* kernel = detail::segment_lanes_reduce_kernel<T, detail::kSegmentLanesPieces>;
    const std::size_t smem =
        lanes_smem<T>(detail::SegmentPass::reduce, detail::kSegmentLanesPieces);
    allow_shared(kernel, smem);  // 80 KB a block: beyond the default 48
    kernel<<<static_cast<unsigned>(blocks), kLanesThreads, smem, stream>>>(
        form.m, form.shifts, batch, segments, detail::kWarpLanes * K, d, dl.system_stride, ca, cb,
        cc, cd, checkpoints, form.gate);
    PSCR_CUDA_CHECK_LAUNCH();
  }
}

/// Launches `kernel` so that it may start while the grid before it in `stream` finishes
/// (programmatic stream serialization): its blocks are scheduled as that grid's blocks exit, and
/// each waits in detail::wait_previous_grid for the grid's writes before it reads them. The lanes
/// substitute passes use it to copy their first tile (d, tables and the reduce pass's
/// checkpoints, all written before the coarse solve, which launches at least one grid) while the
/// coarse solve's last grid ends: real systems of 1024 rows and more 1.2% less time on average
/// over the copy, complex 0.9% (H200, docs/tridiag-performance.md). The primary grid does not
/// trigger its dependents early, so their blocks take no SM from it (every kernel of the
/// segmented paths waiting and triggering at its start had cost up to 35% on an H100).
template <class... Params, class... Args>
void launch_after_previous(void (*kernel)(Params...), index_t blocks, int threads, std::size_t smem,
                           cudaStream_t stream, Args... args) {
  cudaLaunchAttribute attribute{};
  attribute.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attribute.val.programmaticStreamSerializationAllowed = 1;
  const cudaLaunchConfig_t config = launch_config(blocks, threads, smem, stream, attribute);
  PSCR_CUDA_CHECK(cudaLaunchKernelEx(&config, kernel, static_cast<Params>(args)...));
}

/// The segment method's substitute pass with one lane per (system, segment) unit
/// (detail::segment_lanes_substitute_kernel), after launch_segment_lanes_reduce.
template <class T, class Form>
void launch_segment_lanes_substitute(cudaStream_t stream, const Form& form, int K, index_t n,
                                     index_t batch, const T* d, const BatchLayout& dl, T* x,
                                     const BatchLayout& xl, const T* cd, const T* checkpoints) {
  if constexpr (std::is_same_v<Form, detail::ShiftedForm<T>>) {
    const index_t segments = detail::segment_count(n, K);
    const index_t blocks =
        (segment_lanes_warps(batch, segments) + detail::kLanesWarps - 1) / detail::kLanesWarps;
    auto* kernel = detail::segment_lanes_substitute_kernel<T, detail::kSegmentLanesPieces>;
    const std::size_t smem =
        lanes_smem<T>(detail::SegmentPass::substitute, detail::kSegmentLanesPieces);
    allow_shared(kernel, smem);
    launch_after_previous(kernel, blocks, kLanesThreads, smem, stream, form.m, form.shifts, batch,
                          segments, detail::kWarpLanes * K, d, dl.system_stride, x,
                          xl.system_stride, cd, checkpoints, form.gate);
  }
}

/// The launch of a columns lanes pass (detail::ColumnsLanesWarp): bands of `per` segments, long
/// enough that the warps of the kernel's `resident` (per device) fit at once.
struct ColumnsLanesGrid {
  index_t per, warps, blocks;
};
template <int W>
ColumnsLanesGrid columns_lanes_grid(index_t batch, index_t segments, index_t resident) {
  constexpr index_t streams_per_warp = detail::kWarpLanes / W;
  const index_t groups = (batch + W - 1) / W;
  ColumnsLanesGrid g;
  g.per = std::max<index_t>(
      1, (groups * segments + streams_per_warp * resident - 1) / (streams_per_warp * resident));
  const index_t streams = groups * ((segments + g.per - 1) / g.per);
  g.warps = (streams + streams_per_warp - 1) / streams_per_warp;
  g.blocks = (g.warps + detail::kLanesWarps - 1) / detail::kLanesWarps;
  return g;
}

/// Calls f(std::integral_constant<int, W>{}) with the columns lanes passes' systems per stream for
/// `batch` (detail::columns_lanes_width).
template <class F>
decltype(auto) with_columns_lanes_width(index_t batch, F&& f) {
  return detail::columns_lanes_width(batch) == detail::kWarpLanes
             ? f(std::integral_constant<int, detail::kWarpLanes>{})
             : f(std::integral_constant<int, detail::kWarpLanes / 2>{});
}

/// The reduce pass's grid where the columns method's passes run one lane per (system, segment)
/// unit for this solve (launch_columns_lanes_reduce, then launch_columns_lanes_substitute), none
/// otherwise: the shifted form, systems of several segments (columns_lanes_segmented), side by
/// side with the rows of d and x 16-byte aligned (detail::columns_lanes_apply; `coarse`: the
/// workspace, where the coarse rows go), and the reduce pass's warps enough to pay
/// (lanes_pass_pays). Decided before the passes: the segments of the lanes passes (complex:
/// kColumnsComplexLanesChunks) may differ from columns_kernel's.
template <class T, class Form>
std::optional<ColumnsLanesGrid> columns_lanes_run(const Form& form, int K, index_t n, index_t batch,
                                                  const T* d, const BatchLayout& dl, const T* x,
                                                  const BatchLayout& xl, const T* coarse) {
  if constexpr (std::is_same_v<Form, detail::ShiftedForm<T>>) {
    const int rows = columns_lanes_rows<T>(n, K);
    const index_t segments = columns_lanes_segments<T>(n, K);
    if (!columns_lanes_segmented<T>(n, K) ||
        !detail::columns_lanes_apply(form.m, d, strides(dl), batch, rows, coarse) ||
        !detail::columns_lanes_apply(form.m, x, strides(xl), batch, rows, coarse))
      return std::nullopt;
    return with_columns_lanes_width(batch, [&](auto w) -> std::optional<ColumnsLanesGrid> {
      constexpr int W = decltype(w)::value;
      const index_t resident = lanes_resident(detail::columns_lanes_reduce_kernel<W, T>,
                                              lanes_smem<T>(detail::SegmentPass::reduce));
      const ColumnsLanesGrid g = columns_lanes_grid<W>(batch, segments, resident);
      if (!lanes_pass_pays(g.warps, !std::is_floating_point_v<T>)) return std::nullopt;
      return g;
    });
  } else {
    return std::nullopt;
  }
}

/// The columns method's reduce pass with one lane per (system, segment) unit
/// (detail::columns_lanes_reduce_kernel: each warp walks bands of segments of 32 or 16 adjacent
/// systems, one launch: grid `g`, from columns_lanes_run), keeping the elimination's checkpoints
/// at `checkpoints`.
template <class T, class Form>
void launch_columns_lanes_reduce(cudaStream_t stream, const Form& form, int K, index_t n,
                                 index_t batch, const ColumnsLanesGrid& g, const T* d,
                                 const BatchLayout& dl, T* ca, T* cb, T* cc, T* cd,
                                 T* checkpoints) {
  if constexpr (std::is_same_v<Form, detail::ShiftedForm<T>>) {
    const index_t segments = columns_lanes_segments<T>(n, K);
    with_columns_lanes_width(batch, [&](auto w) {
      constexpr int W = decltype(w)::value;
      auto* kernel = detail::columns_lanes_reduce_kernel<W, T>;
      kernel<<<static_cast<unsigned>(g.blocks), kLanesThreads,
               lanes_smem<T>(detail::SegmentPass::reduce), stream>>>(
          form.m, form.shifts, batch, segments, columns_lanes_rows<T>(n, K),
          static_cast<int>(g.per), d, dl.row_stride, ca, cb, cc, cd, checkpoints, form.gate);
      PSCR_CUDA_CHECK_LAUNCH();
    });
  }
}

/// The columns method's substitute pass with one lane per (system, segment) unit
/// (detail::columns_lanes_substitute_kernel, bands of columns_lanes_grid), after
/// launch_columns_lanes_reduce.
template <class T, class Form>
void launch_columns_lanes_substitute(cudaStream_t stream, const Form& form, int K, index_t n,
                                     index_t batch, const T* d, const BatchLayout& dl, T* x,
                                     const BatchLayout& xl, const T* cd, const T* checkpoints) {
  if constexpr (std::is_same_v<Form, detail::ShiftedForm<T>>) {
    const index_t segments = columns_lanes_segments<T>(n, K);
    with_columns_lanes_width(batch, [&](auto w) {
      constexpr int W = decltype(w)::value;
      auto* kernel = detail::columns_lanes_substitute_kernel<W, T>;
      const std::size_t smem = lanes_smem<T>(detail::SegmentPass::substitute);
      const ColumnsLanesGrid g =
          columns_lanes_grid<W>(batch, segments, lanes_resident(kernel, smem));
      launch_after_previous(kernel, g.blocks, kLanesThreads, smem, stream, form.m, form.shifts,
                            batch, segments, columns_lanes_rows<T>(n, K), static_cast<int>(g.per),
                            d, dl.row_stride, x, xl.row_stride, cd, checkpoints, form.gate);
    });
  }
}

/// The block method (detail::segment_block_kernel): one block of a warp per segment for each
/// system, as many blocks as are resident at once, each looping over systems.
template <class T, class SegForm>
void launch_segment_block(cudaStream_t stream, const SegForm& form, int K, index_t n, index_t batch,
                          const T* d, const BatchLayout& dl, T* x, const BatchLayout& xl) {
  const index_t segments = detail::segment_count(n, K);
  const int threads = static_cast<int>(segments) * detail::kWarpLanes;
  auto go = [&](auto k) {
    constexpr int kk = decltype(k)::value;
    auto* kernel = detail::segment_block_kernel<kk, T, SegForm>;
    const std::size_t smem =
        segment_block_smem(segments, kk, SegForm::template shared_elements<kk> == 0, sizeof(T));
    const index_t blocks = std::min(batch, resident_blocks(kernel, threads, smem));
    kernel<<<static_cast<unsigned>(blocks), threads, smem, stream>>>(form, n, batch, d, strides(dl),
                                                                     x, strides(xl));
    PSCR_CUDA_CHECK_LAUNCH();
  };
  with_constant(LaneRows{}, K, "block rows per lane", go);
}

/// The segment and columns methods on systems cut into `segments` segments: one pass for one
/// segment, else reduce, recursive coarse solve (general form, in the workspace) and substitute.
/// `launch(pass, ca, cb, cc, cd)` launches one pass (pass: std::integral_constant<SegmentPass,
/// ·>) with the coarse arrays; the coarse solve's kernels are gated as the form's (`gate`).
template <class T, class Launch>
void run_segmented(cudaStream_t stream, index_t segments, index_t batch, T* ws, index_t wc,
                   std::size_t budget, detail::Gate gate, Launch&& launch) {
  using detail::SegmentPass;
  if (segments == 1) {
    T* none = nullptr;
    launch(std::integral_constant<SegmentPass, SegmentPass::whole>{}, none, none, none, none);
    return;
  }
  // Coarse systems in the workspace: a, b, c, d, system k at k·nc; solved in place in cd.
  const index_t nc = 2 * segments;
  const index_t cn = nc * batch;
  T* ca = ws;
  T* cb = ca + cn;
  T* cc = cb + cn;
  T* cd = cc + cn;
  launch(std::integral_constant<SegmentPass, SegmentPass::reduce>{}, ca, cb, cc, cd);
  const BatchLayout cl = BatchLayout::contiguous(nc);
  // At least one grid between the passes: the lanes substitute passes start as the last of them
  // ends and read the reduce pass's checkpoints before they wait for it (launch_after_previous).
  solve_device(stream, detail::GeneralForm<T>{ca, cb, cc, nc, gate}, nc, batch, cd, cl, cd, cl,
               ws + 4 * cn, wc - 4 * cn, segment_coarse_options(), budget);
  launch(std::integral_constant<SegmentPass, SegmentPass::substitute>{}, ca, cb, cc, cd);
}

/// Systems per block of a columns pass over `batch` systems of `chunks` chunks of K rows
/// (detail::columns_systems): the capped whole pass (detail::columns_capped_pass) in blocks of up
/// to detail::columns_capped_threads threads where such blocks still number at least one per SM
/// (a batch that leaves SMs idle runs faster in more, smaller blocks: real 511² 0.0164 ms in 32
/// blocks of 512 threads, 0.0141 in 64 of 256), else of up to kColumnsMaxThreads.
template <detail::SegmentPass Pass, class T>
int columns_block_systems(int K, int chunks, bool general, index_t batch) {
  const int G = detail::columns_systems(chunks, K, sizeof(T), general);
  if (!detail::columns_capped_pass(Pass, K, sizeof(T), general)) return G;
  const int wide =
      detail::columns_systems(chunks, K, sizeof(T), general, detail::columns_capped_threads<T>());
  return (batch + wide - 1) / wide >= multiprocessors() ? wide : G;
}

/// Waves of blocks up to which the columns method solves systems in one pass of two segments
/// (detail::columns_two_segments) rather than in two passes: below, the one pass saves a launch, a
/// coarse solve and the second read of d; above, its rows of 64 bytes (8 systems of 64 chunks fill
/// the capped pass's 512 threads, one block per SM) read slower than the passes' own. H200 A/B
/// (tridiag_bench, real interleaved shifted columns K = 16, 3 rounds, ms, two passes → one; waves
/// of 8-system blocks on 132 SMs), before the kernel walked its rows by pointer: 700 × 3000 (2.8)
/// 0.0600 → 0.0332, 1024 × 5000 (4.7) 0.0786 → 0.0561, 700 × 7000 (6.6) 0.0774 → 0.0657,
/// 513 × 8000 (7.6) 0.0749 → 0.0698; 700 × 10000 (9.5) 0.0860 → 0.0880, 700 × 2^14 0.1108 →
/// 0.1312, 513 × 2^15 (31) 0.2040 → 0.2364. After (b81031d): 700 × 10000 +3%, 700 × 2^14 +16%,
/// 513 × 2^14 +22%, but systems that fill at least 7/8 of the pass's 1024 rows win to about 13
/// waves: 900 × 8800 (8.3) 0.0914 → 0.0822, 900 × 10000 (9.5) 0.0977 → 0.0908, 960 × 10000
/// 0.0995 → 0.0920, 1024 × 10000 0.1008 → 0.0940, 960 × 12000 (11.4) 0.1076 → 0.1063, 992 ×
/// 12000 0.1089 → 0.1074, 1024 × 12000 0.1110 → 0.1082, 1024 × 13500 (12.8) 0.1279 → 0.1227;
/// 1024 × 2^14 (15.5) 0.1370 → 0.1363, 1000 × 2^14 0.1347 → 0.1376.
constexpr index_t kColumnsTwoSegmentWaves = 8;
/// The same for systems that fill at least 7/8 of the pass's rows (kColumnsTwoSegmentWaves's
/// measurements).
constexpr index_t kColumnsTwoSegmentFullWaves = 12;

/// Whether the columns method solves `batch` systems of n rows at K rows per chunk in one pass of
/// two segments each (chunks 2·kWarpLanes, one segment in the passes' terms): where it can
/// (detail::columns_two_segments) and its blocks number at most kColumnsTwoSegmentWaves per SM
/// (kColumnsTwoSegmentFullWaves where n fills at least 7/8 of the pass's 2·kWarpLanes·K rows).
template <class T, class Form>
bool columns_two_segments_run(int K, index_t n, index_t batch) {
  constexpr bool general = !std::is_same_v<Form, detail::ShiftedForm<T>>;
  if (!detail::columns_two_segments(n, K, sizeof(T), general)) return false;
  const int G = columns_block_systems<detail::SegmentPass::whole, T>(K, 2 * detail::kWarpLanes,
                                                                     general, batch);
  const index_t pass_rows = 2 * detail::kWarpLanes * K;
  const index_t waves =
      8 * n >= 7 * pass_rows ? kColumnsTwoSegmentFullWaves : kColumnsTwoSegmentWaves;
  return (batch + G - 1) / G <= waves * multiprocessors();
}

/// Launches one pass of the columns kernel over systems cut into `segments` segments of `chunks`
/// chunks of K rows (columns_segments and columns_chunks, or one of 2·kWarpLanes where
/// columns_two_segments_run): blocks of G = columns_block_systems systems, as many blocks as are
/// resident (or units need), each looping over units; detail::columns_capped_kernel where
/// detail::columns_capped. The shifted whole pass takes its rows through tiles where
/// columns_tiles_apply. Windows: the window method's whole pass over `segments` windows of
/// `chunks` = kWarpLanes chunks (detail::columns_pass), its rows loaded by each thread, its blocks
/// sized by the (window, system) pairs, its rows checked as they are solved where `watch` has a
/// count (detail::WindowWatch).
template <detail::SegmentPass Pass, class T, class Form, bool Windows = false>
void launch_columns(cudaStream_t stream, const Form& form, int K, index_t n, index_t batch,
                    index_t segments, int chunks, const T* d, const BatchLayout& dl, T* x,
                    const BatchLayout& xl, T* ca, T* cb, T* cc, T* cd,
                    detail::WindowWatch watch = {}) {
  using detail::ColumnsStage;
  constexpr bool general = !std::is_same_v<Form, detail::ShiftedForm<T>>;
  const int G =
      columns_block_systems<Pass, T>(K, chunks, general, Windows ? batch * segments : batch);
  const int threads = G * chunks;
  const index_t units = (batch + G - 1) / G * segments;
  auto launch = [&](auto* kernel, ColumnsStage stage) {
    const int tile =
        stage == ColumnsStage::tiles ? detail::columns_tile_elements(n, K, G, sizeof(T)) : 0;
    const bool chunked = detail::columns_chunked_table_pass(Pass, K, sizeof(T), general);
    const std::size_t smem = sizeof(T) * static_cast<std::size_t>(detail::columns_smem_elements(
                                             threads, chunks, K, !general, chunked, stage, tile));
    const index_t blocks = std::min(units, resident_blocks(kernel, threads, smem));
    kernel<<<static_cast<unsigned>(blocks), threads, smem, stream>>>(
        form, n, batch, segments, chunks, d, strides(dl), x, strides(xl), ca, cb, cc, cd, watch);
    PSCR_CUDA_CHECK_LAUNCH();
  };
  if constexpr (Windows) {  // K = kWindowLaneRows (resolve)
    constexpr int kk = kWindowLaneRows;
    auto go = [&](auto watched) {
      constexpr bool kWatch = decltype(watched)::value;
      if constexpr (detail::columns_capped<kk, Pass, T, Form>())
        launch(detail::columns_capped_kernel<kk, Pass, T, Form, ColumnsStage::none,
                                             detail::columns_capped_registers<T>(), true, kWatch>,
               ColumnsStage::none);
      else
        launch(detail::columns_kernel<kk, Pass, T, Form, ColumnsStage::none, true, kWatch>,
               ColumnsStage::none);
    };
    return watch.failed != nullptr ? go(std::true_type{}) : go(std::false_type{});
  }
  const bool tiles = columns_tiles_apply<T>(n, K, general, dl, xl);
  with_constant(LaneRows{}, K, "columns rows per thread", [&](auto k) {
    constexpr int kk = decltype(k)::value;
    if constexpr (detail::columns_capped<kk, Pass, T, Form>()) {
      constexpr int kRegisters = detail::columns_capped_registers<T>();
      if constexpr (detail::columns_tiles<Pass, T, Form>()) {
        if (tiles)
          return launch(
              detail::columns_capped_kernel<kk, Pass, T, Form, ColumnsStage::tiles, kRegisters>,
              ColumnsStage::tiles);
      }
      launch(detail::columns_capped_kernel<kk, Pass, T, Form, ColumnsStage::none, kRegisters>,
             ColumnsStage::none);
    } else {  // columns_kernel is not instantiated where columns_capped_kernel runs instead
      if constexpr (detail::columns_stages<Pass, T, Form>()) {
        if (detail::paired_systems(d, strides(dl)))
          return launch(detail::columns_kernel<kk, Pass, T, Form, ColumnsStage::rows>,
                        ColumnsStage::rows);
      }
      if constexpr (detail::columns_tiles<Pass, T, Form>()) {
        if (tiles)
          return launch(detail::columns_kernel<kk, Pass, T, Form, ColumnsStage::tiles>,
                        ColumnsStage::tiles);
      }
      launch(detail::columns_kernel<kk, Pass, T, Form, ColumnsStage::none>, ColumnsStage::none);
    }
  });
}

/// The partition method with a plan: one kernel when whole systems fit a block, else reduce,
/// recursive coarse solve (general form, in the workspace) and substitute.
template <class T, class Form>
void run_partition(cudaStream_t stream, const Form& form, const PartitionPlan& pl, index_t n,
                   index_t batch, const T* d, const BatchLayout& dl, T* x, const BatchLayout& xl,
                   T* ws, index_t wc, std::size_t budget) {
  const bool drf = row_fastest(dl), xrf = row_fastest(xl);
  if (pl.single) {
    with_constant(PartitionRows{}, pl.M, "rows_per_thread", [&](auto m) {
      auto* kernel = detail::partition_block_kernel<decltype(m)::value, T, Form>;
      allow_shared(kernel, pl.smem);
      const index_t blocks = (batch + pl.G - 1) / pl.G;
      kernel<<<static_cast<unsigned>(blocks), pl.threads, pl.smem, stream>>>(
          form, n, batch, static_cast<int>(pl.G), static_cast<int>(pl.P), d, strides(dl), drf, x,
          strides(xl), xrf);
      PSCR_CUDA_CHECK_LAUNCH();
    });
    return;
  }
  // Coarse system in the workspace: a, b, c, d, system k at k·nc; solved in place in cd.
  const index_t cn = pl.nc * batch;
  T* ca = ws;
  T* cb = ca + cn;
  T* cc = cb + cn;
  T* cd = cc + cn;
  const index_t blocks = (batch + pl.G - 1) / pl.G * pl.chunks;
  with_constant(PartitionRows{}, pl.M, "rows_per_thread", [&](auto m) {
    auto* kernel = detail::partition_reduce_kernel<decltype(m)::value, T, Form>;
    allow_shared(kernel, pl.smem);
    kernel<<<static_cast<unsigned>(blocks), pl.threads, pl.smem, stream>>>(
        form, n, batch, static_cast<int>(pl.G), static_cast<int>(pl.P), pl.chunks, d, strides(dl),
        drf, ca, cb, cc, cd, pl.nc);
    PSCR_CUDA_CHECK_LAUNCH();
  });
  const BatchLayout cl = BatchLayout::contiguous(pl.nc);
  solve_device(stream, detail::GeneralForm<T>{ca, cb, cc, pl.nc}, pl.nc, batch, cd, cl, cd, cl,
               ws + 4 * cn, wc - 4 * cn, Options{}, budget);
  with_constant(PartitionRows{}, pl.M, "rows_per_thread", [&](auto m) {
    auto* kernel = detail::partition_substitute_kernel<decltype(m)::value, T, Form>;
    allow_shared(kernel, pl.smem);
    kernel<<<static_cast<unsigned>(blocks), pl.threads, pl.smem, stream>>>(
        form, n, batch, static_cast<int>(pl.G), static_cast<int>(pl.P), pl.chunks, d, strides(dl),
        drf, x, strides(xl), xrf, cd, pl.nc);
    PSCR_CUDA_CHECK_LAUNCH();
  });
}

/// The sweep method (shifted form; resolve checked that it applies) with c′ in shared memory
/// (RegisterRows = 0) or registers (and v too where Staging is buffers), d staged as Staging says,
/// its reduced rows' solve Guarded or not, in `blocks` of warps, as many blocks as are resident (or
/// systems need).
template <class T, int RegisterRows, bool Guarded, detail::SweepStaging Staging>
void launch_sweep_kernel(cudaStream_t stream, const detail::ShiftedForm<T>& form, int K,
                         SweepBlocks blocking, index_t batch, const T* d, const BatchLayout& dl,
                         T* x, const BatchLayout& xl) {
  // A warp solves one system at a time, so a batch too small for the resident warps (PSCR's 2D
  // batches of about n systems) takes blocks of fewer warps, one per SM, rather than filling
  // some SMs' warps and leaving the others idle (511 systems in blocks of 11 warps: 47 SMs of 132).
  // H100 A/B (tridiag_bench, shifted, contiguous, 3 rounds, ms): real 255² 0.0188 → 0.0163,
  // complex 255² 0.0220 → 0.0174, real 511² 0.0219 → 0.0194, complex 511² 0.0246 → 0.0228, real
  // 700² 0.0227 → 0.0201; complex 512 × 384 0.0217 → 0.0237, where the unchanged block method's
  // times moved as much between variants (timings of 15–25 µs).
  const index_t sms = multiprocessors();
  const int warps = static_cast<int>(
      std::min<index_t>(blocking.warps, std::max<index_t>(1, (batch + sms - 1) / sms)));
  const std::size_t smem = sweep_smem(K, warps, sizeof(T), RegisterRows);
  auto* kernel = detail::sweep_kernel<T, RegisterRows, Guarded, Staging>;
  const int threads = warps * detail::kWarpLanes;
  const index_t blocks =
      std::min(resident_blocks(kernel, threads, smem), (batch + warps - 1) / warps);
  kernel<<<static_cast<unsigned>(blocks), threads, smem, stream>>>(
      form.m, form.shifts, batch, K, d, strides(dl), x, strides(xl), form.gate);
  PSCR_CUDA_CHECK_LAUNCH();
}

/// The sweep kernel's SweepStaging::buffers instance for K rows per lane, one instance per even K
/// from detail::kSweepLaneMinRows to detail::kSweepLaneRows (its K a compile-time constant).
template <class T, bool Guarded, int Rows = detail::kSweepLaneMinRows<T>>
void launch_sweep_buffers(cudaStream_t stream, const detail::ShiftedForm<T>& form, int K,
                          std::size_t budget, index_t batch, const T* d, const BatchLayout& dl,
                          T* x, const BatchLayout& xl) {
  using detail::SweepStaging;
  if constexpr (Rows <= detail::kSweepLaneRows<T>) {
    if (K != Rows) {
      launch_sweep_buffers<T, Guarded, Rows + 2>(stream, form, K, budget, batch, d, dl, x, xl);
      return;
    }
    const SweepBlocks blocks =
        sweep_block_warps<T, Rows, Guarded, SweepStaging::buffers>(K, budget);
    launch_sweep_kernel<T, Rows, Guarded, SweepStaging::buffers>(stream, form, K, blocks, batch, d,
                                                                 dl, x, xl);
  } else {
    throw LibraryError("tridiag::cuda: no sweep instance with " + std::to_string(K) +
                       " rows per lane in two buffers");
  }
}

/// The sweep method on systems of more than 768 rows with K rows per lane (resolve checked that
/// the cluster kernel applies, within `budget`; complex systems `guarded` or not): clusters of
/// sweep_cluster_plan's shape, each solving `slots` systems at once, as many clusters as are
/// resident (or systems need).
template <class T>
void launch_sweep_cluster(cudaStream_t stream, const detail::ShiftedForm<T>& form, int K,
                          bool guarded, index_t batch, const T* d, const BatchLayout& dl, T* x,
                          const BatchLayout& xl, std::size_t budget) {
  constexpr bool complex = !std::is_same_v<T, double>;
  const SweepClusterPlan plan = sweep_cluster_plan(form.m.n, K, complex, guarded, budget);
  if (plan.smem == 0)
    throw LibraryError("tridiag::cuda: no cluster of the sweep method for systems of " +
                       std::to_string(form.m.n) + " rows fits the device");
  const detail::SweepClusterShape& shape = plan.shape;
  auto* kernel = sweep_cluster_kernel<T>(K, shape, guarded);
  allow_shared(kernel, plan.smem);
  const index_t clusters = std::min((batch + shape.slots - 1) / shape.slots, plan.resident);
  cudaLaunchAttribute attribute;
  const cudaLaunchConfig_t config =
      sweep_cluster_config(shape, plan.smem, clusters, stream, attribute);
  PSCR_CUDA_CHECK(cudaLaunchKernelEx(&config, kernel, form.m, form.shifts, batch, shape.slots, d,
                                     strides(dl), x, strides(xl), form.gate));
}

/// The sweep method (resolve checked that it applies): systems of more than 768 rows in clusters
/// (launch_sweep_cluster), shorter ones one warp each: with c′ and v in registers and d in two
/// buffers (SweepStaging::buffers) at the K that detail::sweep_lane_rows_taken names (real 8 to
/// 24, complex 4 to 16); else, real, with c′ alone in registers (K ≤ detail::kSweepRegisterRows)
/// where that keeps more warps resident per SM than three shared arrays per warp, or with each
/// warp's next system loaded into registers (systems of up to 32·kSweepPrefetchRows rows) where
/// its resident warps, counted twice, outnumber the shared arrays' (two systems in flight per
/// warp); the rest in shared memory. Complex systems `guarded` (sweep_guarded) run the guarded
/// reduced solves. H200 A/B of the buffers at each K against the instances that had these
/// systems before (tridiag_bench, shifted, contiguous, 3 rounds, ms; docs/tridiag-performance.md,
/// sections "The sweep kernel's c′ and v in registers, d in two buffers" and "One sweep instance
/// per rows-per-lane count"): real 255 × 2^16 (K = 8) 0.1244 → 0.1098, 361 × 2^16 0.1644 →
/// 0.1330, 512 × 2^15 0.1179 → 0.0845, 700 × 20000 (K = 22) 0.1031 → 0.0818; complex 127 × 2^17
/// (K = 4) 0.4337 → 0.2711, 255 × 2^16 0.2406 → 0.2045, 361 × 2^16 0.3205 → 0.2890, 512 × 2^15
/// 0.2082 → 0.1791; PSCR 3D Poisson 511³ 139.9 → 124.4 ms (pscr_gpu_bench, fused).
template <class T>
void launch_sweep(cudaStream_t stream, const detail::ShiftedForm<T>& form, int K, index_t batch,
                  const T* d, const BatchLayout& dl, T* x, const BatchLayout& xl,
                  std::size_t budget, bool guarded) {
  if (sweep_uses_clusters(form.m.n)) {
    launch_sweep_cluster(stream, form, K, guarded, batch, d, dl, x, xl, budget);
    return;
  }
  const auto launch = [&](auto guard) {
    constexpr bool kGuarded = decltype(guard)::value;
    using detail::SweepStaging;
    if (detail::sweep_lane_rows_taken<T>(K)) {
      launch_sweep_buffers<T, kGuarded>(stream, form, K, budget, batch, d, dl, x, xl);
      return;
    }
    const SweepBlocks shared = sweep_block_warps<T, 0, kGuarded, SweepStaging::wait>(K, budget);
    if constexpr (std::is_floating_point_v<T>) {
      constexpr int R = detail::kSweepRegisterRows;
      if (K <= R) {
        const SweepBlocks registers = sweep_block_warps<T, R, false, SweepStaging::wait>(K, budget);
        if (registers.resident > shared.resident) {
          launch_sweep_kernel<T, R, false, SweepStaging::wait>(stream, form, K, registers, batch, d,
                                                               dl, x, xl);
          return;
        }
      }
      if (form.m.n <= detail::kWarpLanes * detail::kSweepPrefetchRows) {
        const SweepBlocks ahead =
            sweep_block_warps<T, 0, false, SweepStaging::registers>(K, budget);
        if (2 * ahead.resident > shared.resident) {
          launch_sweep_kernel<T, 0, false, SweepStaging::registers>(stream, form, K, ahead, batch,
                                                                    d, dl, x, xl);
          return;
        }
      }
    }
    launch_sweep_kernel<T, 0, kGuarded, SweepStaging::wait>(stream, form, K, shared, batch, d, dl,
                                                            x, xl);
  };
  if constexpr (std::is_floating_point_v<T>)
    launch(std::false_type{});  // real systems need no guard
  else if (guarded)
    launch(std::true_type{});
  else
    launch(std::false_type{});
}

/// The window method's kernel (resolve checked that it applies). Rows contiguous
/// (detail::sweep_window_kernel): blocks of the warps that keep the most resident
/// (sweep_block_warps of the sweep kernel's instance with the same arrays), as many as are
/// resident (or the windows' systems need), each taking an equal share of them. Side by side
/// (interleaved): the columns method's whole pass over the windows (launch_columns, Windows).
/// Where `watch` has a count (the bound not assured), the kernel checks the rows it
/// solves and counts the warps that find one past the bound there (detail::WindowWatch).
template <class T>
void launch_window(cudaStream_t stream, const detail::ShiftedForm<T>& form, index_t batch,
                   const T* d, const BatchLayout& dl, T* x, const BatchLayout& xl,
                   std::size_t budget, detail::WindowWatch watch = {}) {
  constexpr int K = kWindowLaneRows;
  detail::SweepWindows win{};
  win.inner = kWindowRows - 2 * kWindowHaloRows;
  win.count = (form.m.n + win.inner - 1) / win.inner;
  if (!row_fastest(dl)) {
    T* none = nullptr;
    launch_columns<detail::SegmentPass::whole, T, detail::ShiftedForm<T>, true>(
        stream, form, K, form.m.n, batch, win.count, detail::kWarpLanes, d, dl, x, xl, none, none,
        none, none, watch);
    return;
  }
  using detail::SweepStaging;
  // Watched complex shifts: the window's quadratics beside the tables (detail::WindowSquares).
  const std::size_t squares = watch.failed != nullptr && !std::is_floating_point_v<T>
                                  ? 4 * sizeof(detail::SquarePair) * detail::sweep_array(K)
                                  : 0;
  const SweepBlocks blocking = sweep_block_warps<T, K, false, SweepStaging::buffers>(
      K, budget > squares ? budget - squares : 0);
  const int warps = blocking.warps;
  const std::size_t smem = sweep_smem(K, warps, sizeof(T), K) + squares;
  auto* kernel = watch.failed != nullptr ? detail::sweep_window_kernel<T, K, true>
                                         : detail::sweep_window_kernel<T, K, false>;
  allow_shared(kernel, smem);
  const int threads = warps * detail::kWarpLanes;
  const index_t blocks = std::min(resident_blocks(kernel, threads, smem), win.count * batch);
  kernel<<<static_cast<unsigned>(blocks), threads, smem, stream>>>(
      form.m, form.shifts, batch, win, d, strides(dl), x, strides(xl), watch);
  PSCR_CUDA_CHECK_LAUNCH();
}

/// The window method's check into `check` (device memory, zeroed first): real shifts their range
/// (window_shift_range_kernel, over the shifts), then each row over it (window_range_bound_kernel,
/// over the rows); complex ones every row against every shift (window_bound_kernel, over groups of
/// kWindowCheckRows rows). Blocks of 256 threads (of whole warps covering the rows or groups where
/// they are fewer), the rows' kernels with enough blocks over the shifts to fill the device.
/// Asynchronous; window_bound_holds waits for it (the window method's kernels check the rows they
/// solve themselves: WindowWatch).
template <class T>
void launch_window_bound_check(cudaStream_t stream, const detail::ShiftedForm<T>& form,
                               index_t batch, detail::WindowCheck* check) {
  const double theta = window_theta();
  // A grid over `units` threads' worth of rows (or groups), its second dimension over the shifts.
  const auto rows_grid = [&](auto* kernel, index_t units, int& threads) {
    threads = round_up_warp(std::min<index_t>(256, units));
    const index_t blocks = (units + threads - 1) / threads;
    const index_t wanted = std::max<index_t>(1, resident_blocks(kernel, threads, 0) / blocks);
    return dim3(static_cast<unsigned>(blocks),
                static_cast<unsigned>(std::min<index_t>({batch, wanted, 65535})));
  };
  PSCR_CUDA_CHECK(cudaMemsetAsync(check, 0, sizeof *check, stream));
  int threads = 0;
  if constexpr (std::is_floating_point_v<T>) {
    constexpr int kShiftThreads = 256;
    auto* range = detail::window_shift_range_kernel<T>;
    const index_t shift_blocks = std::min((batch + kShiftThreads - 1) / kShiftThreads,
                                          resident_blocks(range, kShiftThreads, 0));
    range<<<static_cast<unsigned>(shift_blocks), kShiftThreads, 0, stream>>>(form.shifts, batch,
                                                                             check);
    PSCR_CUDA_CHECK_LAUNCH();
    auto* rows = detail::window_range_bound_kernel<T>;
    const dim3 grid = rows_grid(rows, form.m.n, threads);
    rows<<<grid, threads, 0, stream>>>(form.m, form.shifts, batch, theta, check);
  } else {
    auto* kernel = detail::window_bound_kernel<T>;
    const index_t groups = (form.m.n + detail::kWindowCheckRows - 1) / detail::kWindowCheckRows;
    const dim3 grid = rows_grid(kernel, groups, threads);
    kernel<<<grid, threads, 0, stream>>>(form.m, form.shifts, batch, theta, check);
  }
  PSCR_CUDA_CHECK_LAUNCH();
}

template <class T, class Form>
void launch_pivoting(cudaStream_t stream, const Form& form, index_t n, index_t batch, const T* d,
                     const BatchLayout& dl, T* x, const BatchLayout& xl, T* ws) {
  launch_chunked(detail::pivoting_kernel<thomas_chunk<T>(), T, Form>, stream, form, n, batch, d, dl,
                 x, xl, ws);
}

/// Non-pivoting solve of any form on device scalars T (recursive for long systems).
template <class T, class Form>
void solve_device(cudaStream_t stream, const Form& form, index_t n, index_t batch, const T* d,
                  const BatchLayout& dl, T* x, const BatchLayout& xl, T* ws, index_t wc,
                  Options opt, std::size_t budget) {
  const bool interleaved = !row_fastest(dl);
  opt = resolve(opt, n, batch, interleaved, tiles_take_rows(dl, xl), !std::is_floating_point_v<T>,
                Form::tiles > 0, budget);
  if (form.gate.count != nullptr && !gateable_method(opt.method))
    throw LibraryError(
        "tridiag::cuda: the window method's fallback resolved to a method whose "
        "kernels take no gate");
  if constexpr (std::is_same_v<Form, detail::ShiftedForm<T>>) {
    if (opt.method == Method::window) {
      const Options fallback =
          window_fallback(opt, n, batch, interleaved, !std::is_floating_point_v<T>);
      // In place, a window's halo rows would be other windows' x, and the fallback would need d.
      if (arrays_overlap(d, dl, x, xl, n, batch)) {
        solve_device(stream, form, n, batch, d, dl, x, xl, ws, wc, fallback, budget);
        return;
      }
      if (opt.window_bound) {
        launch_window(stream, form, batch, d, dl, x, xl, budget);
        return;
      }
      // Not assured: the window kernel checks the rows it solves (detail::WindowWatch), counts
      // the warps that find one past the bound in the workspace's first 32 bytes
      // (detail::WindowCheck) and stops at a count; the exact fallback, gated on a nonzero count,
      // follows it. Nothing waits for the count.
      auto* check = reinterpret_cast<detail::WindowCheck*>(ws);
      PSCR_CUDA_CHECK(cudaMemsetAsync(check, 0, sizeof *check, stream));
      launch_window(stream, form, batch, d, dl, x, xl, budget,
                    detail::WindowWatch{&check->failed, window_theta()});
      detail::ShiftedForm<T> gated = form;
      gated.gate = {&check->failed};
      constexpr index_t kept = window_check_scalars<T>();
      solve_device(stream, gated, n, batch, d, dl, x, xl, ws + kept, wc - kept, fallback, budget);
      return;
    }
    if (opt.method == Method::sweep) {
      launch_sweep(stream, form, opt.rows_per_thread, batch, d, dl, x, xl, budget,
                   sweep_guarded(!std::is_floating_point_v<T>, opt.dominant));
      return;
    }
  }
  if (opt.method == Method::block) {
    launch_segment_block(stream, segment_form(form), opt.rows_per_thread, n, batch, d, dl, x, xl);
    return;
  }
  if (opt.method == Method::segment) {
    const int K = opt.rows_per_thread;
    if (segment_lanes_run(form, K, n, batch, d, dl, x, xl)) {
      const index_t kept = segment_lanes_workspace<T>(n, batch, K);
      T* checkpoints = ws + (wc - kept);  // past what the coarse solve may use
      run_segmented(stream, detail::segment_count(n, K), batch, ws, wc - kept, budget, form.gate,
                    [&](auto pass, T* ca, T* cb, T* cc, T* cd) {
                      constexpr detail::SegmentPass kPass = decltype(pass)::value;
                      if constexpr (kPass == detail::SegmentPass::reduce)
                        launch_segment_lanes_reduce(stream, form, K, n, batch, d, dl, ca, cb, cc,
                                                    cd, checkpoints);
                      if constexpr (kPass == detail::SegmentPass::substitute)
                        launch_segment_lanes_substitute(stream, form, K, n, batch, d, dl, x, xl, cd,
                                                        checkpoints);
                    });
      return;
    }
    const auto sf = segment_form(form);
    run_segmented(stream, detail::segment_count(n, K), batch, ws, wc, budget, form.gate,
                  [&](auto pass, T* ca, T* cb, T* cc, T* cd) {
                    launch_segment<decltype(pass)::value>(stream, sf, K, n, batch, d, dl, x, xl, ca,
                                                          cb, cc, cd);
                  });
    return;
  }
  if (opt.method == Method::columns) {
    constexpr bool general = !std::is_same_v<Form, detail::ShiftedForm<T>>;
    const int K = opt.rows_per_thread;
    if (columns_two_segments_run<T, Form>(K, n, batch)) {
      T* none = nullptr;
      launch_columns<detail::SegmentPass::whole>(stream, form, K, n, batch, 1,
                                                 2 * detail::kWarpLanes, d, dl, x, xl, none, none,
                                                 none, none);
      return;
    }
    if (const auto lanes_grid = columns_lanes_run(form, K, n, batch, d, dl, x, xl, ws)) {
      const index_t kept = columns_lanes_workspace<T>(n, batch, K);
      T* checkpoints = ws + (wc - kept);  // past what the coarse solve may use
      run_segmented(stream, columns_lanes_segments<T>(n, K), batch, ws, wc - kept, budget,
                    form.gate, [&](auto pass, T* ca, T* cb, T* cc, T* cd) {
                      constexpr detail::SegmentPass kPass = decltype(pass)::value;
                      if constexpr (kPass == detail::SegmentPass::reduce)
                        launch_columns_lanes_reduce(stream, form, K, n, batch, *lanes_grid, d, dl,
                                                    ca, cb, cc, cd, checkpoints);
                      if constexpr (kPass == detail::SegmentPass::substitute)
                        launch_columns_lanes_substitute(stream, form, K, n, batch, d, dl, x, xl, cd,
                                                        checkpoints);
                    });
      return;
    }
    const index_t segments = detail::columns_segments(n, K, sizeof(T), general);
    const int chunks = detail::columns_chunks(n, K, sizeof(T), general);
    run_segmented(stream, segments, batch, ws, wc, budget, form.gate,
                  [&](auto pass, T* ca, T* cb, T* cc, T* cd) {
                    launch_columns<decltype(pass)::value>(stream, form, K, n, batch, segments,
                                                          chunks, d, dl, x, xl, ca, cb, cc, cd);
                  });
    return;
  }
  if (opt.method == Method::thomas) {
    launch_thomas(stream, form, n, batch, d, dl, x, xl, ws);
    return;
  }
  if (opt.method == Method::tiled_pcr) {
    launch_tiled_pcr(stream, form, opt.rows_per_thread, n, batch, d, dl, x, xl, ws, wc, budget);
    return;
  }
  if (opt.method == Method::warp) {
    if constexpr (std::is_same_v<Form, detail::ShiftedForm<T>>) {
      if (opt.staging == Staging::shared) {
        launch_warp(stream, detail::StagedShiftedForm<T>{form.m, form.shifts}, opt.rows_per_thread,
                    n, batch, d, dl, x, xl, budget);
        return;
      }
    }
    launch_warp(stream, form, opt.rows_per_thread, n, batch, d, dl, x, xl, budget);
    return;
  }
  const PartitionPlan pl = plan_partition(n, batch, opt.rows_per_thread, interleaved, sizeof(T),
                                          Form::tiles, Form::shared_tiles, budget);
  if constexpr (std::is_same_v<Form, detail::ShiftedForm<T>>) {
    // Staging A and M must leave the plan (and so the workspace) unchanged, else it is skipped.
    if (opt.staging == Staging::shared) {
      using Staged = detail::StagedShiftedForm<T>;
      const PartitionPlan sp = plan_partition(n, batch, opt.rows_per_thread, interleaved, sizeof(T),
                                              Staged::tiles, Staged::shared_tiles, budget);
      if (sp.single == pl.single && sp.G == pl.G && sp.P == pl.P) {
        run_partition(stream, Staged{form.m, form.shifts}, sp, n, batch, d, dl, x, xl, ws, wc,
                      budget);
        return;
      }
    }
  }
  run_partition(stream, form, pl, n, batch, d, dl, x, xl, ws, wc, budget);
}

void check_layout(const BatchLayout& layout, index_t n, index_t batch, const char* what) {
  if ((n > 1 && layout.row_stride < 1) || (batch > 1 && layout.system_stride < 1) ||
      layout.row_stride < 0 || layout.system_stride < 0)
    PSCR_INPUT_ERROR("tridiag::cuda: "
                     << what << " layout needs positive strides, found system_stride "
                     << layout.system_stride << ", row_stride " << layout.row_stride);
}

void check_sizes(index_t n, index_t batch) {
  if (n < 1) PSCR_INPUT_ERROR("tridiag::cuda: system size must be >= 1, got " << n);
  if (batch < 1) PSCR_INPUT_ERROR("tridiag::cuda: batch must be >= 1, got " << batch);
}

/// Checks pointers, layouts and the workspace (after check_sizes).
void check_common(index_t n, index_t batch, const void* d, const BatchLayout& dl, const void* x,
                  const BatchLayout& xl, const void* ws, index_t wc, index_t required) {
  if (d == nullptr || x == nullptr) PSCR_INPUT_ERROR("tridiag::cuda: d and x must not be null");
  check_layout(dl, n, batch, "d");
  check_layout(xl, n, batch, "x");
  if (wc < required || (required > 0 && ws == nullptr))
    PSCR_INPUT_ERROR("tridiag::cuda: workspace must hold at least "
                     << required << " scalars (workspace_size), got " << wc);
}

/// Throws InputError unless each named array is aligned as its kernel scalar (complex: 16 bytes,
/// detail::Complex, loaded whole; a misaligned load would abort the CUDA context). Asks nothing of
/// the device.
template <class Scalar>
void check_aligned(std::initializer_list<std::pair<const Scalar*, const char*>> arrays) {
  constexpr std::size_t alignment = alignof(kernel_scalar_t<Scalar>);
  for (const auto& [p, name] : arrays)
    if (reinterpret_cast<std::uintptr_t>(p) % alignment != 0)
      PSCR_INPUT_ERROR("tridiag::cuda: " << name << " must be " << alignment
                                         << "-byte aligned (as cudaMalloc'd arrays are), found "
                                         << static_cast<const void*>(p));
}

/// check_aligned for the shifted form's arrays.
template <class Scalar>
void check_shifted_aligned(const DeviceSymTridiag<Scalar>& A, const DeviceSymTridiag<Scalar>& M,
                           const Scalar* shifts, const Scalar* d, const Scalar* x,
                           const Scalar* ws) {
  check_aligned<Scalar>({{A.diag, "A's diagonal"},
                         {A.off, "A's off-diagonal"},
                         {M.diag, "M's diagonal"},
                         {M.off, "M's off-diagonal"},
                         {shifts, "the shifts"},
                         {d, "d"},
                         {x, "x"},
                         {ws, "the workspace"}});
}

/// check_aligned for the general form's arrays.
template <class Scalar>
void check_general_aligned(const Scalar* a, const Scalar* b, const Scalar* c, const Scalar* d,
                           const Scalar* x, const Scalar* ws) {
  check_aligned<Scalar>({{a, "a"}, {b, "b"}, {c, "c"}, {d, "d"}, {x, "x"}, {ws, "the workspace"}});
}

template <class Scalar>
void check_shifted(const DeviceSymTridiag<Scalar>& A, const DeviceSymTridiag<Scalar>& M,
                   const Scalar* shifts) {
  if (M.n != A.n)
    PSCR_INPUT_ERROR("tridiag::cuda: A and M must have the same size, got " << A.n << " and "
                                                                            << M.n);
  if (A.diag == nullptr || M.diag == nullptr || shifts == nullptr ||
      (A.n > 1 && (A.off == nullptr || M.off == nullptr)))
    PSCR_INPUT_ERROR("tridiag::cuda: A, M and the shifts must not be null");
}

template <class Scalar>
detail::ShiftedMatrix<kernel_scalar_t<Scalar>> shifted_matrix(const DeviceSymTridiag<Scalar>& A,
                                                              const DeviceSymTridiag<Scalar>& M) {
  return {as_kernel(A.diag), as_kernel(A.off), as_kernel(M.diag), as_kernel(M.off), A.n};
}

}  // namespace

SelectionGpu current_selection_gpu() {
  static PerDevice<std::monostate, SelectionGpu> gpus;
  return gpus.get({}, [] {
    int device = 0;
    PSCR_CUDA_CHECK(cudaGetDevice(&device));
    return device_selection_gpu(device);
  });
}

template <class Scalar>
DeviceSymTridiagBuffer<Scalar>::DeviceSymTridiagBuffer(const SymTridiag<Scalar>& t)
    : diag_(t.diag.size()), off_(std::max<std::size_t>(t.off.size(), 1)), n_(t.size()) {
  diag_.copy_from_host(t.diag.data());
  off_.copy_from_host(t.off.data(), t.off.size());
}

template <class Scalar>
index_t workspace_size(index_t n, index_t batch, const Options& options) {
  if (n < 1 || batch < 1) return 0;
  using T = kernel_scalar_t<Scalar>;
  const std::size_t budget = max_block_shared();
  index_t most = 0;
  for (bool interleaved : {false, true})
    for (int tiles : {detail::ShiftedForm<T>::tiles, detail::GeneralForm<T>::tiles})
      most = std::max(most, required_workspace<T>(n, batch, interleaved, tiles, options, budget));
  return most;
}

template <class Scalar>
Options resolved_options(index_t n, index_t batch, BatchLayout d_layout, bool general,
                         const Options& options) {
  check_sizes(n, batch);
  return resolve(options, n, batch, !row_fastest(d_layout), tiles_take_rows(d_layout, d_layout),
                 is_complex_v<Scalar>, general, max_block_shared());
}

index_t pivoting_workspace_size(index_t n, index_t batch) {
  return 3 * std::max<index_t>(n, 1) * std::max<index_t>(batch, 1);
}

template <class Scalar>
void solve_shifted(cudaStream_t stream, DeviceSymTridiag<Scalar> A, DeviceSymTridiag<Scalar> M,
                   const Scalar* d_shifts, index_t batch, const Scalar* d_rhs, BatchLayout d_layout,
                   Scalar* d_x, BatchLayout x_layout, Scalar* d_workspace, index_t workspace_count,
                   const Options& options) {
  using T = kernel_scalar_t<Scalar>;
  const index_t n = A.n;
  check_shifted(A, M, d_shifts);
  check_sizes(n, batch);
  check_shifted_aligned(A, M, d_shifts, d_rhs, d_x, d_workspace);
  const std::size_t budget = max_block_shared();
  check_common(n, batch, d_rhs, d_layout, d_x, x_layout, d_workspace, workspace_count,
               required_workspace<T>(n, batch, !row_fastest(d_layout),
                                     detail::ShiftedForm<T>::tiles, options, budget));
  const detail::ShiftedForm<T> form{shifted_matrix(A, M), as_kernel(d_shifts)};
  solve_device(stream, form, n, batch, as_kernel(d_rhs), d_layout, as_kernel(d_x), x_layout,
               as_kernel(d_workspace), workspace_count, options, budget);
}

template <class Scalar>
void solve_general(cudaStream_t stream, index_t n, index_t batch, const Scalar* d_a,
                   const Scalar* d_b, const Scalar* d_c, const Scalar* d_rhs, BatchLayout d_layout,
                   Scalar* d_x, BatchLayout x_layout, Scalar* d_workspace, index_t workspace_count,
                   const Options& options) {
  using T = kernel_scalar_t<Scalar>;
  if (d_a == nullptr || d_b == nullptr || d_c == nullptr)
    PSCR_INPUT_ERROR("tridiag::cuda: a, b and c must not be null");
  check_sizes(n, batch);
  check_general_aligned(d_a, d_b, d_c, d_rhs, d_x, d_workspace);
  const std::size_t budget = max_block_shared();
  check_common(n, batch, d_rhs, d_layout, d_x, x_layout, d_workspace, workspace_count,
               required_workspace<T>(n, batch, !row_fastest(d_layout),
                                     detail::GeneralForm<T>::tiles, options, budget));
  const detail::GeneralForm<T> form{as_kernel(d_a), as_kernel(d_b), as_kernel(d_c), n};
  solve_device(stream, form, n, batch, as_kernel(d_rhs), d_layout, as_kernel(d_x), x_layout,
               as_kernel(d_workspace), workspace_count, options, budget);
}

template <class Scalar>
bool window_bound_holds(cudaStream_t stream, DeviceSymTridiag<Scalar> A, DeviceSymTridiag<Scalar> M,
                        const Scalar* d_shifts, index_t batch) {
  check_shifted(A, M, d_shifts);
  check_sizes(A.n, batch);
  check_shifted_aligned<Scalar>(A, M, d_shifts, nullptr, nullptr, nullptr);  // no d, x, workspace
  pscr::cuda::DeviceBuffer<detail::WindowCheck> check(1);
  launch_window_bound_check(
      stream,
      detail::ShiftedForm<kernel_scalar_t<Scalar>>{shifted_matrix(A, M), as_kernel(d_shifts)},
      batch, check.data());
  unsigned failed_warps = 0;
  PSCR_CUDA_CHECK(cudaMemcpyAsync(&failed_warps, &check.data()->failed, sizeof failed_warps,
                                  cudaMemcpyDeviceToHost, stream));
  PSCR_CUDA_CHECK(cudaStreamSynchronize(stream));
  return failed_warps == 0;
}

template <class Scalar>
void solve_shifted_pivoting(cudaStream_t stream, DeviceSymTridiag<Scalar> A,
                            DeviceSymTridiag<Scalar> M, const Scalar* d_shifts, index_t batch,
                            const Scalar* d_rhs, BatchLayout d_layout, Scalar* d_x,
                            BatchLayout x_layout, Scalar* d_workspace, index_t workspace_count) {
  using T = kernel_scalar_t<Scalar>;
  const index_t n = A.n;
  check_shifted(A, M, d_shifts);
  check_sizes(n, batch);
  check_shifted_aligned(A, M, d_shifts, d_rhs, d_x, d_workspace);
  check_common(n, batch, d_rhs, d_layout, d_x, x_layout, d_workspace, workspace_count,
               pivoting_workspace_size(n, batch));
  launch_pivoting(stream, detail::ShiftedForm<T>{shifted_matrix(A, M), as_kernel(d_shifts)}, n,
                  batch, as_kernel(d_rhs), d_layout, as_kernel(d_x), x_layout,
                  as_kernel(d_workspace));
}

template <class Scalar>
void solve_general_pivoting(cudaStream_t stream, index_t n, index_t batch, const Scalar* d_a,
                            const Scalar* d_b, const Scalar* d_c, const Scalar* d_rhs,
                            BatchLayout d_layout, Scalar* d_x, BatchLayout x_layout,
                            Scalar* d_workspace, index_t workspace_count) {
  using T = kernel_scalar_t<Scalar>;
  if (d_a == nullptr || d_b == nullptr || d_c == nullptr)
    PSCR_INPUT_ERROR("tridiag::cuda: a, b and c must not be null");
  check_sizes(n, batch);
  check_general_aligned(d_a, d_b, d_c, d_rhs, d_x, d_workspace);
  check_common(n, batch, d_rhs, d_layout, d_x, x_layout, d_workspace, workspace_count,
               pivoting_workspace_size(n, batch));
  launch_pivoting(stream, detail::GeneralForm<T>{as_kernel(d_a), as_kernel(d_b), as_kernel(d_c), n},
                  n, batch, as_kernel(d_rhs), d_layout, as_kernel(d_x), x_layout,
                  as_kernel(d_workspace));
}

#define PSCR_INSTANTIATE(Scalar)                                                                  \
  template class DeviceSymTridiagBuffer<Scalar>;                                                  \
  template index_t workspace_size<Scalar>(index_t, index_t, const Options&);                      \
  template Options resolved_options<Scalar>(index_t, index_t, BatchLayout, bool, const Options&); \
  template void solve_shifted<Scalar>(                                                            \
      cudaStream_t, DeviceSymTridiag<Scalar>, DeviceSymTridiag<Scalar>, const Scalar*, index_t,   \
      const Scalar*, BatchLayout, Scalar*, BatchLayout, Scalar*, index_t, const Options&);        \
  template void solve_general<Scalar>(cudaStream_t, index_t, index_t, const Scalar*,              \
                                      const Scalar*, const Scalar*, const Scalar*, BatchLayout,   \
                                      Scalar*, BatchLayout, Scalar*, index_t, const Options&);    \
  template bool window_bound_holds<Scalar>(cudaStream_t, DeviceSymTridiag<Scalar>,                \
                                           DeviceSymTridiag<Scalar>, const Scalar*, index_t);     \
  template void solve_shifted_pivoting<Scalar>(                                                   \
      cudaStream_t, DeviceSymTridiag<Scalar>, DeviceSymTridiag<Scalar>, const Scalar*, index_t,   \
      const Scalar*, BatchLayout, Scalar*, BatchLayout, Scalar*, index_t);                        \
  template void solve_general_pivoting<Scalar>(                                                   \
      cudaStream_t, index_t, index_t, const Scalar*, const Scalar*, const Scalar*, const Scalar*, \
      BatchLayout, Scalar*, BatchLayout, Scalar*, index_t);
PSCR_FOR_EACH_SCALAR(PSCR_INSTANTIATE)
#undef PSCR_INSTANTIATE

}  // namespace pscr::tridiag::cuda
