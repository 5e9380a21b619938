#pragma once
// For GPU cases that show a fused_kernels setting leaves a family's training pass bit for bit:
// two seeded copies of the model, one pass each under float16 autocast with deterministic cuDNN
// (the same images and loss weights), one under each setting; how many kept tensors (the loss,
// every gradient) differ, checked `passes` times in a row (the second pass sees moved BatchNorm
// statistics).
#include <torch/torch.h>

#include <string>

#include "../deterministic_cudnn.hpp"
#include "../gpu_training_pass.hpp"
#include "../model_on_gpu.hpp"
#include "fused_test_support.hpp"

namespace libreyolo::test {

struct PolicySetting {
  sdk::FusedKernels policy;
  std::string names;
};

template <typename Detector>
void check_passes_equal(const std::string& size, const PolicySetting& without, const PolicySetting& with,
                        int passes = 1) {
  DeterministicCudnn deterministic;
  auto reference = model_on_gpu<Detector>(size);
  auto model = model_on_gpu<Detector>(size);
  const auto images = torch::rand({4, 3, 256, 256}, kCudaZero).contiguous(torch::MemoryFormat::ChannelsLast);
  const auto weights = output_weights(*model, images);
  auto expected = kept_for(*reference), kept = kept_for(*model);
  for (int i = 0; i < passes; ++i) {
    CAPTURE(i);
    {
      const PolicyGuard first(without.policy, without.names);
      autocast_pass(*reference, images, weights, expected);
    }
    const PolicyGuard second(with.policy, with.names);
    autocast_pass(*model, images, weights, kept);
    CHECK(differing(expected, kept) == 0);
  }
}

}  // namespace libreyolo::test
