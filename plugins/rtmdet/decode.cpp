#include "decode.hpp"

#include <torch/torch.h>

#include <libreyolo/sdk/losses/anchors.hpp>

#include <stdexcept>
#include <string>

namespace libreyolo::families::rtmdet {

namespace {

constexpr size_t kLevels = 3;

void check_outputs(const std::vector<torch::Tensor>& outputs, int64_t num_classes) {
  if (outputs.size() != 2 * kLevels)
    throw std::invalid_argument("RTMDet decode: expected 6 outputs (cls P3..P5, reg P3..P5), got " +
                                std::to_string(outputs.size()));
  for (size_t l = 0; l < kLevels; ++l) {
    const auto& cls = outputs[l];
    const auto& reg = outputs[kLevels + l];
    if (cls.dim() != 4 || cls.size(1) != num_classes)
      throw std::invalid_argument("RTMDet decode: cls outputs must be [B, nc, H, W]");
    if (reg.dim() != 4 || reg.size(1) != 4 || reg.size(0) != cls.size(0) || reg.size(2) != cls.size(2) ||
        reg.size(3) != cls.size(3))
      throw std::invalid_argument("RTMDet decode: reg outputs must be [B, 4, H, W] like their level's cls");
  }
}

// [B, C, H, W] -> [B, H*W, C] float32.
torch::Tensor flatten_level(const torch::Tensor& level) {
  return level.to(torch::kFloat32).flatten(2).transpose(1, 2);
}

}  // namespace

torch::Tensor keep_top_scores(const torch::Tensor& scores, int64_t k) {
  const auto flat = scores.reshape({scores.size(0), -1});
  if (flat.size(1) <= k) return scores;
  const auto top = flat.topk(k, /*dim=*/1, /*largest=*/true, /*sorted=*/false);
  return torch::zeros_like(flat).scatter_(1, std::get<1>(top), std::get<0>(top)).view(scores.sizes());
}

sdk::Candidates decode_outputs(const std::vector<torch::Tensor>& outputs, int64_t num_classes, int64_t nms_pre,
                               const std::array<int64_t, 3>& strides) {
  check_outputs(outputs, num_classes);
  const std::vector<torch::Tensor> cls(outputs.begin(), outputs.begin() + kLevels);
  const auto priors = sdk::losses::make_anchors(cls, {strides.begin(), strides.end()}, /*offset=*/0.0).points;

  std::vector<torch::Tensor> scores, distances;
  for (size_t l = 0; l < kLevels; ++l) {
    scores.push_back(keep_top_scores(torch::sigmoid(flatten_level(cls[l])), nms_pre));
    distances.push_back(flatten_level(outputs[kLevels + l]));
  }
  const auto d = torch::cat(distances, 1);  // [B, N, 4] left, top, right, bottom
  const auto x = priors.select(1, 0), y = priors.select(1, 1);
  const auto width = static_cast<double>(cls[0].size(3) * strides[0]);
  const auto height = static_cast<double>(cls[0].size(2) * strides[0]);
  const auto boxes = torch::stack({(x - d.select(2, 0)).clamp(0.0, width), (y - d.select(2, 1)).clamp(0.0, height),
                                   (x + d.select(2, 2)).clamp(0.0, width), (y + d.select(2, 3)).clamp(0.0, height)},
                                  2);
  return {boxes, torch::cat(scores, 1)};
}

}  // namespace libreyolo::families::rtmdet
