#pragma once
/// @file RAII owners of device memory and streams. Host C++ (no CUDA syntax).

#include <cuda_runtime_api.h>

#include <cstddef>
#include <utility>

#include "common/cuda/check.hpp"

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

  /// Copies `size()` elements from host memory (synchronous).
  void copy_from_host(const T* host) {
    if (size_ > 0) PSCR_CUDA_CHECK(cudaMemcpy(ptr_, host, bytes(), cudaMemcpyHostToDevice));
  }
  /// Copies `size()` elements to host memory (synchronous).
  void copy_to_host(T* host) const {
    if (size_ > 0) PSCR_CUDA_CHECK(cudaMemcpy(host, ptr_, bytes(), cudaMemcpyDeviceToHost));
  }

 private:
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
