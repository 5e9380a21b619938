// CUDA builds only (see core/CMakeLists.txt).
#include <ATen/cuda/CUDAEvent.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#include <torch/torch.h>

#include "batch_uploader.hpp"

namespace libreyolo::core::data {
namespace {

class CudaUploadFence : public UploadFence {
 public:
  at::cuda::CUDAEvent event;
  void wait() override { event.synchronize(); }
};

class CudaBatchUploader : public BatchUploader {
 public:
  explicit CudaBatchUploader(const torch::Device& device)
      : device_(device), copy_stream_(c10::cuda::getStreamFromPool(false, device.index())) {}

  bool wants_pinned_memory() const override { return true; }

  DeviceTensors upload(const DeviceTensors& host, std::shared_ptr<UploadFence>& fence) override {
    const auto training_stream = c10::cuda::getCurrentCUDAStream(device_.index());
    auto done = std::make_shared<CudaUploadFence>();
    DeviceTensors device;
    {
      c10::cuda::CUDAStreamGuard guard(copy_stream_);
      device.images = host.images.to(device_, /*non_blocking=*/true);
      device.targets = host.targets.to(device_, /*non_blocking=*/true);
      device.counts = host.counts.to(device_, /*non_blocking=*/true);
      done->event.record(copy_stream_);
    }
    // The training stream waits for the copy on the GPU; the host never blocks here.
    done->event.block(training_stream);
    // The tensors were allocated on the copy stream but are used on the training stream:
    // tell the caching allocator, or it could hand their memory out again too early.
    for (auto* t : {&device.images, &device.targets, &device.counts}) {
      t->record_stream(training_stream);
    }
    fence = done;
    return device;
  }

 private:
  torch::Device device_;
  c10::cuda::CUDAStream copy_stream_;
};

}  // namespace

std::unique_ptr<BatchUploader> make_cuda_batch_uploader(const torch::Device& device) {
  return std::make_unique<CudaBatchUploader>(device);
}

}  // namespace libreyolo::core::data
