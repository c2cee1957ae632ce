#pragma once
/// @file The GPU executor of the engine (engine.cuh): element functors launched as kernels on one
/// stream, level 3 through tridiag::cuda, optional CUDA-event timing per stage. Include only from
/// .cu files.

#include <cuda_runtime.h>

#include <algorithm>
#include <climits>
#include <vector>

#include "common/cuda/check.hpp"
#include "common/cuda/device_buffer.hpp"
#include "common/cuda/launch.cuh"
#include "pscr/cuda/engine.cuh"
#include "tridiag/cuda/solve.hpp"

namespace pscr::cuda::detail {

inline constexpr int kStageThreads = 256;

/// Runs f(row, col) over rows × cols: threadIdx.x walks cols (coalesced), threadIdx.y rows;
/// grid-stride in both directions, so any grid size is covered.
template <class F>
__global__ void __launch_bounds__(kStageThreads) stage_kernel(F f, index_t rows, index_t cols) {
  const index_t col0 = blockIdx.x * static_cast<index_t>(blockDim.x) + threadIdx.x;
  const index_t col_step = static_cast<index_t>(gridDim.x) * blockDim.x;
  const index_t row_step = static_cast<index_t>(gridDim.y) * blockDim.y;
  for (index_t row = blockIdx.y * static_cast<index_t>(blockDim.y) + threadIdx.y; row < rows;
       row += row_step)
    for (index_t col = col0; col < cols; col += col_step) f(row, col);
}

/// The block abstraction of the fused stage on the GPU.
struct DeviceBlock {
  __device__ int size() const { return static_cast<int>(blockDim.x); }
  /// The calling thread runs its part of a phase.
  template <class F>
  __device__ void each(F&& f) const {
    f(static_cast<int>(threadIdx.x));
  }
  __device__ void sync() const { __syncthreads(); }
  /// PCR of tridiag/cuda on gv coarse systems in shared memory (ends with a barrier).
  template <class T>
  __device__ void pcr(T* a, T* b, T* c, T* d, int gv, int stride, int nc) const {
    tridiag::cuda::detail::pcr_shared(a, b, c, d, gv, stride, nc);
  }
};

/// Runs f.run(block, id, shared memory) for blocks id = 0..count−1 (grid-stride).
template <class T, class F>
__global__ void __launch_bounds__(kFusedThreads, 2) block_kernel(F f, index_t count) {
  extern __shared__ __align__(16) unsigned char smem_raw[];
  T* smem = reinterpret_cast<T*>(smem_raw);
  for (index_t b = blockIdx.x; b < count; b += gridDim.x) {
    f.run(DeviceBlock{}, b, smem);
    __syncthreads();  // shared memory is reused by the next block of this thread block
  }
}

/// @brief The GPU executor: everything runs on `stream()`.
class DeviceExec {
 public:
  template <class T>
  using Buffer = DeviceBuffer<T>;

  explicit DeviceExec(cudaStream_t stream) : stream_(stream) {}
  DeviceExec(const DeviceExec&) = delete;
  DeviceExec& operator=(const DeviceExec&) = delete;
  ~DeviceExec() {
    for (cudaEvent_t e : pool_) cudaEventDestroy(e);
  }

  cudaStream_t stream() const { return stream_; }
  void set_stream(cudaStream_t stream) { stream_ = stream; }

  template <class F>
  void launch(Stage stage, index_t rows, index_t cols, const F& f) {
    if (rows <= 0 || cols <= 0) return;
    // Block: a power of two ≥ 32 of cols wide (up to 256), the rest of the 256 threads on rows.
    int bx = 32;
    while (bx < cols && bx < kStageThreads) bx *= 2;
    const int by = kStageThreads / bx;
    const index_t gx = std::min<index_t>((cols + bx - 1) / bx, INT_MAX);
    const index_t gy = std::min<index_t>((rows + by - 1) / by, 65535);
    begin(stage);
    stage_kernel<<<dim3(static_cast<unsigned>(gx), static_cast<unsigned>(gy)), dim3(bx, by), 0,
                   stream_>>>(f, rows, cols);
    PSCR_CUDA_CHECK_LAUNCH();
    end();
  }

