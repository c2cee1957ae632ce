// What allow_shared and resident_blocks ask of the driver, kept per CUDA context: the dynamic
// shared memory each kernel is allowed and each (kernel, threads, shared memory)'s resident
// blocks. A context, not a device, keys them, because a kernel's attributes belong to the context
// (cudaDeviceReset makes a new one with none set); its ID comes from the driver (cuCtxGetId,
// through the runtime's entry points, so the library does not link the driver itself). Where there
// is no context ID, every call asks the driver as before.
#include "common/cuda/launch.cuh"

#include <cuda.h>
#include <cudaTypedefs.h>

#include <algorithm>
#include <map>
#include <mutex>
#include <tuple>
#include <utility>

namespace pscr::cuda::detail {
namespace {

/// The driver's cuCtxGetCurrent and cuCtxGetId, null where the driver lacks them.
struct ContextEntries {
  PFN_cuCtxGetCurrent_v4000 current = nullptr;
  PFN_cuCtxGetId_v12000 id = nullptr;
};

template <class Fn>
Fn driver_entry(const char* symbol, unsigned version) {
  void* fn = nullptr;
  cudaDriverEntryPointQueryResult found{};
  if (cudaGetDriverEntryPointByVersion(symbol, &fn, version, cudaEnableDefault, &found) !=
          cudaSuccess ||
      found != cudaDriverEntryPointSuccess) {
    (void)cudaGetLastError();  // a missing entry point is not the caller's error
    return nullptr;
  }
  return reinterpret_cast<Fn>(fn);
}

/// ID of the calling thread's current context; 0 where there is none (no context yet) or the
/// driver cannot tell.
unsigned long long current_context() {
  static const ContextEntries entries{
      driver_entry<PFN_cuCtxGetCurrent_v4000>("cuCtxGetCurrent", 4000),
      driver_entry<PFN_cuCtxGetId_v12000>("cuCtxGetId", 12000)};
  if (entries.current == nullptr || entries.id == nullptr) return 0;
  CUcontext context = nullptr;
  unsigned long long id = 0;
  if (entries.current(&context) != CUDA_SUCCESS || context == nullptr ||
      entries.id(context, &id) != CUDA_SUCCESS)
    return 0;
  return id;
}

struct LaunchState {
  std::mutex mutex;
  /// (context, kernel) → the largest dynamic shared memory set.
  std::map<std::pair<unsigned long long, const void*>, std::size_t> allowed;
  /// (context, kernel, threads, shared memory) → resident blocks on the device.
  std::map<std::tuple<unsigned long long, const void*, int, std::size_t>, index_t> resident;
};

LaunchState& launch_state() {
  static LaunchState state;
  return state;
}

void set_shared_limit(const void* kernel, std::size_t bytes) {
  PSCR_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                       static_cast<int>(bytes)));
}

index_t query_resident_blocks(const void* kernel, int threads, std::size_t smem) {
  int per_sm = 0;
  PSCR_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, smem));
  return static_cast<index_t>(std::max(per_sm, 1)) * multiprocessors();
}

/// allow_shared_bytes in `context` (current_context's ID, asked for once per launch).
void allow_shared_bytes_in(unsigned long long context, const void* kernel, std::size_t bytes) {
  if (context == 0) return set_shared_limit(kernel, bytes);
  LaunchState& state = launch_state();
  const std::lock_guard<std::mutex> lock(state.mutex);
  std::size_t& allowed = state.allowed[{context, kernel}];
  if (allowed >= bytes) return;
  set_shared_limit(kernel, bytes);  // under the lock: no thread lowers what another raised
  allowed = bytes;
}

}  // namespace

void allow_shared_bytes(const void* kernel, std::size_t bytes) {
  allow_shared_bytes_in(current_context(), kernel, bytes);
}

index_t resident_blocks_of(const void* kernel, int threads, std::size_t smem) {
  const unsigned long long context = current_context();
  if (smem > kDefaultSharedBytes) allow_shared_bytes_in(context, kernel, smem);
  if (context == 0) return query_resident_blocks(kernel, threads, smem);
  LaunchState& state = launch_state();
  const auto key = std::make_tuple(context, kernel, threads, smem);
  {
    const std::lock_guard<std::mutex> lock(state.mutex);
    const auto it = state.resident.find(key);
    if (it != state.resident.end()) return it->second;
  }
  const index_t blocks = query_resident_blocks(kernel, threads, smem);
  const std::lock_guard<std::mutex> lock(state.mutex);
  return state.resident.emplace(key, blocks).first->second;
}

}  // namespace pscr::cuda::detail
