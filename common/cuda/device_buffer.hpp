#pragma once
/// @file RAII owners of device memory and streams. Host C++ (no CUDA syntax).

#include <cuda_runtime_api.h>

#include <cstddef>
#include <string>
#include <utility>

#include "common/cuda/check.hpp"
#include "common/error.hpp"

namespace pscr::cuda {

/// @brief A device array of `size()` elements of T, freed on destruction. Move-only.
template <class T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t count) : size_(count) {
    if (count > 0) PSCR_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&ptr_), count * sizeof(T)));
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer(DeviceBuffer&& other) noexcept
      : ptr_(std::exchange(other.ptr_, nullptr)), size_(std::exchange(other.size_, 0)) {}
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept {
    if (this != &other) {
      release();
      ptr_ = std::exchange(other.ptr_, nullptr);
      size_ = std::exchange(other.size_, 0);
    }
    return *this;
  }
  ~DeviceBuffer() { release(); }

  T* data() { return ptr_; }
  const T* data() const { return ptr_; }
  std::size_t size() const { return size_; }
  std::size_t bytes() const { return size_ * sizeof(T); }

  /// Copies the first `count` (default: all) elements from host memory and waits until they
  /// have landed. A plain pageable cudaMemcpy may return before its DMA completes, and work on a
  /// non-blocking stream does not wait for it: the copy is synchronized explicitly, so the data
  /// is in place for any stream afterwards.
  void copy_from_host(const T* host) { copy_from_host(host, size_); }
  void copy_from_host(const T* host, std::size_t count) {
    copy(ptr_, host, count, cudaMemcpyHostToDevice);
  }
  /// Copies `size()` elements to host memory (synchronous, as copy_from_host).
  void copy_to_host(T* host) const { copy(host, ptr_, size_, cudaMemcpyDeviceToHost); }

 private:
  void copy(T* dst, const T* src, std::size_t count, cudaMemcpyKind kind) const {
    if (count > size_)
      throw LibraryError("DeviceBuffer: copy of " + std::to_string(count) + " elements into " +
                         std::to_string(size_));
    if (count == 0) return;
    PSCR_CUDA_CHECK(cudaMemcpyAsync(dst, src, count * sizeof(T), kind, cudaStreamLegacy));
    PSCR_CUDA_CHECK(cudaStreamSynchronize(cudaStreamLegacy));
  }
  void release() noexcept {
    if (ptr_ != nullptr) cudaFree(ptr_);
    ptr_ = nullptr;
    size_ = 0;
  }
  T* ptr_ = nullptr;
  std::size_t size_ = 0;
};

/// @brief An owned CUDA stream.
class Stream {
 public:
  Stream() { PSCR_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking)); }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  ~Stream() {
    if (stream_ != nullptr) cudaStreamDestroy(stream_);
  }
  cudaStream_t get() const { return stream_; }
  void synchronize() const { PSCR_CUDA_CHECK(cudaStreamSynchronize(stream_)); }

 private:
  cudaStream_t stream_ = nullptr;
};

/// @brief An owned CUDA event, for timing on a stream.
class Event {
 public:
  Event() { PSCR_CUDA_CHECK(cudaEventCreate(&event_)); }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  ~Event() {
    if (event_ != nullptr) cudaEventDestroy(event_);
  }
  void record(cudaStream_t stream) { PSCR_CUDA_CHECK(cudaEventRecord(event_, stream)); }
  void synchronize() const { PSCR_CUDA_CHECK(cudaEventSynchronize(event_)); }
  /// Milliseconds from `start` to this event (both recorded and complete).
  float elapsed_ms_since(const Event& start) const {
    float ms = 0.0f;
    PSCR_CUDA_CHECK(cudaEventElapsedTime(&ms, start.event_, event_));
    return ms;
  }

 private:
  cudaEvent_t event_ = nullptr;
};

}  // namespace pscr::cuda
