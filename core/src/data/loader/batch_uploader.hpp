#pragma once
// Moves a host batch to the training device. On CUDA the copy runs on a side stream from
// pinned memory (non_blocking), the training stream waits on an event instead of the host, and
// the fence tells the loader when the pinned buffer may be refilled. On the CPU it copies.
// Private to the loader (core/src/data/loader/).

#include <torch/types.h>

#include <memory>

namespace libreyolo::core::data {

class UploadFence {
 public:
  virtual ~UploadFence() = default;
  virtual void wait() = 0;  // returns once the host buffers of that upload may be reused
};

struct DeviceTensors {
  torch::Tensor images;
  torch::Tensor targets;
  torch::Tensor counts;
};

class BatchUploader {
 public:
  virtual ~BatchUploader() = default;
  // Whether host buffers should be allocated in pinned (page-locked) memory.
  virtual bool wants_pinned_memory() const = 0;
  // True when upload() returns the host tensors themselves: the slot stays in use until the
  // caller asks for the next batch.
  virtual bool hands_out_host_memory() const { return false; }
  // `fence` is set when the host tensors stay in use after this call returns.
  virtual DeviceTensors upload(const DeviceTensors& host, std::shared_ptr<UploadFence>& fence) = 0;
};

// `reuse_host_memory`: on the CPU, hand out the host tensors instead of copies.
std::unique_ptr<BatchUploader> make_batch_uploader(const torch::Device& device, bool reuse_host_memory);

#ifdef LIBREYOLO_WITH_CUDA
std::unique_ptr<BatchUploader> make_cuda_batch_uploader(const torch::Device& device);
#endif

}  // namespace libreyolo::core::data
