// Dependent-chain latency of the operations the tridiagonal kernels chain row by row (FP64
// arithmetic, the reciprocal `recip` of tridiag/cuda/complex.cuh itself, a shuffle of a double, a
// shared load): one warp runs 4096 steps of each chain, each step waiting on the one before, and
// the cycles between clock64() reads over the steps are printed, for the chain models of
// docs/tridiag-performance.md (results: bench/results/latency-probe-*.txt).
//
// Usage: latency_probe [--help]
// Prints the device's name, then one line per operation: its name and the cycles per dependent
// step (the second of two runs; the first loads the module). Exit codes: 0 measured, 1 a CUDA
// error, 2 bad arguments.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstring>
#include <utility>

#include "tridiag/cuda/complex.cuh"

namespace {

constexpr int kSteps = 4096;

// The hardware estimate alone (the first instruction of recip).
__device__ __forceinline__ double rcp_approx(double x) {
  double r;
  asm volatile("rcp.approx.ftz.f64 %0, %1;" : "=d"(r) : "d"(x));
  return r;
}

template <int Op>
__global__ void chain(double seed, double* out, long long* cycles) {
  __shared__ double sh[64];
  sh[threadIdx.x] = seed;
  sh[threadIdx.x + 32] = seed;
  __syncwarp();
  double x = seed + threadIdx.x * 1e-9, y = 1.0000001;
  int idx = threadIdx.x;
  const long long t0 = clock64();
#pragma unroll 16
  for (int i = 0; i < kSteps; ++i) {
    if constexpr (Op == 0) x = fma(x, y, 1e-30);
    if constexpr (Op == 1) x = x * y;
    if constexpr (Op == 2) x = x + y;
    if constexpr (Op == 3) x = rcp_approx(x);
    if constexpr (Op == 4) x = pscr::tridiag::cuda::detail::recip(x);
    if constexpr (Op == 5) x = __shfl_sync(~0u, x, (threadIdx.x + 1) & 31);
    if constexpr (Op == 6) idx = static_cast<int>(sh[idx & 63]) & 63;
  }
  const long long t1 = clock64();
  out[threadIdx.x] = x + idx;
  if (threadIdx.x == 0) *cycles = t1 - t0;
}

constexpr int kOps = 7;
const char* const kNames[kOps] = {"DFMA",
                                  "DMUL",
                                  "DADD",
                                  "rcp.approx.f64 (MUFU.RCP64H)",
                                  "recip (MUFU + 3 DFMA)",
                                  "shfl of a double (2 SHFL)",
                                  "LDS.64 + F2I (pointer chase)"};

bool check(cudaError_t e) {
  if (e == cudaSuccess) return true;
  std::fprintf(stderr, "latency_probe: CUDA error: %s\n", cudaGetErrorString(e));
  return false;
}

// Runs every chain once, its cycles into c[Op]; false at the first CUDA error.
template <int... Ops>
bool run_all(double* out, long long* cyc, long long (&c)[kOps],
             std::integer_sequence<int, Ops...>) {
  return ((chain<Ops><<<1, 32>>>(1.0, out, cyc),
           check(cudaMemcpy(&c[Ops], cyc, sizeof c[Ops], cudaMemcpyDeviceToHost))) &&
          ...);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1) {
    const bool help = std::strcmp(argv[1], "--help") == 0 || std::strcmp(argv[1], "-h") == 0;
    std::fprintf(help ? stdout : stderr,
                 "usage: latency_probe [--help]\nPrints the cycles per dependent step of "
                 "FP64 and warp operations on GPU 0 (see the source's comment).\n");
    return help ? 0 : 2;
  }
  double* out = nullptr;
  long long* cyc = nullptr;
  cudaDeviceProp p{};
  if (!check(cudaGetDeviceProperties(&p, 0)) || !check(cudaMalloc(&out, 64 * sizeof(double))) ||
      !check(cudaMalloc(&cyc, sizeof(long long))))
    return 1;
  std::printf("%s\n", p.name);
  long long c[kOps] = {};
  for (int rep = 0; rep < 2; ++rep)
    if (!run_all(out, cyc, c, std::make_integer_sequence<int, kOps>{})) return 1;
  for (int k = 0; k < kOps; ++k)
    std::printf("%-32s %6.1f cycles per dependent step\n", kNames[k],
                static_cast<double>(c[k]) / kSteps);
  return 0;
}
