#include "libreyolo/core/data/loader/network_input.hpp"

#include <torch/torch.h>

namespace libreyolo::core::data {

torch::Tensor to_network_input(const torch::Tensor& images_nhwc, const sdk::InputFormat& format,
                               torch::ScalarType dtype) {
  TORCH_CHECK(images_nhwc.dim() == 4 && images_nhwc.size(3) == 3,
              "to_network_input expects [B, H, W, 3], got ", images_nhwc.sizes());
  auto x = images_nhwc.to(dtype);  // one fused cast; everything after works in place
  if (format.channel_order == sdk::InputFormat::ChannelOrder::bgr) x = x.flip(-1);
  const bool has_mean = format.mean[0] != 0.f || format.mean[1] != 0.f || format.mean[2] != 0.f;
  const bool has_std = format.std[0] != 1.f || format.std[1] != 1.f || format.std[2] != 1.f;
  if (format.scale != 1.f) x.mul_(format.scale);
  if (has_mean || has_std) {
    const auto options = torch::TensorOptions().dtype(dtype).device(x.device());
    const auto mean = torch::tensor({format.mean[0], format.mean[1], format.mean[2]}).to(options);
    const auto std = torch::tensor({format.std[0], format.std[1], format.std[2]}).to(options);
    x.sub_(mean).div_(std);
  }
  // NHWC memory viewed as NCHW is exactly PyTorch's channels-last layout: no copy.
  return x.permute({0, 3, 1, 2});
}

void resize_batch(torch::Tensor& images, torch::Tensor& targets, int64_t size, bool nearest) {
  const int64_t height = images.size(2), width = images.size(3);
  if (height == size && width == size) return;
  auto options = torch::nn::functional::InterpolateFuncOptions().size(std::vector<int64_t>{size, size});
  if (nearest) {
    options.mode(torch::kNearest);
  } else {
    options.mode(torch::kBilinear).align_corners(false);
  }
  images = torch::nn::functional::interpolate(images, options);
  if (targets.numel() > 0) {
    const auto sx = static_cast<double>(size) / static_cast<double>(width);
    const auto sy = static_cast<double>(size) / static_cast<double>(height);
    auto scale = torch::tensor({1.0, sx, sy, sx, sy}, targets.options());
    targets = targets * scale;  // padding rows stay zero
  }
}

}  // namespace libreyolo::core::data
