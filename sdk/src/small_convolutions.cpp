// conv3x3_small: the choice of the small-channel convolution kernels (small_conv3x3_fused.hpp)
// under the fused_kernels policy.
#include "libreyolo/sdk/small_convolutions.hpp"

#include <torch/torch.h>

#include <cstdint>
#include <mutex>

#include "convolution_precision.hpp"
#include "explicit_padding.hpp"
#include "fused_choice_log.hpp"
#include "libreyolo/sdk/fused_kernels.hpp"
#include "small_conv3x3_fused.hpp"

namespace libreyolo::sdk {
namespace {

constexpr auto kChannelsLast = torch::MemoryFormat::ChannelsLast;

// What the convolution itself must be (most of a network's are not: said by no log line).
std::string geometry_refusal(const torch::nn::Conv2dImpl& conv) {
  const auto& o = conv.options;
  if ((*o.kernel_size())[0] != 3 || (*o.kernel_size())[1] != 3) return "not 3x3";
  if ((*o.stride())[0] != 1 || (*o.stride())[1] != 1 || (*o.dilation())[0] != 1 || (*o.dilation())[1] != 1)
    return "strided or dilated";
  if (!detail::zero_padding_one(o)) return "not zero padding 1";
  if (o.groups() != 1 || o.transposed() || conv.bias.defined()) return "grouped, transposed or with a bias";
  if (o.in_channels() != o.out_channels()) return "input and output channels differ";
  const auto c = o.in_channels();
  if (c != 16 && c != 24 && c != 32) return "not 16, 24 or 32 channels";
  return "";
}

// What the input must be.
std::string input_refusal(const torch::nn::Conv2dImpl& conv, const torch::Tensor& x) {
  if (auto unavailable = fused_small_conv3x3_unavailable(); !unavailable.empty()) return unavailable;
  if (!x.is_cuda()) return "x is not on a CUDA device";
  if (x.dim() != 4 || x.size(1) != conv.options.in_channels()) return "x is not [N, C, H, W] of the convolution's C";
  if (!detail::runs_in_half(conv, x)) return "the convolution would not run in float16 (the kernels' type)";
  if (!x.is_contiguous(kChannelsLast)) return "x is not channels-last";
  // The kernels copy 16 bytes at a time (a view starting mid-allocation may not be aligned).
  if (x.scalar_type() == torch::kHalf && reinterpret_cast<std::uintptr_t>(x.data_ptr()) % 16 != 0)
    return "x's data is not 16-byte aligned";
  if (!fused_small_conv3x3_fits(x.size(0), x.size(1), x.size(2), x.size(3))) return "the map is too wide for the kernels";
  return "";
}

// The channel counts each policy name takes. Against PyTorch's cuDNN, per call of YOLOv9-t's
// shapes (docs/benchmarks.md, "Thirty-fourth session"): ahead at 16 channels (40.8 against 59.6
// us at 80 x 80), behind at 24 and 32 (41.7 against 33.0, 31.5 against 21.6 us); so
// small_convolutions takes 16 only, and small_convolutions_wide, for measuring, all three.
struct ChannelsPolicy {
  const char* name;
  bool takes_24_and_32;
};
constexpr ChannelsPolicy kChannelsPolicies[] = {{"small_convolutions", false}, {"small_convolutions_wide", true}};

// The first decision on a suitable convolution is logged once.
bool chosen(const torch::nn::Conv2dImpl& conv, const torch::Tensor& x) {
  if (!conv3x3_small_allowed(conv.options.in_channels()) || !geometry_refusal(conv).empty()) return false;
  const auto refusal = input_refusal(conv, x);
  // Logged from the first training call (gradients on): the model summary's FLOP count runs an
  // evaluation forward outside autocast first, whose refusal would misname what training runs.
  static std::once_flag once;
  if (torch::GradMode::is_enabled())
    log_first_fused_choice(once, refusal, "fused_kernels: small 3x3 convolutions run the SDK's CUDA kernels",
                           "fused_kernels: small 3x3 convolutions run PyTorch's (cuDNN's on a GPU)");
  return refusal.empty();
}

}  // namespace

bool conv3x3_small_allowed(int64_t channels) {
  for (const auto& policy : kChannelsPolicies) {
    if (!fused_kernel_allowed(policy.name)) continue;
    if (channels == 16 || (policy.takes_24_and_32 && (channels == 24 || channels == 32))) return true;
  }
  return false;
}

std::string conv3x3_small_refusal(const torch::nn::Conv2dImpl& conv, const torch::Tensor& x) {
  auto refusal = geometry_refusal(conv);
  return refusal.empty() ? input_refusal(conv, x) : refusal;
}

torch::Tensor conv3x3_small(torch::nn::Conv2d& conv, const torch::Tensor& x) {
  if (!chosen(*conv, x)) return conv->forward(x);
  // As autocast would run the convolution: float16 input and weight (under weight_casts the
  // weight already is its float16 copy, and the cast returns it).
  const auto input = x.to(torch::kHalf).contiguous(kChannelsLast);
  const auto weight = conv->weight.to(torch::kHalf).contiguous(kChannelsLast);
  return fused_small_conv3x3(input, weight);
}

}  // namespace libreyolo::sdk
