// The prediction rows in a CUDA build: an autograd function over cuda/prediction_rows_kernels.cu,
// the convolutions themselves PyTorch's (without their bias), launched on the current stream
// (CUDA-graph capture records them like any ATen kernel).
#include "prediction_rows_fused.hpp"

#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAGuard.h>
#include <torch/autograd.h>
#include <torch/torch.h>

#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "cuda/prediction_rows_kernels.hpp"

namespace libreyolo::sdk {
namespace {

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;
constexpr int kTensorsPerConv = 3;  // input, weight, bias

void check_launch(int code, const char* which) {
  TORCH_CHECK(code == 0, "prediction rows: the ", which, " kernels did not launch: ", fused::prediction_rows_error_text(code));
}

void* current_stream() { return at::cuda::getCurrentCUDAStream().stream(); }

fused::PredictionType type_of(torch::ScalarType type) {
  if (type == torch::kHalf) return fused::PredictionType::float16;
  if (type == torch::kBFloat16) return fused::PredictionType::bfloat16;
  return fused::PredictionType::float32;
}

// How the flat tensor list of the autograd function splits: convolutions a level, each one's groups.
struct Plan {
  std::vector<int64_t> parts, groups;
};

// A per-convolution map [B, out, H, W] as the kernels index it: the output in the forward, its
// gradient in the backward, or only its sizes (data null) for the shape refusal.
struct MapGeometry {
  std::array<int64_t, 4> sizes{}, strides{};
  void* data = nullptr;
};

MapGeometry geometry_of(const torch::Tensor& map) {
  MapGeometry g;
  for (int d = 0; d < 4; ++d) g.sizes[d] = map.size(d), g.strides[d] = map.stride(d);
  g.data = map.data_ptr();
  return g;
}

// The kernels' description of the rows for the maps, level by level; pointers other than the
// maps' are the caller's to set. Columns are the last level's sum (prediction_rows_refusal checks
// that the levels agree).
fused::PredictionRowsShape describe(const std::vector<int64_t>& parts, const std::vector<MapGeometry>& maps,
                                    torch::ScalarType type, bool gradients) {
  fused::PredictionRowsShape s;
  s.levels = static_cast<int>(parts.size());
  s.batch = static_cast<int>(maps.front().sizes[0]);
  s.type = type_of(type);
  std::size_t k = 0;
  for (int l = 0; l < s.levels; ++l) {
    auto& level = s.level[l];
    level.height = static_cast<int>(maps[k].sizes[2]);
    level.width = static_cast<int>(maps[k].sizes[3]);
    level.first_anchor = s.anchors;
    level.parts = static_cast<int>(parts[l]);
    int column = 0;
    for (int p = 0; p < level.parts; ++p, ++k) {
      auto& part = level.part[p];
      const auto& map = maps[k];
      if (gradients)
        part.grad_y = map.data;
      else
        part.y = map.data;
      part.stride_b = map.strides[0], part.stride_c = map.strides[1];
      part.stride_h = map.strides[2], part.stride_w = map.strides[3];
      part.channels = static_cast<int>(map.sizes[1]);
      part.column = column;
      column += part.channels;
    }
    s.columns = column;
    s.anchors += int64_t(level.height) * level.width;
  }
  return s;
}

std::vector<MapGeometry> geometries_of(const std::vector<torch::Tensor>& maps) {
  std::vector<MapGeometry> g;
  for (const auto& map : maps) g.push_back(geometry_of(map));
  return g;
}

void for_each_part(fused::PredictionRowsShape& s, const std::function<void(fused::PredictionPart&, std::size_t)>& f) {
  std::size_t k = 0;
  for (int l = 0; l < s.levels; ++l)
    for (int p = 0; p < s.level[l].parts; ++p) f(s.level[l].part[p], k++);
}

torch::Tensor convolution_without_bias(const torch::Tensor& x, const torch::Tensor& weight, int64_t groups) {
  return at::convolution(x, weight, {}, {1, 1}, {0, 0}, {1, 1}, false, {0, 0}, groups);
}

class FusedPredictionRows : public torch::autograd::Function<FusedPredictionRows> {
 public:
  // tensors: each convolution's input, weight and bias, level by level.
  static torch::Tensor forward(AutogradContext* ctx, at::TensorList tensors, const Plan& plan) {
    const c10::cuda::CUDAGuard guard(tensors.front().device());
    std::vector<torch::Tensor> outputs, saved;
    for (std::size_t k = 0; k < plan.groups.size(); ++k) {
      const auto& x = tensors[kTensorsPerConv * k];
      const auto& weight = tensors[kTensorsPerConv * k + 1];
      outputs.push_back(convolution_without_bias(x, weight, plan.groups[k]));
      saved.insert(saved.end(), {x, weight});
    }
    auto shape = describe(plan.parts, geometries_of(outputs), outputs.front().scalar_type(), false);
    for_each_part(shape, [&](fused::PredictionPart& part, std::size_t k) {
      part.bias = tensors[kTensorsPerConv * k + 2].data_ptr();
    });
    auto rows = torch::empty({shape.batch, shape.anchors, shape.columns},
                             tensors.front().options().dtype(torch::kFloat32));
    check_launch(fused::prediction_rows_forward(shape, rows.data_ptr<float>(), current_stream()), "forward");
    ctx->save_for_backward(saved);
    ctx->saved_data["parts"] = plan.parts;
    ctx->saved_data["groups"] = plan.groups;
    return rows;
  }

  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    const auto saved = ctx->get_saved_variables();
    const auto parts = ctx->saved_data["parts"].toIntVector();
    const auto groups = ctx->saved_data["groups"].toIntVector();
    // Autograd materialises an unused output's gradient as zeros (the default), so grads[0] is set.
    const c10::cuda::CUDAGuard guard(saved.front().device());
    const auto grad_rows = grads[0].to(torch::kFloat32).contiguous();
    // Each output's gradient in its input's layout (what the convolution's backward reads dense).
    std::vector<torch::Tensor> grad_maps, grad_biases;
    for (std::size_t k = 0; k < groups.size(); ++k) {
      const auto& x = saved[2 * k];
      const auto& weight = saved[2 * k + 1];
      grad_maps.push_back(torch::empty({x.size(0), weight.size(0), x.size(2), x.size(3)},
                                       x.options().memory_format(x.suggest_memory_format())));
      grad_biases.push_back(torch::empty({weight.size(0)}, x.options()));
    }
    auto shape = describe(parts, geometries_of(grad_maps), grad_maps.front().scalar_type(), true);
    for_each_part(shape, [&](fused::PredictionPart& part, std::size_t k) { part.grad_bias = grad_biases[k].data_ptr(); });
    auto partials = torch::empty({fused::prediction_rows_partial_elements(shape)}, grad_rows.options());
    check_launch(fused::prediction_rows_backward(shape, grad_rows.data_ptr<float>(), partials.data_ptr<float>(),
                                                 current_stream()),
                 "backward");
    variable_list result;
    for (std::size_t k = 0; k < groups.size(); ++k) {
      const auto first = kTensorsPerConv * k;
      // Through the dispatcher: where the host routes weight gradients to a second stream, these go too.
      auto [grad_x, grad_weight, unused] = at::convolution_backward(
          grad_maps[k], saved[2 * k], saved[2 * k + 1], c10::nullopt, {1, 1}, {0, 0}, {1, 1}, false, {0, 0}, groups[k],
          {ctx->needs_input_grad(first), ctx->needs_input_grad(first + 1), false});
      result.insert(result.end(), {grad_x, grad_weight, ctx->needs_input_grad(first + 2) ? grad_biases[k] : torch::Tensor()});
    }
    result.emplace_back();  // the plan
    return result;
  }
};

// The shape the kernels would get, from the convolutions alone (no launch, no outputs made).
fused::PredictionRowsShape planned_shape(const std::vector<std::vector<FusedPredictionConv>>& levels, std::string& refusal) {
  std::vector<int64_t> parts;
  std::vector<MapGeometry> maps;  // the outputs' sizes
  for (const auto& level : levels) {
    parts.push_back(static_cast<int64_t>(level.size()));
    for (const auto& conv : level) {
      MapGeometry map;
      map.sizes = {conv.input.size(0), conv.weight.size(0), conv.input.size(2), conv.input.size(3)};
      maps.push_back(map);
    }
  }
  if (levels.size() > static_cast<std::size_t>(fused::kPredictionMostLevels)) refusal = "more than 6 levels";
  for (const auto p : parts)
    if (p < 1 || p > fused::kPredictionMostParts) refusal = "not 1 to 4 convolutions a level";
  if (!refusal.empty()) return {};
  return describe(parts, maps, levels.front().front().input.scalar_type(), false);
}

}  // namespace

std::string fused_prediction_rows_unavailable() { return ""; }

std::string fused_prediction_rows_shape_refusal(const std::vector<std::vector<FusedPredictionConv>>& levels) {
  std::string refusal;
  const auto shape = planned_shape(levels, refusal);
  return refusal.empty() ? fused::prediction_rows_shape_refusal(shape) : refusal;
}

torch::Tensor fused_prediction_rows(const std::vector<std::vector<FusedPredictionConv>>& levels) {
  std::vector<torch::Tensor> tensors;
  Plan plan;
  for (const auto& level : levels) {
    plan.parts.push_back(static_cast<int64_t>(level.size()));
    for (const auto& conv : level) {
      tensors.insert(tensors.end(), {conv.input, conv.weight, conv.bias});
      plan.groups.push_back(conv.groups);
    }
  }
  return FusedPredictionRows::apply(at::TensorList(tensors), plan);
}

}  // namespace libreyolo::sdk
