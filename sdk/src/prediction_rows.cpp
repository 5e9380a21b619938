// prediction_levels: the choice between the composed head outputs and the fused prediction rows
// (prediction_rows_fused.hpp) under the fused_kernels policy, and the rows' recognition for
// anchor_rows.
#include "libreyolo/sdk/prediction_rows.hpp"

#include <torch/torch.h>

#include <mutex>

#include "explicit_padding.hpp"
#include "fused_choice_log.hpp"
#include "libreyolo/sdk/compat.hpp"
#include "libreyolo/sdk/fused_kernels.hpp"
#include "prediction_rows_fused.hpp"

namespace libreyolo::sdk {
namespace {

using Levels = std::vector<std::vector<PredictionConv>>;

std::string conv_refusal(const torch::nn::Conv2dImpl& conv) {
  const auto& o = conv.options;
  if ((*o.kernel_size())[0] != 1 || (*o.kernel_size())[1] != 1) return "a convolution is not 1x1";
  if ((*o.stride())[0] != 1 || (*o.stride())[1] != 1 || (*o.dilation())[0] != 1 || (*o.dilation())[1] != 1)
    return "a convolution is strided or dilated";
  if (o.transposed()) return "a convolution is transposed";
  const auto* padding = detail::explicit_padding(o.padding());
  if (padding == nullptr || (**padding)[0] != 0 || (**padding)[1] != 0) return "a convolution is padded";
  if (!conv.bias.defined()) return "a convolution has no bias";
  return "";
}

// The type the convolutions run in: autocast's on CUDA where it is on, else the input's.
torch::ScalarType run_type(const torch::Tensor& x) {
  return compat::cuda_autocast_enabled() ? compat::cuda_autocast_dtype() : x.scalar_type();
}

std::string input_refusal(const Levels& levels) {
  const auto& first = levels.front().front().input;
  int64_t columns = -1;
  for (const auto& level : levels) {
    if (level.empty()) return "a level has no convolutions";
    const auto& x = level.front().input;
    int64_t level_columns = 0;
    for (const auto& part : level) {
      const auto& input = part.input;
      if (!input.is_cuda() || input.device() != first.device()) return "an input is not on the first input's CUDA device";
      if (input.dim() != 4 || input.size(1) != part.conv->options.in_channels())
        return "an input is not [B, C, H, W] of its convolution's C";
      if (input.size(0) != first.size(0) || input.size(2) != x.size(2) || input.size(3) != x.size(3))
        return "a level's inputs differ in batch or size";
      if (!compat::cuda_autocast_enabled() && part.conv->weight.scalar_type() != input.scalar_type())
        return "a weight's type is not its input's (outside autocast)";
      level_columns += part.conv->options.out_channels();
    }
    if (columns >= 0 && level_columns != columns) return "the levels' output channels differ";
    columns = level_columns;
  }
  const auto type = run_type(first);
  if (type != torch::kHalf && type != torch::kBFloat16 && type != torch::kFloat32) return "not float16, bfloat16 or float32";
  return "";
}

// The kernels' inputs. `cast`: as autocast would run each convolution, input, weight and bias
// in its type (under weight_casts the weight already is its float16 copy, and the cast returns
// it); without, as they are (for the shape refusal, which reads sizes only: no cast launched).
std::vector<std::vector<FusedPredictionConv>> fused_inputs(const Levels& levels, bool cast) {
  const auto type = run_type(levels.front().front().input);
  const auto in_type = [&](const torch::Tensor& t) { return cast ? t.to(type) : t; };
  std::vector<std::vector<FusedPredictionConv>> fused;
  for (const auto& level : levels) {
    fused.emplace_back();
    for (const auto& part : level)
      fused.back().push_back({in_type(part.input), in_type(part.conv->weight), in_type(part.conv->bias),
                              part.conv->options.groups()});
  }
  return fused;
}

std::vector<torch::Tensor> composed(const Levels& levels) {
  std::vector<torch::Tensor> outputs;
  for (const auto& level : levels) {
    std::vector<torch::Tensor> parts;
    for (const auto& part : level) {
      auto conv = part.conv;  // the holder, not const: a forward may update the module
      parts.push_back(conv->forward(part.input));
    }
    outputs.push_back(parts.size() == 1 ? parts.front() : torch::cat(parts, 1));
  }
  return outputs;
}

// Level l of the rows as [B, C, H, W]: a view (batch stride A * C, channel stride 1).
std::vector<torch::Tensor> level_views(const torch::Tensor& rows, const Levels& levels) {
  std::vector<torch::Tensor> views;
  int64_t first = 0;
  for (const auto& level : levels) {
    const auto& x = level.front().input;
    const auto height = x.size(2), width = x.size(3);
    views.push_back(rows.narrow(1, first, height * width)
                        .view({rows.size(0), height, width, rows.size(2)})
                        .permute({0, 3, 1, 2}));
    first += height * width;
  }
  return views;
}

// The first decision is logged once, from the first training call (gradients on): the model
// summary's FLOP count runs an evaluation forward outside autocast first.
bool chosen(const Levels& levels) {
  if (!fused_kernel_allowed("prediction_rows")) return false;
  const auto refusal = prediction_rows_refusal(levels);
  static std::once_flag once;
  if (torch::GradMode::is_enabled())
    log_first_fused_choice(once, refusal, "fused_kernels: the head's prediction rows run the SDK's CUDA kernels",
                           "fused_kernels: the head's prediction convolutions run composed");
  return refusal.empty();
}

}  // namespace

std::string prediction_rows_refusal(const Levels& levels) {
  if (auto unavailable = fused_prediction_rows_unavailable(); !unavailable.empty()) return unavailable;
  if (levels.empty() || levels.front().empty()) return "no levels";
  for (const auto& level : levels)
    for (const auto& part : level)
      if (auto refusal = conv_refusal(*part.conv); !refusal.empty()) return refusal;
  if (auto refusal = input_refusal(levels); !refusal.empty()) return refusal;
  return fused_prediction_rows_shape_refusal(fused_inputs(levels, false));
}

std::vector<torch::Tensor> prediction_levels(const Levels& levels) {
  if (!chosen(levels)) return composed(levels);
  return level_views(fused_prediction_rows(fused_inputs(levels, true)), levels);
}

torch::Tensor rows_behind_levels(const std::vector<torch::Tensor>& levels) {
  if (levels.empty() || !levels.front().is_view()) return {};
  const auto& base = levels.front()._base();
  if (base.dim() != 3 || base.scalar_type() != torch::kFloat32 || !base.is_contiguous()) return {};
  const int64_t batch = base.size(0), anchors = base.size(1), columns = base.size(2);
  int64_t first = 0;
  for (const auto& level : levels) {
    if (!level.is_view() || !level._base().is_same(base) || level.dim() != 4) return {};
    if (level.size(0) != batch || level.size(1) != columns) return {};
    const int64_t width = level.size(3);
    // The rows' strides, where a dimension has more than one element (any stride is as good there).
    const int64_t strides[4] = {anchors * columns, 1, width * columns, columns};
    for (int64_t d = 0; d < 4; ++d)
      if (level.size(d) > 1 && level.stride(d) != strides[d]) return {};
    if (level.storage_offset() != base.storage_offset() + first * columns) return {};
    first += level.size(2) * width;
  }
  if (first != anchors) return {};
  return torch::Tensor(base);
}

}  // namespace libreyolo::sdk
