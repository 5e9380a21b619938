#pragma once
// A criterion turns network outputs and padded targets into a loss. It always runs eager
// (assignment branches on data) but must still avoid host synchronisation: no .item(), no
// nonzero() on hot paths. Components are returned as device tensors; the trainer reads them
// only every log_interval steps.

#include <torch/types.h>

#include <string>
#include <utility>
#include <vector>

#include "libreyolo/sdk/export.hpp"
#include "libreyolo/sdk/targets.hpp"

namespace libreyolo::sdk {

struct LossOutput {
  torch::Tensor total;  // scalar float32, the value to backpropagate (not scaled by world size)
  // Named scalar components for logging, e.g. {"box", ...}, {"cls", ...}, {"dfl", ...}.
  std::vector<std::pair<std::string, torch::Tensor>> components;
};

class LIBREYOLO_SDK_API Criterion {
 public:
  virtual ~Criterion();
  // `outputs` are the detector's outputs after forward_remainder; `images` is the input
  // batch (for its shape). Loss math runs in float32 whatever the autocast state.
  virtual LossOutput operator()(const std::vector<torch::Tensor>& outputs,
                                const Targets& targets, const torch::Tensor& images) = 0;
  // The component names, in order, known before the first step (for results.csv headers).
  virtual std::vector<std::string> component_names() const = 0;
};

}  // namespace libreyolo::sdk
