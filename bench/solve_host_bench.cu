// Host cost of the GPU tridiagonal solver: what one tridiag::cuda::solve_shifted call costs the
// CPU against its GPU time, at PSCR's small shapes (where the host's share decides the time) and
// a few large ones, and the CUDA runtime calls a launch may make, for the floor.
//
// Usage: solve_host_bench OUTPUT.csv [--reps R] [--calls C] [--goal-shapes]
// Rows of kind "runtime": host microseconds per call of an empty kernel launch, of one with 256
// bytes of parameters (a solve kernel takes 100–200), an occupancy query
// (cudaOccupancyMaxActiveBlocksPerMultiprocessor), cudaFuncSetAttribute (the dynamic shared
// memory limit), one lookup in the device's selection table (tridiag::cuda::select_method, which
// a solve makes once per resolve of its options), tridiag::cuda::resolved_options and
// workspace_size (the queries a segmented solve makes of itself), cudaGetDevice with
// cudaDeviceGetAttribute: C calls back to back, median of R.
// Rows of kind "solve" (automatic options, the shifted form): gpu_us, CUDA events recorded right
// before and after one call (so the host's time in the call counts where the GPU waits for it),
// median of R; host_us, wall time of the call itself, median of R; back_to_back_us, C calls on
// one stream then one synchronization, per call, median of R (the larger of host and GPU cost per
// solve: what a caller issuing solves in a row sees). method and rows_per_thread: what the
// options resolve to (tridiag::cuda::resolved_options). After each solve row, a row of kind
// "copy" (name d2d) times the same way a cudaMemcpyAsync of its d (tridiag_bench's copy): the
// solve's gpu_us − back_to_back_us less the copy's is what the host adds to a solve beyond one
// launch in tridiag_bench's fractions of the copy. Defaults R = 30, C = 200. --goal-shapes
// adds issue 5's six bandwidth shapes, real and complex, both layouts (24 solves of 2^24 rows,
// where gpu_us − back_to_back_us is what the host adds to tridiag_bench's event times).
// Exit codes: 0 written, 1 failure (no GPU, a CUDA error, an unwritable output), 2 bad arguments.
#include <algorithm>
#include <chrono>
#include <complex>
#include <fstream>
#include <iostream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "bench/cli.hpp"
#include "bench/goal_shapes.hpp"
#include "common/cuda/check.hpp"
#include "common/cuda/device_buffer.hpp"
#include "common/error.hpp"
#include "tridiag/cuda/selection.hpp"
#include "tridiag/cuda/solve.hpp"

