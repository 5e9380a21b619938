#pragma once
// BatchNorm's step counter (num_batches_tracked), moved in one kernel a step instead of one a layer.
//
// A training forward adds 1 to every BatchNorm layer's num_batches_tracked: one tiny kernel per
// layer (YOLOv9-t: 221 a step, about a twentieth of its kernels, each costing the GPU a launch
// gap inside a CUDA graph as outside). Where a layer's momentum is set, the counter only counts
// (the running statistics do not read it), so the add can wait until the forward is done.
// Inside a BatchCountDeferral's scope the SDK's BatchNorm layers hand their counters to it, and
// flush() adds 1 to all of them with one multi-tensor operation. The host opens one around each
// training forward of the capturable region and flushes it inside that region, so a CUDA graph
// records the flush too. Outside any scope (a family's own code, evaluation, tools) layers count
// at once, as torch::nn::BatchNorm2d does. Layers without momentum (cumulative averages read
// the count) always count at once.

#include <ATen/core/Tensor.h>

#include <vector>

#include "libreyolo/sdk/export.hpp"

namespace libreyolo::sdk {

class LIBREYOLO_SDK_API BatchCountDeferral {
 public:
  BatchCountDeferral();   // becomes this thread's current deferral (scopes nest)
  ~BatchCountDeferral();  // flushes what is still pending, then restores the enclosing scope
  BatchCountDeferral(const BatchCountDeferral&) = delete;
  BatchCountDeferral& operator=(const BatchCountDeferral&) = delete;

  // Adds 1 to every counter handed over since the last flush (a counter handed over twice gets
  // 2), in one multi-tensor add where they share a device and type.
  void flush();
  std::size_t pending() const { return pending_.size(); }

 private:
  friend LIBREYOLO_SDK_API void count_batch(const at::Tensor& counter);
  std::vector<at::Tensor> pending_;
  BatchCountDeferral* enclosing_ = nullptr;
};

// Adds 1 to `counter` now, or hands it to this thread's current deferral.
LIBREYOLO_SDK_API void count_batch(const at::Tensor& counter);
// Whether a deferral is open on this thread.
LIBREYOLO_SDK_API bool batch_counts_deferred();

}  // namespace libreyolo::sdk
