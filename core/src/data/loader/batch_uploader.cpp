#include "batch_uploader.hpp"

#include <torch/torch.h>

#include "libreyolo/core/error.hpp"

namespace libreyolo::core::data {
namespace {

// CPU training: either a copy (the loader can refill the buffer at once) or the buffer itself
// (no copy; the slot is released when the caller asks for the next batch).
class CpuBatchUploader : public BatchUploader {
 public:
  explicit CpuBatchUploader(bool reuse) : reuse_(reuse) {}
  bool wants_pinned_memory() const override { return false; }
  bool hands_out_host_memory() const override { return reuse_; }
  DeviceTensors upload(const DeviceTensors& host, std::shared_ptr<UploadFence>& fence) override {
    fence.reset();
    if (reuse_) return host;
    return {host.images.clone(), host.targets.clone(), host.counts.clone()};
  }

 private:
  bool reuse_;
};

}  // namespace

std::unique_ptr<BatchUploader> make_batch_uploader(const torch::Device& device, bool reuse_host_memory) {
  if (device.is_cpu()) return std::make_unique<CpuBatchUploader>(reuse_host_memory);
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
