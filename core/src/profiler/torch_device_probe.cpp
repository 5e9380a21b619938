#include "libreyolo/core/profiler/torch_device_probe.hpp"

#include <torch/cuda.h>

#include "libreyolo/core/profiler/allocator_snapshot.hpp"
#include "libreyolo/core/profiler/kernel_recorder.hpp"

namespace libreyolo::core::profiler {
namespace {

class CpuProbe final : public DeviceProbe {
 public:
  bool accelerator() const override { return false; }
  std::string description() const override { return "cpu"; }
  void synchronize() override {}  // CPU work is done when the call returns
  void start_kernel_recording() override {}
  std::vector<DeviceEvent> stop_kernel_recording() override { return {}; }
  AllocatorSnapshot allocator() const override { return {}; }
};

class CudaProbe final : public DeviceProbe {
 public:
  explicit CudaProbe(int index) : index_(index) {}
  bool accelerator() const override { return true; }
  std::string description() const override {
    const auto name = cuda_device_name(index_);
    return "cuda:" + std::to_string(index_) + (name.empty() ? "" : " (" + name + ")");
  }
  void synchronize() override { torch::cuda::synchronize(index_); }
  void start_kernel_recording() override {
    recorder_ = std::make_unique<KernelRecorder>();
    recorder_->start();
  }
  std::vector<DeviceEvent> stop_kernel_recording() override {
    if (!recorder_) return {};
    auto events = recorder_->stop();
    recorder_.reset();
    return events;
  }
  AllocatorSnapshot allocator() const override { return cuda_allocator_snapshot(index_); }

 private:
  int index_;
  std::unique_ptr<KernelRecorder> recorder_;
};

}  // namespace

std::unique_ptr<DeviceProbe> make_device_probe(const c10::Device& device) {
  if (device.is_cuda()) return std::make_unique<CudaProbe>(device.has_index() ? device.index() : 0);
  return std::make_unique<CpuProbe>();
}

}  // namespace libreyolo::core::profiler
