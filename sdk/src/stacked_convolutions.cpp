#include "libreyolo/sdk/stacked_convolutions.hpp"

#include <torch/enum.h>
#include <torch/torch.h>

#include <algorithm>
#include <mutex>
#include <stdexcept>

#include "explicit_padding.hpp"
#include "fused_choice_log.hpp"
#include "libreyolo/sdk/batch_count.hpp"
#include "libreyolo/sdk/fused_kernels.hpp"

namespace libreyolo::sdk {
namespace {

using detail::explicit_padding;

int64_t kernel_size(const torch::nn::Conv2dImpl& conv) { return (*conv.options.kernel_size())[0]; }

std::string convolution_refusal(const torch::nn::Conv2dImpl& conv, const torch::nn::Conv2dImpl& first) {
  const auto& o = conv.options;
  if (o.groups() != 1 || o.transposed()) return "a convolution is grouped or transposed";
  if ((*o.dilation())[0] != 1 || (*o.dilation())[1] != 1) return "a convolution is dilated";
  if (conv.bias.defined()) return "a convolution has a bias (the BatchNorm after it makes it redundant)";
  const int64_t k = kernel_size(conv);
  if ((*o.kernel_size())[1] != k || k % 2 == 0) return "a kernel is not square and odd";
  const auto* padding = explicit_padding(o.padding());
  if (padding == nullptr || (**padding)[0] != k / 2 || (**padding)[1] != k / 2 ||
      torch::enumtype::get_enum_name(o.padding_mode()) != "kZeros")
    return "a convolution does not zero-pad its input to keep its size";
  if (*o.stride() != *first.options.stride()) return "the convolutions' strides differ";
  if (o.in_channels() != first.options.in_channels()) return "the convolutions read different channel counts";
  if (conv.weight.scalar_type() != first.weight.scalar_type()) return "the weights' types differ";
  return "";
}

std::string batch_norm_refusal(const BatchNorm2dImpl& bn, const BatchNorm2dImpl& first) {
  const auto& o = bn.options;
  if (!o.affine() || !o.track_running_stats() || !bn.running_mean.defined())
    return "a BatchNorm has no affine parameters or no running statistics";
  if (!o.momentum()) return "a BatchNorm keeps a cumulative average (no momentum)";
  if (o.momentum() != first.options.momentum() || o.eps() != first.options.eps())
    return "the BatchNorms' momentum or eps differ";
  if (bn.synchronized()) return "BatchNorm is synchronised across GPUs";
  if (bn.running_mean.scalar_type() != first.running_mean.scalar_type()) return "the statistics' types differ";
  return "";
}

// The branches' statistics as one tensor over the stacked channels whose slices are the
// branches' own buffers. Where they are not yet slices of one storage (the first call, or after
// the module moved to another device) they are copied into one and re-pointed at it with set_:
// the modules keep holding the same tensors, which now alias the stacked one.
torch::Tensor stacked_buffer(const std::vector<torch::Tensor>& buffers) {
  const auto& first = buffers.front();
  int64_t total = 0;
  bool adjacent = true;
  for (const auto& buffer : buffers) {
    adjacent = adjacent && buffer.is_contiguous() && buffer.storage().is_alias_of(first.storage()) &&
               buffer.storage_offset() == first.storage_offset() + total;
    total += buffer.numel();
  }
  if (adjacent) return first.as_strided({total}, {1}, first.storage_offset());
  torch::NoGradGuard no_grad;
  auto stacked = torch::cat(buffers);
  int64_t offset = 0;
  for (auto buffer : buffers) {
    const int64_t count = buffer.numel();
    buffer.set_(stacked.storage(), offset, {count}, {1});
    offset += count;
  }
  return stacked;
}

int64_t widest_kernel(const std::vector<ConvolutionBranch>& branches) {
  int64_t widest = 0;
  for (const auto& b : branches) widest = std::max(widest, kernel_size(b.conv));
  return widest;
}

// Each branch's weight zero-padded to the widest kernel, stacked along the output channels.
torch::Tensor stacked_weight(const std::vector<ConvolutionBranch>& branches) {
  const int64_t widest = widest_kernel(branches);
  std::vector<torch::Tensor> weights;
  for (const auto& b : branches) {
    const int64_t pad = (widest - kernel_size(b.conv)) / 2;
    weights.push_back(pad == 0 ? b.conv.weight : torch::constant_pad_nd(b.conv.weight, {pad, pad, pad, pad}));
  }
  return torch::cat(weights);
}

}  // namespace

std::string stacked_convolutions_refusal(const std::vector<ConvolutionBranch>& branches, const torch::Tensor& x) {
  if (branches.size() < 2) return "fewer than two branches";
  if (x.dim() != 4) return "the input is not [N, C, H, W]";
  const auto& first = branches.front();
  for (const auto& b : branches) {
    if (!b.conv.is_training() || !b.bn.is_training()) return "the layers are not training (evaluation composes)";
    if (auto why = convolution_refusal(b.conv, first.conv); !why.empty()) return why;
    if (auto why = batch_norm_refusal(b.bn, first.bn); !why.empty()) return why;
  }
  if (x.size(1) != first.conv.options.in_channels()) return "the input's channels are not the convolutions'";
  return "";
}

torch::Tensor stacked_convolutions(const std::vector<ConvolutionBranch>& branches, const torch::Tensor& x) {
  if (auto why = stacked_convolutions_refusal(branches, x); !why.empty())
    throw std::invalid_argument("stacked_convolutions: " + why);
  const int64_t padding = widest_kernel(branches) / 2;
  const auto outputs = torch::conv2d(x, stacked_weight(branches), {}, *branches.front().conv.options.stride(),
                                     std::vector<int64_t>{padding, padding});
  std::vector<torch::Tensor> affine, means, variances;
  for (const auto& b : branches) affine.push_back(b.bn.weight);
  for (const auto& b : branches) affine.push_back(b.bn.bias);
  for (const auto& b : branches) {
    means.push_back(b.bn.running_mean);
    variances.push_back(b.bn.running_var);
    if (b.bn.num_batches_tracked.defined()) count_batch(b.bn.num_batches_tracked);
  }
  const auto parameters = torch::cat(affine);  // weights then biases: one launch, sliced below
  const int64_t channels = outputs.size(1);
  const auto& options = branches.front().bn.options;
  return torch::batch_norm(outputs, parameters.narrow(0, 0, channels), parameters.narrow(0, channels, channels),
                           stacked_buffer(means), stacked_buffer(variances), /*training=*/true, *options.momentum(),
                           options.eps(), at::globalContext().userEnabledCuDNN());
}

bool stacked_convolutions_chosen(const std::vector<ConvolutionBranch>& branches, const torch::Tensor& x) {
  if (!fused_kernel_allowed("stacked_convolutions")) return false;
  const auto refusal = stacked_convolutions_refusal(branches, x);
  if (branches.front().conv.is_training()) {
    static std::once_flag once;
    log_first_fused_choice(once, refusal,
                           "fused_kernels: parallel convolutions of one input run as one stacked convolution and BatchNorm",
                           "fused_kernels: parallel convolutions run one by one");
  }
  return refusal.empty();
}

}  // namespace libreyolo::sdk
