// The fused deformable sampling in a CUDA build: an autograd function over the kernels of
// cuda/deform_sampling_kernels.cu, launched on the current stream (so CUDA-graph capture and the
// loader's streams see them like any ATen kernel).
#include "deform_sampling_fused.hpp"

#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAGuard.h>
#include <torch/autograd.h>
#include <torch/torch.h>

#include "cuda/deform_sampling_kernels.hpp"

namespace libreyolo::sdk::detr {
namespace {

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

bool power_of_two_up_to_32(int64_t n) { return n >= 1 && n <= 32 && (n & (n - 1)) == 0; }

// The autograd context keeps integers as IValues: the shapes travel as [h0, w0, h1, w1, ...].
std::vector<int64_t> flat(const SpatialShapes& shapes) {
  std::vector<int64_t> out;
  for (const auto& [h, w] : shapes) out.insert(out.end(), {h, w});
  return out;
}

fused::SamplingShape sampling_shape(const torch::Tensor& value, const torch::Tensor& locations,
                                    const std::vector<int64_t>& flat_shapes, const std::vector<int64_t>& points) {
  fused::SamplingShape s;
  s.batch = value.size(0);
  s.positions = value.size(1);
  s.heads = value.size(2);
  s.channels = value.size(3);
  s.queries = locations.size(1);
  s.total_points = locations.size(3);
  s.levels = static_cast<int>(points.size());
  int64_t position = 0;
  int point = 0;
  for (int level = 0; level < s.levels; ++level) {
    s.height[level] = static_cast<int>(flat_shapes[2 * level]);
    s.width[level] = static_cast<int>(flat_shapes[2 * level + 1]);
    s.first_position[level] = position;
    s.first_point[level] = point;
    s.points[level] = static_cast<int>(points[level]);
    position += flat_shapes[2 * level] * flat_shapes[2 * level + 1];
    point += s.points[level];
  }
  return s;
}

void check_launch(int code, const char* which) {
  TORCH_CHECK(code == 0, "fused deformable sampling: the ", which, " kernel did not launch: ",
              fused::cuda_error_text(code));
}

void* current_stream() { return at::cuda::getCurrentCUDAStream().stream(); }

class FusedSampling : public torch::autograd::Function<FusedSampling> {
 public:
  // value, locations and weights: contiguous float32 on one CUDA device.
  static torch::Tensor forward(AutogradContext* ctx, const torch::Tensor& value, const torch::Tensor& locations,
                               const torch::Tensor& weights, std::vector<int64_t> flat_shapes,
                               std::vector<int64_t> points) {
    const c10::cuda::CUDAGuard guard(value.device());
    const auto s = sampling_shape(value, locations, flat_shapes, points);
    auto out = torch::empty({s.batch, s.queries, s.heads, s.channels}, value.options());
    check_launch(fused::sampling_forward(s, value.data_ptr<float>(), locations.data_ptr<float>(),
                                         weights.data_ptr<float>(), out.data_ptr<float>(), current_stream()),
                 "forward");
    ctx->save_for_backward({value, locations, weights});
    ctx->saved_data["shapes"] = flat_shapes;
    ctx->saved_data["points"] = points;
    return out;
  }

  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    const auto saved = ctx->get_saved_variables();
    const auto &value = saved[0], &locations = saved[1], &weights = saved[2];
    const c10::cuda::CUDAGuard guard(value.device());
    const auto s = sampling_shape(value, locations, ctx->saved_data["shapes"].toIntVector(),
                                  ctx->saved_data["points"].toIntVector());
    const auto grad_out = grads[0].to(torch::kFloat32).contiguous();
    auto grad_value = torch::zeros_like(value);  // added into: several points read one position
    auto grad_locations = torch::empty_like(locations);
    auto grad_weights = torch::empty_like(weights);
    check_launch(fused::sampling_backward(s, value.data_ptr<float>(), locations.data_ptr<float>(),
                                          weights.data_ptr<float>(), grad_out.data_ptr<float>(),
                                          grad_value.data_ptr<float>(), grad_locations.data_ptr<float>(),
                                          grad_weights.data_ptr<float>(), current_stream()),
                 "backward");
    return {grad_value, grad_locations, grad_weights, torch::Tensor(), torch::Tensor()};
  }
};

}  // namespace

std::string fused_sampling_refusal(const torch::Tensor& value, const SpatialShapes& shapes,
                                   const std::vector<int64_t>& points_per_level) {
  if (!value.is_cuda()) return "the values are not on a CUDA device";
  if (!power_of_two_up_to_32(value.size(3)))
    return "a head has " + std::to_string(value.size(3)) + " channels; the kernel takes a power of two up to 32";
  if (shapes.size() > static_cast<size_t>(fused::kMaxLevels) || shapes.size() != points_per_level.size())
    return std::to_string(shapes.size()) + " levels; the kernel takes up to " + std::to_string(fused::kMaxLevels);
  return "";
}

torch::Tensor fused_sampling(const torch::Tensor& value, const SpatialShapes& shapes,
                             const std::vector<int64_t>& points_per_level, const torch::Tensor& locations,
                             const torch::Tensor& weights) {
  const auto as_float = [](const torch::Tensor& t) { return t.to(torch::kFloat32).contiguous(); };
  return FusedSampling::apply(as_float(value), as_float(locations), as_float(weights), flat(shapes),
                              points_per_level)
      .flatten(2);
}

}  // namespace libreyolo::sdk::detr