namespace {

using pscr::index_t;
using pscr::cuda::DeviceBuffer;
using pscr::cuda::Event;
using pscr::cuda::Stream;
namespace tc = pscr::tridiag::cuda;
using pscr::tridiag::BatchLayout;
using Clock = std::chrono::steady_clock;

__global__ void empty_kernel() {}
/// 256 bytes of parameters: a solve's kernels take 100–200 (a matrix view, strides, pointers).
struct Parameters {
  double v[32];
};
__global__ void parameters_kernel(Parameters p, double* out) {
  if (out != nullptr) out[threadIdx.x] = p.v[threadIdx.x];
}
__global__ void shared_kernel(int* out) {
  extern __shared__ int scratch[];
  scratch[threadIdx.x] = static_cast<int>(threadIdx.x);
  __syncthreads();
  if (threadIdx.x == 0 && out != nullptr) out[blockIdx.x] = scratch[blockDim.x - 1];
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

double micros(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::micro>(b - a).count();
}

/// Host microseconds per call of f, `calls` in a row, median of `reps` such rows.
template <class F>
double per_call(int reps, int calls, F&& f) {
  std::vector<double> t;
  for (int r = 0; r < reps; ++r) {
    const auto a = Clock::now();
    for (int c = 0; c < calls; ++c) f();
    t.push_back(micros(a, Clock::now()) / calls);
  }
  return median(t);
}

struct Case {
  bool complex;
  bool interleaved;
  index_t n, batch;
};

const Case kCases[] = {
    {false, false, 32, 32},     {false, false, 31, 961},     {true, false, 31, 31},
    {true, false, 63, 63},      {true, false, 31, 961},      {false, false, 255, 255},
    {true, false, 255, 255},    {false, false, 1023, 1023},  {true, false, 1023, 1023},
    {false, false, 64, 262144}, {false, false, 1 << 20, 16}, {true, true, 1024, 16384},
};

/// tridiag::cuda::Method's names, in its order.
const char* method_name(tc::Method m) {
  static const char* const names[] = {"automatic", "thomas", "partition", "warp",     "segment",
                                      "block",     "sweep",  "columns",   "tiled_pcr"};
  return names[static_cast<int>(m)];
}

constexpr const char* kHeader =
    "device,kind,name,scalar,layout,n,batch,method,rows_per_thread,gpu_us,host_us,"
    "back_to_back_us\n";

/// `count` values uniform in [−0.5, 0.5).
template <class S>
std::vector<S> random_values(std::size_t count, std::mt19937_64& gen) {
  std::uniform_real_distribution<double> u(-0.5, 0.5);
  std::vector<S> v(count);
  for (auto& x : v) x = S(u(gen));
  return v;
}

/// One call's times (µs): CUDA events recorded right before and after it (gpu_us: the host's time
/// in the call counts where the GPU waits for it), its own wall time (host_us), and per call of
/// `calls` back to back on one stream then one synchronization (back_to_back_us); medians of
/// `reps`, after five calls that load the modules and fill what the library keeps.
struct CallTimes {
  double gpu_us, host_us, back_to_back_us;
};

template <class F>
CallTimes time_calls(Stream& stream, int reps, int calls, F&& call) {
  for (int i = 0; i < 5; ++i) call();
  stream.synchronize();
  Event before, after;
  std::vector<double> gpu, host, row;
  for (int r = 0; r < reps; ++r) {
    before.record(stream.get());
    const auto a = Clock::now();
    call();
    const auto b = Clock::now();
    after.record(stream.get());
    after.synchronize();
    gpu.push_back(1e3 * after.elapsed_ms_since(before));
    host.push_back(micros(a, b));
  }
  for (int r = 0; r < reps; ++r) {
    const auto a = Clock::now();
    for (int i = 0; i < calls; ++i) call();
    stream.synchronize();
    row.push_back(micros(a, Clock::now()) / calls);
  }
  return {median(gpu), median(host), median(row)};
}

template <class S>
void bench_solve(const Case& c, int reps, int calls, const std::string& device,
                 std::ofstream& csv) {
  const index_t n = c.n, batch = c.batch;
  std::mt19937_64 gen(7);
  std::uniform_real_distribution<double> u(-0.5, 0.5);
  pscr::SymTridiag<S> A, M;
  A.diag.assign(n, S(4.0));
  M.diag.assign(n, S(2.0));
  A.off.assign(static_cast<std::size_t>(n - 1), S(0.0));
  M.off.assign(static_cast<std::size_t>(n - 1), S(0.0));
  for (auto& v : A.off) v = S(u(gen));
  for (auto& v : M.off) v = S(0.5 * u(gen));
  const std::vector<S> shifts(static_cast<std::size_t>(batch), S(1.0));
  const std::vector<S> d = random_values<S>(static_cast<std::size_t>(n * batch), gen);
  const tc::DeviceSymTridiagBuffer<S> dA(A), dM(M);
  DeviceBuffer<S> dd(d.size()), dx(d.size()), dshifts(shifts.size());
  dd.copy_from_host(d.data());
  dshifts.copy_from_host(shifts.data());
  const BatchLayout layout =
      c.interleaved ? BatchLayout::interleaved(batch) : BatchLayout::contiguous(n);
  const tc::Options options;
  const tc::Options resolved = tc::resolved_options<S>(n, batch, layout, false, options);
  const index_t wc = tc::workspace_size<S>(n, batch, options);
  DeviceBuffer<S> ws(std::max<index_t>(wc, 1));
  Stream stream;
  auto solve = [&] {
    tc::solve_shifted<S>(stream.get(), dA.view(), dM.view(), dshifts.data(), batch, dd.data(),
                         layout, dx.data(), layout, ws.data(), wc, options);
  };
  auto copy = [&] {
    PSCR_CUDA_CHECK(
        cudaMemcpyAsync(dx.data(), dd.data(), dd.bytes(), cudaMemcpyDeviceToDevice, stream.get()));
  };
  const CallTimes solved = time_calls(stream, reps, calls, solve);
  const CallTimes copied = time_calls(stream, reps, calls, copy);
  const char* scalar = c.complex ? "complex" : "real";
  const char* layout_name = c.interleaved ? "interleaved" : "contiguous";
  csv << device << ",solve,shifted," << scalar << ',' << layout_name << ',' << n << ',' << batch
      << ',' << method_name(resolved.method) << ',' << resolved.rows_per_thread << ','
      << solved.gpu_us << ',' << solved.host_us << ',' << solved.back_to_back_us << '\n';
  csv << device << ",copy,d2d," << scalar << ',' << layout_name << ',' << n << ',' << batch << ",,,"
      << copied.gpu_us << ',' << copied.host_us << ',' << copied.back_to_back_us << '\n';
  std::cerr << scalar << ' ' << n << " x " << batch << ": gpu " << solved.gpu_us << " us, host "
            << solved.host_us << " us, back to back " << solved.back_to_back_us
            << " us; its copy: gpu " << copied.gpu_us << " us, back to back "
            << copied.back_to_back_us << " us\n";
}

void bench_runtime(int reps, int calls, const std::string& device, std::ofstream& csv) {
  Stream stream;
  auto row = [&](const char* name, double us) {
    csv << device << ",runtime," << name << ",,,,,,,," << us << ",\n";
    std::cerr << name << ": " << us << " us\n";
  };
  empty_kernel<<<1, 32, 0, stream.get()>>>();
  PSCR_CUDA_CHECK(cudaStreamSynchronize(stream.get()));
  row("empty_launch", per_call(reps, calls, [&] {
        empty_kernel<<<1, 32, 0, stream.get()>>>();
        PSCR_CUDA_CHECK(cudaPeekAtLastError());
      }));
  const Parameters parameters{};
  parameters_kernel<<<1, 32, 0, stream.get()>>>(parameters, nullptr);
  PSCR_CUDA_CHECK(cudaStreamSynchronize(stream.get()));
  row("parameters_launch", per_call(reps, calls, [&] {
        parameters_kernel<<<1, 32, 0, stream.get()>>>(parameters, nullptr);
        PSCR_CUDA_CHECK(cudaPeekAtLastError());
      }));
  stream.synchronize();
  const int bytes = 64 * 1024;
  PSCR_CUDA_CHECK(
      cudaFuncSetAttribute(shared_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
  row("occupancy_query", per_call(reps, calls, [&] {
        int per_sm = 0;
        PSCR_CUDA_CHECK(
            cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, shared_kernel, 256, bytes));
      }));
  row("func_set_attribute", per_call(reps, calls, [&] {
        PSCR_CUDA_CHECK(cudaFuncSetAttribute(shared_kernel,
                                             cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
      }));
  const tc::SelectionGpu gpu = tc::device_selection_gpu(0);
  volatile int rows_per_thread = 0;  // keeps the selections from being optimized away
  row("select_method", per_call(reps, calls, [&] {
        rows_per_thread =
            tc::select_method(gpu, 65536, 256, true, false, false, false).rows_per_thread;
      }));
  // The queries a solve makes of itself before it launches: options resolved (a selection and
  // the device's shared-memory limit), the workspace it needs (both layouts and forms); at real
  // interleaved 65536 × 256, whose solve is segmented (the coarse solve resolved too).
  volatile index_t scalars = 0;
  row("resolved_options", per_call(reps, calls, [&] {
        rows_per_thread = tc::resolved_options<double>(65536, 256, BatchLayout::interleaved(256),
                                                       false, tc::Options{})
                              .rows_per_thread;
      }));
  row("workspace_size", per_call(reps, calls, [&] {
        scalars = tc::workspace_size<double>(65536, 256, tc::Options{});
      }));
  row("device_attribute", per_call(reps, calls, [&] {
        int dev = 0, v = 0;
        PSCR_CUDA_CHECK(cudaGetDevice(&dev));
        PSCR_CUDA_CHECK(cudaDeviceGetAttribute(&v, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
      }));
}

constexpr const char* kUsage =
    "usage: solve_host_bench OUTPUT.csv [--reps R] [--calls C] [--goal-shapes]\n";

}  // namespace

int main(int argc, char** argv) {
  if (argc >= 2 && pscr::bench::is_help(argv[1])) {
    std::cout << kUsage
              << "Host cost of tridiag::cuda::solve_shifted calls and of the CUDA runtime calls a "
                 "launch may make (see the file's header).\n";
    return 0;
  }
  if (argc < 2) {
    std::cerr << kUsage;
    return 2;
  }
  int reps = 30, calls = 200;
  bool goal_shapes = false;
  try {
    for (int i = 2; i < argc; ++i) {
      const std::string arg = argv[i];
      if (arg == "--goal-shapes") {
        goal_shapes = true;
        continue;
      }
      if (arg != "--reps" && arg != "--calls") PSCR_INPUT_ERROR("unknown argument '" << arg << "'");
      if (i + 1 == argc) PSCR_INPUT_ERROR(arg << ": expected a positive integer after it");
      (arg == "--reps" ? reps : calls) = pscr::bench::parse_positive<int>(arg, argv[++i]);
    }
  } catch (const pscr::InputError& e) {
    std::cerr << "solve_host_bench: " << e.what() << '\n' << kUsage;
    return 2;
  }
  try {
    if (pscr::cuda::device_count() == 0) throw pscr::LibraryError("no CUDA device");
    cudaDeviceProp prop{};
    PSCR_CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
    std::ofstream csv(argv[1]);
    if (!csv) throw pscr::OutputError(std::string("cannot write ") + argv[1]);
    csv << kHeader;
    bench_runtime(reps, calls, prop.name, csv);
    std::vector<Case> cases(std::begin(kCases), std::end(kCases));
    if (goal_shapes)
      for (const pscr::bench::Shape& shape : pscr::bench::kGoalShapes)
        for (bool complex : {false, true})
          for (bool interleaved : {false, true})
            cases.push_back({complex, interleaved, shape.n, shape.batch});
    for (const Case& c : cases) {
      if (c.complex)
        bench_solve<std::complex<double>>(c, reps, calls, prop.name, csv);
      else
        bench_solve<double>(c, reps, calls, prop.name, csv);
    }
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "solve_host_bench: " << e.what() << '\n';
    return 1;
  }
}
