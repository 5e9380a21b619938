// conv3x3_image: the choice of the image convolution kernels (image_conv3x3_fused.hpp) under the
// fused_kernels policy.
#include "libreyolo/sdk/image_convolutions.hpp"

#include <torch/torch.h>

#include <mutex>

#include "convolution_precision.hpp"
#include "explicit_padding.hpp"
#include "fused_choice_log.hpp"
#include "image_conv3x3_fused.hpp"
#include "libreyolo/sdk/fused_kernels.hpp"

namespace libreyolo::sdk {
namespace {

constexpr auto kChannelsLast = torch::MemoryFormat::ChannelsLast;
constexpr const char* kPolicyName = "image_convolutions";

// What the convolution itself must be (most of a network's are not: said by no log line).
std::string geometry_refusal(const torch::nn::Conv2dImpl& conv) {
  const auto& o = conv.options;
  if (o.in_channels() != 3) return "not 3 input channels";
  if ((*o.kernel_size())[0] != 3 || (*o.kernel_size())[1] != 3) return "not 3x3";
  const auto stride = (*o.stride())[0];
  if (stride != (*o.stride())[1] || (stride != 1 && stride != 2)) return "not stride 1 or 2 both ways";
  if ((*o.dilation())[0] != 1 || (*o.dilation())[1] != 1) return "dilated";
  if (!detail::zero_padding_one(o)) return "not zero padding 1";
  if (o.groups() != 1 || o.transposed() || conv.bias.defined()) return "grouped, transposed or with a bias";
  const auto k = o.out_channels();
  if (k != 16 && k != 32 && k != 64) return "not 16, 32 or 64 output channels";
  return "";
}

// What the input must be.
std::string input_refusal(const torch::nn::Conv2dImpl& conv, const torch::Tensor& x) {
  if (auto unavailable = fused_image_conv3x3_unavailable(); !unavailable.empty()) return unavailable;
  if (!x.is_cuda()) return "x is not on a CUDA device";
  if (x.dim() != 4 || x.size(1) != 3) return "x is not [N, 3, H, W]";
  if (x.scalar_type() != torch::kFloat32 && x.scalar_type() != torch::kHalf) return "x is not float32 or float16";
  if (!detail::runs_in_half(conv, x)) return "the convolution would not run in float16 (the kernels' type)";
  if (x.requires_grad()) return "x needs a gradient (the kernels compute none: an image needs none)";
  const auto stride = (*conv.options.stride())[0];
  if (!fused_image_conv3x3_fits(x.size(0), x.size(2), x.size(3), conv.options.out_channels(), stride))
    return "the image is too large for the kernels' 32-bit pixel indices";
  return "";
}

}  // namespace

// The first decision on a suitable convolution is logged once.
bool conv3x3_image_chosen(const torch::nn::Conv2dImpl& conv, const torch::Tensor& x) {
  if (!fused_kernel_allowed(kPolicyName) || !geometry_refusal(conv).empty()) return false;
  const auto refusal = input_refusal(conv, x);
  // Logged from the first training call (gradients on): the model summary's FLOP count runs an
  // evaluation forward outside autocast first, whose refusal would misname what training runs.
  static std::once_flag once;
  if (torch::GradMode::is_enabled())
    log_first_fused_choice(once, refusal, "fused_kernels: the image convolution runs the SDK's CUDA kernels",
                           "fused_kernels: the image convolution runs PyTorch's (cuDNN's on a GPU)");
  return refusal.empty();
}

std::string conv3x3_image_refusal(const torch::nn::Conv2dImpl& conv, const torch::Tensor& x) {
  auto refusal = geometry_refusal(conv);
  return refusal.empty() ? input_refusal(conv, x) : refusal;
}

torch::Tensor conv3x3_image(torch::nn::Conv2d& conv, const torch::Tensor& x) {
  if (!conv3x3_image_chosen(*conv, x)) return conv->forward(x);
  // As autocast would run the convolution: a float16 weight (under weight_casts the weight already
  // is its float16 copy, and the cast returns it); the image is rounded by the kernels themselves.
  const auto weight = conv->weight.to(torch::kHalf).contiguous(kChannelsLast);
  return fused_image_conv3x3(x, weight, (*conv->options.stride())[0]);
}

}  // namespace libreyolo::sdk
