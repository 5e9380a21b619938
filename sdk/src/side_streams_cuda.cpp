// Builds whose LibTorch has CUDA: the side streams of side_by_side and ForkPoint
// (side_streams.hpp), chosen by SideStreamChoice (side_stream_choice.hpp says why and how).
//
// The streams are our own (cudaStreamCreateWithPriority), not PyTorch's pool: a pool stream is
// handed round-robin to whoever asks, the loader's upload among them, and another thread's work
// on a stream that a recorded graph forks to would be recorded into the graph. They have the
// highest priority, as the whole-step graph's own stream does: a branch is as much on the step's
// critical path as the branch beside it. They are made on first need (in the eager steps before a
// graph is recorded, which fork the same way) and kept for the process.
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#include <cuda_runtime_api.h>

#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "libreyolo/sdk/cuda/ordering_event.hpp"
#include "side_stream_choice.hpp"
#include "side_streams.hpp"

namespace libreyolo::sdk {
namespace {

// More side streams than that per device and a branch runs on the caller's stream. The YOLOs need
// five (the heads' towers beside the neck).
constexpr std::size_t kMostSideStreams = 16;

std::mutex streams_mutex;
std::map<int, SideStreamChoice> choices;  // guarded by streams_mutex; the streams are never destroyed

void check_cuda(cudaError_t status, const char* what) {
  if (status != cudaSuccess)
    throw std::runtime_error(std::string("side_by_side: ") + what + " failed: " + cudaGetErrorString(status));
}

cudaStream_t create_stream(int device) {
  const c10::cuda::CUDAGuard on_device(static_cast<c10::DeviceIndex>(device));
  int least = 0, greatest = 0;
  check_cuda(cudaDeviceGetStreamPriorityRange(&least, &greatest), "cudaDeviceGetStreamPriorityRange");
  cudaStream_t stream = nullptr;
  check_cuda(cudaStreamCreateWithPriority(&stream, cudaStreamNonBlocking, greatest), "cudaStreamCreateWithPriority");
  return stream;
}

SideStreamChoice& choice_of(int device) {  // the caller holds streams_mutex
  const auto found = choices.find(device);
  if (found == choices.end()) throw std::logic_error("side_by_side: no side streams on this device (permit_branch_streams)");
  return found->second;
}

cudaStream_t current_stream(int device) {
  return c10::cuda::getCurrentCUDAStream(static_cast<c10::DeviceIndex>(device)).stream();
}

void record_on(const std::vector<torch::Tensor>& tensors, cudaStream_t stream, int device) {
  const auto wrapped = c10::cuda::getStreamFromExternal(stream, static_cast<c10::DeviceIndex>(device));
  for (const auto& tensor : tensors)
    if (tensor.defined() && tensor.is_cuda()) tensor.record_stream(wrapped);
}

// `waiter` runs nothing queued after this until `producer` has run what it has now.
void order(cudaStream_t producer, cudaStream_t waiter) {
  cuda::OrderingEvent done;
  done.record(producer);
  done.block(waiter);
}

struct MarkedPoint {
  cuda::OrderingEvent event;
  SideStreamChoice::Point point{};
};

// The stream a branch from `point` runs on (made if needed), or null: run it on the caller's.
cudaStream_t take_stream(int device, const SideStreamChoice::Point& point) {
  const std::lock_guard<std::mutex> lock(streams_mutex);
  auto& choice = choice_of(device);
  const auto index = choice.choose(point);
  if (!index) return nullptr;
  if (*index == choice.streams()) choice.add(create_stream(device));
  choice.started(*index);
  return static_cast<cudaStream_t>(const_cast<void*>(choice.stream(*index)));
}

void note_joined(int device, cudaStream_t side, cudaStream_t into) {
  const std::lock_guard<std::mutex> lock(streams_mutex);
  auto& choice = choice_of(device);
  if (const auto index = choice.index_of(side)) choice.joined(*index, into);
}

}  // namespace

std::string side_streams_unavailable() { return ""; }

void make_side_streams(int device) {
  const std::lock_guard<std::mutex> lock(streams_mutex);
  choices.try_emplace(device, kMostSideStreams);
}

std::shared_ptr<void> mark_fork_point(int device) {
  auto marked = std::make_shared<MarkedPoint>();
  const auto on = current_stream(device);
  marked->event.record(on);
  const std::lock_guard<std::mutex> lock(streams_mutex);
  marked->point = choice_of(device).mark(on);
  return marked;
}

ForkedBranch fork_branch(int device, const std::shared_ptr<void>& point, const std::vector<torch::Tensor>& inputs,
                         const Branch& branch) {
  const auto& marked = *static_cast<const MarkedPoint*>(point.get());
  const auto side = take_stream(device, marked.point);
  if (side == nullptr) return {branch(), nullptr};  // no stream free of unrelated work: in order, here
  ForkedBranch forked;
  forked.stream = side;
  try {
    marked.event.block(side);
    record_on(inputs, side, device);
    const c10::cuda::CUDAStreamGuard on_side(c10::cuda::getStreamFromExternal(side, static_cast<c10::DeviceIndex>(device)));
    forked.output = branch();
  } catch (...) {
    try {
      join_branch(device, forked);  // a recording must end with the fork joined
    } catch (...) {
      // The branch's own error is the message to keep.
    }
    throw;
  }
  return forked;
}

void join_branch(int device, const ForkedBranch& forked) {
  const auto side = static_cast<cudaStream_t>(forked.stream);
  const auto current = current_stream(device);
  order(side, current);
  record_on({forked.output}, current, device);
  note_joined(device, side, current);
}

}  // namespace libreyolo::sdk
