#include "libreyolo/sdk/backbones/backbone.hpp"

#include <stdexcept>

namespace libreyolo::sdk::backbones {

MultiScaleBackbone::~MultiScaleBackbone() = default;

void check_stage_options(const std::string& backbone, const std::vector<int64_t>& idx, int freeze_at) {
  if (idx.empty()) {
    throw std::invalid_argument(backbone + ": return_idx is empty; pass the stages to return, e.g. {1, 2, 3}");
  }
  for (size_t i = 0; i < idx.size(); ++i) {
    if (idx[i] < 0 || idx[i] > 3 || (i > 0 && idx[i] <= idx[i - 1]))
      throw std::invalid_argument(backbone + ": return_idx must be strictly increasing stage indices in [0, 3] (the "
                                             "outputs come in stage order), got entry " +
                                  std::to_string(idx[i]) + " at position " + std::to_string(i));
  }
  if (freeze_at < -1)
    throw std::invalid_argument(backbone + ": freeze_at must be -1 (nothing), 0 (the stem) or k > 0 (the stem and k "
                                           "stages), got " +
                                std::to_string(freeze_at));
}

void freeze_parameters(torch::nn::Module& module) {
  for (auto& parameter : module.parameters()) parameter.set_requires_grad(false);
}

}  // namespace libreyolo::sdk::backbones
