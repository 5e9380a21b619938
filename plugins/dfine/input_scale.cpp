#include "input_scale.hpp"

#include <torch/torch.h>

namespace libreyolo::dfine {

torch::Tensor xywh_scale(int64_t height, int64_t width, const torch::TensorOptions& options) {
  auto scale = torch::full({2, 2}, static_cast<double>(width), options);
  scale.select(1, 1).fill_(static_cast<double>(height));
  return scale.view({4});
}

}  // namespace libreyolo::dfine
