// Builds whose LibTorch has CUDA: side_by_side's side streams (side_streams.hpp).
//
// The streams are our own (cudaStreamCreateWithPriority), not PyTorch's pool: a pool stream is
// handed round-robin to whoever asks, the loader's upload among them, and another thread's work
// on a stream that a recorded graph forks to would be recorded into the graph. They have the
// highest priority, as the whole-step graph's own stream does: a branch is as much on the step's
// critical path as the branch beside it.
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#include <cuda_runtime_api.h>

#include <array>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "libreyolo/sdk/cuda/ordering_event.hpp"
#include "side_streams.hpp"

namespace libreyolo::sdk {
namespace {

// How many branches of one call run on streams of their own; later ones share them in turn.
constexpr std::size_t kSideStreams = 5;
using SideStreams = std::array<cudaStream_t, kSideStreams>;

std::mutex streams_mutex;
std::map<int, SideStreams> streams_by_device;  // guarded by streams_mutex; never destroyed

void check_cuda(cudaError_t status, const char* what) {
  if (status != cudaSuccess)
    throw std::runtime_error(std::string("side_by_side: ") + what + " failed: " + cudaGetErrorString(status));
}

SideStreams create_streams(int device) {
  const c10::cuda::CUDAGuard on_device(static_cast<c10::DeviceIndex>(device));
  int least = 0, greatest = 0;
  check_cuda(cudaDeviceGetStreamPriorityRange(&least, &greatest), "cudaDeviceGetStreamPriorityRange");
  SideStreams streams{};
  for (auto& stream : streams)
    check_cuda(cudaStreamCreateWithPriority(&stream, cudaStreamNonBlocking, greatest), "cudaStreamCreateWithPriority");
  return streams;
}

c10::cuda::CUDAStream side_stream(int device, std::size_t branch) {
  const std::lock_guard<std::mutex> lock(streams_mutex);
  const auto found = streams_by_device.find(device);
  if (found == streams_by_device.end()) throw std::logic_error("side_by_side: no side streams on this device (permit_branch_streams)");
  return c10::cuda::getStreamFromExternal(found->second[(branch - 1) % kSideStreams], static_cast<c10::DeviceIndex>(device));
}

// The caller's stream waits for every side stream a call started: join() on the way out, the
// destructor where a branch threw (a recording must end with every forked stream joined).
class Joins {
 public:
  explicit Joins(cudaStream_t main) : main_(main) {}
  ~Joins() {
    try {
      join();
    } catch (...) {
      // Already unwinding from the branch's own error: that one is the message to keep.
    }
  }
  Joins(const Joins&) = delete;
  Joins& operator=(const Joins&) = delete;
  void started(cudaStream_t stream) { started_.push_back(stream); }
  void join() {
    for (const auto stream : started_) {
      cuda::OrderingEvent done;
      done.record(stream);
      done.block(main_);
    }
    started_.clear();
  }

 private:
  cudaStream_t main_;
  std::vector<cudaStream_t> started_;
};

void record_on(const std::vector<torch::Tensor>& tensors, c10::cuda::CUDAStream stream) {
  for (const auto& tensor : tensors)
    if (tensor.defined() && tensor.is_cuda()) tensor.record_stream(stream);
}

}  // namespace

std::string side_streams_unavailable() { return ""; }

void make_side_streams(int device) {
  const std::lock_guard<std::mutex> lock(streams_mutex);
  if (streams_by_device.count(device) == 0) streams_by_device.emplace(device, create_streams(device));
}

std::vector<torch::Tensor> run_on_side_streams(int device, const std::vector<torch::Tensor>& inputs,
                                               const std::vector<Branch>& branches) {
  const auto main = c10::cuda::getCurrentCUDAStream(static_cast<c10::DeviceIndex>(device));
  std::vector<torch::Tensor> outputs(branches.size());
  cuda::OrderingEvent inputs_made;
  inputs_made.record(main.stream());
  Joins joins(main.stream());
  for (std::size_t i = 1; i < branches.size(); ++i) {
    const auto side = side_stream(device, i);
    inputs_made.block(side.stream());
    joins.started(side.stream());
    record_on(inputs, side);
    const c10::cuda::CUDAStreamGuard on_side(side);
    outputs[i] = branches[i]();
  }
  outputs[0] = branches[0]();
  joins.join();
  for (std::size_t i = 1; i < outputs.size(); ++i) record_on({outputs[i]}, main);
  return outputs;
}

}  // namespace libreyolo::sdk
