#pragma once
// For GPU cases that compare a family's training pass under two fused_kernels settings: two seeded
// copies of the model, one pass each under float16 autocast with deterministic cuDNN (the same
// images and loss weights), one under each setting; the kept tensors (the loss first, then every
// gradient) of both, or how many of them differ, checked `passes` times in a row (the second pass
// sees moved BatchNorm statistics).
#include <torch/torch.h>

#include <algorithm>
#include <cstddef>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "../deterministic_cudnn.hpp"
#include "../gpu_training_pass.hpp"
#include "../model_on_gpu.hpp"
#include "fused_test_support.hpp"

namespace libreyolo::test {

struct PolicySetting {
  sdk::FusedKernels policy;
  std::string names;
};

// The two models, their shared input and loss weights, and what each pass kept.
template <typename Detector>
class PassPair {
 public:
  explicit PassPair(const std::string& size)
      : reference_(model_on_gpu<Detector>(size)),
        model_(model_on_gpu<Detector>(size)),
        images_(torch::rand({4, 3, 256, 256}, kCudaZero).contiguous(torch::MemoryFormat::ChannelsLast)),
        weights_(output_weights(*model_, images_)),
        expected(kept_for(*reference_)),
        kept(kept_for(*model_)) {}

  void run(const PolicySetting& without, const PolicySetting& with) {
    {
      const PolicyGuard first(without.policy, without.names);
      autocast_pass(*reference_, images_, weights_, expected);
    }
    const PolicyGuard second(with.policy, with.names);
    autocast_pass(*model_, images_, weights_, kept);
  }

 private:
  DeterministicCudnn deterministic_;
  std::shared_ptr<Detector> reference_, model_;
  torch::Tensor images_;
  std::vector<torch::Tensor> weights_;

 public:
  std::vector<torch::Tensor> expected, kept;
};

template <typename Detector>
void check_passes_equal(const std::string& size, const PolicySetting& without, const PolicySetting& with,
                        int passes = 1) {
  PassPair<Detector> pair(size);
  for (int i = 0; i < passes; ++i) {
    CAPTURE(i);
    pair.run(without, with);
    CHECK(differing(pair.expected, pair.kept) == 0);
  }
}

// One pass each, for settings whose passes are not bit for bit: {under without, under with}.
template <typename Detector>
std::pair<std::vector<torch::Tensor>, std::vector<torch::Tensor>> one_pass_each(const std::string& size,
                                                                                const PolicySetting& without,
                                                                                const PolicySetting& with) {
  PassPair<Detector> pair(size);
  pair.run(without, with);
  return {pair.expected, pair.kept};
}

// The largest relative difference among two passes' gradients (everything after the loss), the
// parameters the loss does not reach left out: for settings that round differently.
inline double largest_gradient_difference(const std::vector<torch::Tensor>& expected,
                                          const std::vector<torch::Tensor>& kept) {
  double largest = 0;
  for (std::size_t i = 1; i < kept.size() && i < expected.size(); ++i) {
    if (expected[i].abs().max().item<double>() == 0) continue;
    largest = std::max(largest, relative_difference(kept[i], expected[i]));
  }
  return largest;
}

}  // namespace libreyolo::test
