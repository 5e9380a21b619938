#include "batch_uploader.hpp"

#include <torch/torch.h>

#include "libreyolo/core/error.hpp"

namespace libreyolo::core::data {
namespace {

// CPU training: the trainer gets its own copy so the loader can refill the buffer at once.
class CpuBatchUploader : public BatchUploader {
 public:
  bool wants_pinned_memory() const override { return false; }
  DeviceTensors upload(const DeviceTensors& host, std::shared_ptr<UploadFence>& fence) override {
    fence.reset();
    return {host.images.clone(), host.targets.clone(), host.counts.clone()};
  }
};

}  // namespace

std::unique_ptr<BatchUploader> make_batch_uploader(const torch::Device& device) {
  if (device.is_cpu()) return std::make_unique<CpuBatchUploader>();
#ifdef LIBREYOLO_WITH_CUDA
  if (device.is_cuda()) return make_cuda_batch_uploader(device);
#endif
  throw Error("cannot load batches onto device " + device.str(),
              "this build of libreyolo-host supports cpu" +
                  std::string(
#ifdef LIBREYOLO_WITH_CUDA
                      " and cuda"
#else
                      " only (built against a LibTorch without CUDA)"
#endif
                      ),
              "use device=cpu, or build the cuda preset");
}

}  // namespace libreyolo::core::data