  /// Launches f.run over `blocks` thread blocks of `threads` threads with `smem_bytes` of
  /// dynamic shared memory (F::run's T is the element type of that memory).
  template <class T>
  void launch_blocks(Stage stage, index_t blocks, int threads, std::size_t smem_bytes,
                     const FusedStage<T>& f) {
    if (blocks <= 0) return;
    auto* kernel = block_kernel<T, FusedStage<T>>;
    allow_shared(kernel, smem_bytes);
    const index_t grid = std::min<index_t>(blocks, INT_MAX);
    begin(stage);
    kernel<<<static_cast<unsigned>(grid), threads, smem_bytes, stream_>>>(f, blocks);
    PSCR_CUDA_CHECK_LAUNCH();
    end();
  }

  /// Largest dynamic shared memory of a block on the current device.
  std::size_t shared_limit() const { return max_block_shared(); }

  template <class T>
  void upload(T* dst, const T* src, index_t count) {
    if (count <= 0) return;
    PSCR_CUDA_CHECK(cudaMemcpyAsync(dst, src, sizeof(T) * count, cudaMemcpyHostToDevice, stream_));
    PSCR_CUDA_CHECK(cudaStreamSynchronize(stream_));
  }
  template <class T>
  void download(T* dst, const T* src, index_t count) {
    if (count <= 0) return;
    PSCR_CUDA_CHECK(cudaMemcpyAsync(dst, src, sizeof(T) * count, cudaMemcpyDeviceToHost, stream_));
    PSCR_CUDA_CHECK(cudaStreamSynchronize(stream_));
  }

  template <class T>
  index_t tridiag_workspace(index_t n, index_t batch, bool pivoting) const {
    using S = host_scalar_t<T>;
    return pivoting ? tridiag::cuda::pivoting_workspace_size(n, batch)
                    : tridiag::cuda::workspace_size<S>(n, batch);
  }

  template <class T>
  void tridiag(const TridiagRowOp<T>& am, index_t n, const T* shifts, index_t batch, T* x,
               tridiag::BatchLayout layout, bool pivoting, T* ws, index_t wc) {
    using S = host_scalar_t<T>;
    const tridiag::cuda::DeviceSymTridiag<S> A{reinterpret_cast<const S*>(am.a_diag),
                                               reinterpret_cast<const S*>(am.a_off), n};
    const tridiag::cuda::DeviceSymTridiag<S> M{reinterpret_cast<const S*>(am.m_diag),
                                               reinterpret_cast<const S*>(am.m_off), n};
    const S* s = reinterpret_cast<const S*>(shifts);
    S* xs = reinterpret_cast<S*>(x);
    S* w = reinterpret_cast<S*>(ws);
    begin(Stage::tridiag);
    if (pivoting) {
      tridiag::cuda::solve_shifted_pivoting(stream_, A, M, s, batch, xs, layout, xs, layout, w, wc);
    } else {
      tridiag::cuda::solve_shifted(stream_, A, M, s, batch, xs, layout, xs, layout, w, wc);
    }
    end();
  }

  /// The segment stage of the engine runs here (segment_stage.cuh).
  static constexpr bool kSegmentStage = true;

  /// Scalars of workspace of the segment stage for `batch` systems of n rows: the coarse systems
  /// (a, b, c, d) and the workspace of their solve.
  template <class T>
  index_t segment_stage_workspace(index_t n, index_t batch) const {
    const index_t nc = 2 * segment_stage_segments<T>(n);
    return 4 * nc * batch +
           tridiag::cuda::workspace_size<host_scalar_t<T>>(nc, batch, coarse_options());
  }

  /// Runs the segment stage `s` (s.walk and the coarse arrays are filled in here): condense,
  /// the coarse solve in the workspace, finish.
  template <class T>
  void segment_stage(SegmentStage<T> s, T* ws, index_t wc) {
    using S = host_scalar_t<T>;
    const index_t batch = s.problems * s.a.S;
    const index_t nc = 2 * s.segments;
    const index_t cn = nc * batch;
    s.ca = ws;
    s.cb = ws + cn;
    s.cc = ws + 2 * cn;
    s.cd = ws + 3 * cn;
    begin(Stage::fused);
    launch_segment_pass<true>(s);
    const auto layout = tridiag::BatchLayout::contiguous(nc);
    S* cd = reinterpret_cast<S*>(s.cd);
    tridiag::cuda::solve_general(stream_, nc, batch, reinterpret_cast<const S*>(s.ca),
                                 reinterpret_cast<const S*>(s.cb), reinterpret_cast<const S*>(s.cc),
                                 cd, layout, cd, layout, reinterpret_cast<S*>(ws + 4 * cn),
                                 wc - 4 * cn, coarse_options());
    launch_segment_pass<false>(s);
    end();
  }

