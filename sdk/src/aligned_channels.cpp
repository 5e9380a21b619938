#include "libreyolo/sdk/aligned_channels.hpp"

#include <torch/torch.h>

#include <stdexcept>
#include <string>

#include "libreyolo/sdk/fused_kernels.hpp"

namespace libreyolo::sdk {
namespace {

constexpr int64_t kChannelMultiple = 8;  // 16 bytes of float16: cuDNN's aligned channels-last kernels

int64_t channel_count(const std::vector<torch::Tensor>& parts) {
  int64_t channels = 0;
  for (const auto& part : parts) channels += part.size(1);
  return channels;
}

}  // namespace

torch::Tensor concat_channels_padded(const std::vector<torch::Tensor>& parts, int64_t channels) {
  const int64_t own = channel_count(parts);
  if (channels <= own) return torch::cat(parts, 1);
  const auto& first = parts.front();
  const auto format = first.suggest_memory_format();
  // The zeros in the parts' layout, so that the concatenation writes one tensor of that layout.
  auto zeros = torch::zeros({first.size(0), channels - own, first.size(2), first.size(3)},
                            first.options().memory_format(format));
  std::vector<torch::Tensor> all(parts);
  all.push_back(zeros);
  return torch::cat(all, 1).contiguous(format);
}

torch::Tensor concat_channels_aligned(const std::vector<torch::Tensor>& parts) {
  const int64_t channels = channel_count(parts);
  const bool widen = fused_kernel_allowed("aligned_channels") && !parts.empty() && parts.front().is_cuda() &&
                     parts.front().dim() == 4 && channels % kChannelMultiple != 0;
  if (!widen) return torch::cat(parts, 1);
  return concat_channels_padded(parts, (channels / kChannelMultiple + 1) * kChannelMultiple);
}

torch::Tensor conv2d_aligned(torch::nn::Conv2d& conv, const torch::Tensor& x) {
  const int64_t wanted = conv->options.in_channels(), given = x.size(1);
  if (given == wanted) return conv->forward(x);
  const auto& o = conv->options;
  if (given < wanted || o.groups() != 1 || torch::enumtype::get_enum_name(o.padding_mode()) != "kZeros") {
    throw std::invalid_argument("conv2d_aligned: an input of " + std::to_string(given) + " channels for a convolution of " +
                                std::to_string(wanted) +
                                ": the input needs at least as many (the extra ones zero), the convolution no groups "
                                "and zero padding");
  }
  const auto& weight = conv->weight;
  // Zero weights for the extra (zero) channels: [out, in, kh, kw] padded at the end of `in`.
  const auto padded = torch::constant_pad_nd(weight, {0, 0, 0, 0, 0, given - wanted}, 0)
                          .contiguous(weight.suggest_memory_format());
  namespace F = torch::nn::functional;
  return F::conv2d(x, padded,
                   F::Conv2dFuncOptions().bias(conv->bias).stride(o.stride()).padding(o.padding()).dilation(o.dilation()));
}

}  // namespace libreyolo::sdk
