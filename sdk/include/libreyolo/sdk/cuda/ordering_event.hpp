#pragma once
// A CUDA event that orders streams only (no timing: the cheapest kind). A stream that blocks on it
// runs nothing queued after the block until the work queued before the last record has run; while
// a graph is recorded, the pair becomes an edge of the graph. The CUDA runtime's own calls, so the
// same code serves every LibTorch version.
//
// CUDA builds only: include it from files compiled where LibTorch has CUDA (the SDK's side streams,
// the host's weight-gradient stream).

#include <cuda_runtime_api.h>

#include <stdexcept>
#include <string>

namespace libreyolo::sdk::cuda {

class OrderingEvent {
 public:
  OrderingEvent() { check(cudaEventCreateWithFlags(&event_, cudaEventDisableTiming), "cudaEventCreateWithFlags"); }
  ~OrderingEvent() { cudaEventDestroy(event_); }  // CUDA releases it once pending work is done
  OrderingEvent(const OrderingEvent&) = delete;
  OrderingEvent& operator=(const OrderingEvent&) = delete;

  void record(cudaStream_t producer) { check(cudaEventRecord(event_, producer), "cudaEventRecord"); }
  void block(cudaStream_t waiter) const { check(cudaStreamWaitEvent(waiter, event_, 0), "cudaStreamWaitEvent"); }

 private:
  static void check(cudaError_t status, const char* what) {
    if (status != cudaSuccess)
      throw std::runtime_error(std::string("CUDA stream ordering: ") + what + " failed: " + cudaGetErrorString(status));
  }
  cudaEvent_t event_ = nullptr;
};

}  // namespace libreyolo::sdk::cuda
