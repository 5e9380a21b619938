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

// What the convolution itself must be (most of a network's are not: said by no log line): over
// the image's 3 channels, or over the 12 of a Focus of it.
std::string geometry_refusal(const torch::nn::Conv2dImpl& conv, bool focus) {
  const auto& o = conv.options;
  if (o.in_channels() != (focus ? 12 : 3)) return focus ? "not 12 input channels (a Focus's)" : "not 3 input channels";
  if ((*o.kernel_size())[0] != 3 || (*o.kernel_size())[1] != 3) return "not 3x3";
  const auto stride = (*o.stride())[0];
  if (focus && ((*o.stride())[1] != 1 || stride != 1)) return "not stride 1 both ways";
  if (stride != (*o.stride())[1] || (stride != 1 && stride != 2)) return "not stride 1 or 2 both ways";
  if ((*o.dilation())[0] != 1 || (*o.dilation())[1] != 1) return "dilated";
  if (!detail::zero_padding_one(o)) return "not zero padding 1";
  if (o.groups() != 1 || o.transposed() || conv.bias.defined()) return "grouped, transposed or with a bias";
  const auto k = o.out_channels();
  if (focus && k != 16 && k != 32) return "not 16 or 32 output channels";
  if (k != 16 && k != 32 && k != 64) return "not 16, 32 or 64 output channels";
  return "";
}

// What the input (the image) must be.
std::string input_refusal(const torch::nn::Conv2dImpl& conv, const torch::Tensor& x, bool focus) {
  if (auto unavailable = fused_image_conv3x3_unavailable(); !unavailable.empty()) return unavailable;
  if (!x.is_cuda()) return "x is not on a CUDA device";
  if (x.dim() != 4 || x.size(1) != 3) return "x is not [N, 3, H, W]";
  if (x.scalar_type() != torch::kFloat32 && x.scalar_type() != torch::kHalf) return "x is not float32 or float16";
  if (!detail::runs_in_half(conv, x)) return "the convolution would not run in float16 (the kernels' type)";
  if (x.requires_grad()) return "x needs a gradient (the kernels compute none: an image needs none)";
  if (focus && (x.size(2) % 2 != 0 || x.size(3) % 2 != 0)) return "x's sides are not even (a Focus halves them)";
  const auto stride = (*conv.options.stride())[0];
  if (!fused_image_conv3x3_fits(x.size(0), x.size(2), x.size(3), conv.options.out_channels(), stride, focus))
    return "the image is too large for the kernels' 32-bit pixel indices";
  return "";
}

// The first decision on a suitable convolution is logged once per kind, from the first training
// call (gradients on): the model summary's FLOP count runs an evaluation forward outside autocast
// first, whose refusal would misname what training runs.
bool chosen(const torch::nn::Conv2dImpl& conv, const torch::Tensor& x, bool focus, std::once_flag& once,
            const char* fused_line, const char* composed_line) {
  if (!fused_kernel_allowed(kPolicyName) || !geometry_refusal(conv, focus).empty()) return false;
  const auto refusal = input_refusal(conv, x, focus);
  if (torch::GradMode::is_enabled()) log_first_fused_choice(once, refusal, fused_line, composed_line);
  return refusal.empty();
}

std::string refusal(const torch::nn::Conv2dImpl& conv, const torch::Tensor& x, bool focus) {
  auto refusal = geometry_refusal(conv, focus);
  return refusal.empty() ? input_refusal(conv, x, focus) : refusal;
}

// As autocast would run the convolution: a float16 weight (under weight_casts the weight already
// is its float16 copy, and the cast returns it); the image is rounded by the kernels themselves.
torch::Tensor run(torch::nn::Conv2d& conv, const torch::Tensor& x, bool focus) {
  const auto weight = conv->weight.to(torch::kHalf).contiguous(kChannelsLast);
  return fused_image_conv3x3(x, weight, (*conv->options.stride())[0], focus);
}

}  // namespace

bool conv3x3_image_chosen(const torch::nn::Conv2dImpl& conv, const torch::Tensor& x) {
  static std::once_flag once;
  return chosen(conv, x, false, once, "fused_kernels: the image convolution runs the SDK's CUDA kernels",
                "fused_kernels: the image convolution runs PyTorch's (cuDNN's on a GPU)");
}

std::string conv3x3_image_refusal(const torch::nn::Conv2dImpl& conv, const torch::Tensor& x) {
  return refusal(conv, x, false);
}

torch::Tensor conv3x3_image(torch::nn::Conv2d& conv, const torch::Tensor& x) {
  return conv3x3_image_chosen(*conv, x) ? run(conv, x, false) : conv->forward(x);
}

bool focus_conv3x3_chosen(const torch::nn::Conv2dImpl& conv, const torch::Tensor& x) {
  static std::once_flag once;
  return chosen(conv, x, true, once, "fused_kernels: the Focus and its convolution run the SDK's CUDA kernels",
                "fused_kernels: the Focus and its convolution run PyTorch's (cuDNN's on a GPU)");
}

std::string focus_conv3x3_refusal(const torch::nn::Conv2dImpl& conv, const torch::Tensor& x) {
  return refusal(conv, x, true);
}

torch::Tensor focus_conv3x3(torch::nn::Conv2d& conv, const torch::Tensor& x) {
  TORCH_CHECK(focus_conv3x3_chosen(*conv, x), "focus_conv3x3: the SDK's kernels do not take this convolution and input (",
              focus_conv3x3_refusal(*conv, x), "); compose the Focus instead");
  return run(conv, x, true);
}

}  // namespace libreyolo::sdk