  std::size_t free_bytes() const {
    std::size_t free = 0, total = 0;
    PSCR_CUDA_CHECK(cudaMemGetInfo(&free, &total));
    return free;
  }

  /// @brief Starts recording one event pair per stage (until collect()).
  void start_profile() {
    profiling_ = true;
    marks_.clear();
  }
  /// @brief Waits for the stream and adds the recorded stage times to `times`.
  void collect(StageTimes& times) {
    if (!profiling_) return;
    PSCR_CUDA_CHECK(cudaStreamSynchronize(stream_));
    for (const Mark& m : marks_) {
      float ms = 0;
      PSCR_CUDA_CHECK(cudaEventElapsedTime(&ms, pool_[m.start], pool_[m.start + 1]));
      switch (m.stage) {
        case Stage::rhs:
          times.rhs_ms += ms;
          break;
        case Stage::tridiag:
          times.tridiag_ms += ms;
          break;
        case Stage::sum:
          times.sum_ms += ms;
          break;
        case Stage::update:
          times.update_ms += ms;
          break;
        case Stage::fused:
          times.fused_ms += ms;
          break;
        case Stage::refine:
          times.refine_ms += ms;
          break;
        case Stage::other:
          times.other_ms += ms;
          break;
      }
    }
    marks_.clear();
    profiling_ = false;
  }

 private:
  /// The coarse systems of the segment stage: the segment method, as tridiag/cuda does for its own.
  static tridiag::cuda::Options coarse_options() {
    tridiag::cuda::Options o;
    o.method = tridiag::cuda::Method::segment;
    return o;
  }

  /// One pass of the segment stage on at most as many warps as are resident, each keeping its
  /// segment and its A, M tables as long as it can (tridiag::cuda::detail::segment_walk).
  template <bool Condense, class T>
  void launch_segment_pass(SegmentStage<T> s) {
    constexpr int K = kSegmentStageRows<T>;
    constexpr int threads = tridiag::cuda::detail::kSegmentThreads;
    constexpr int per_block = threads / tridiag::cuda::detail::kWarpLanes;
    auto* kernel = segment_stage_kernel<K, Condense, T>;
    const std::size_t smem = sizeof(T) * kSegmentStageSlice<K, T> * per_block;
    s.walk = tridiag::cuda::detail::segment_walk(s.problems * s.a.nchunks, s.segments, 1,
                                                 resident_blocks(kernel, threads, smem) * per_block,
                                                 true);
    if (s.walk.warps <= 0) return;
    const index_t blocks = (s.walk.warps + per_block - 1) / per_block;
    kernel<<<static_cast<unsigned>(blocks), threads, smem, stream_>>>(s);
    PSCR_CUDA_CHECK_LAUNCH();
  }

  struct Mark {
    Stage stage;
    std::size_t start;  ///< index of the start event in pool_ (the end event follows it)
  };

  void begin(Stage stage) {
    if (!profiling_ || depth_++ > 0) return;
    const std::size_t start = 2 * marks_.size();
    while (pool_.size() < start + 2) {
      cudaEvent_t e = nullptr;
      PSCR_CUDA_CHECK(cudaEventCreate(&e));
      pool_.push_back(e);
    }
    marks_.push_back({stage, start});
    PSCR_CUDA_CHECK(cudaEventRecord(pool_[start], stream_));
  }
  void end() {
    if (!profiling_ || --depth_ > 0) return;
    PSCR_CUDA_CHECK(cudaEventRecord(pool_[marks_.back().start + 1], stream_));
  }

  cudaStream_t stream_;
  bool profiling_ = false;
  int depth_ = 0;  ///< nesting (a tridiag call is one stage)
  std::vector<Mark> marks_;
  std::vector<cudaEvent_t> pool_;
};

}  // namespace pscr::cuda::detail
