#include "libreyolo/sdk/detr/fdr.hpp"

#include <torch/torch.h>

namespace libreyolo::sdk::detr {
namespace {

// xyxy -> cx, cy, w, h, in LibreYOLO's order of operations (so float results agree).
torch::Tensor xyxy_to_cxcywh(const torch::Tensor& x1, const torch::Tensor& y1, const torch::Tensor& x2,
                             const torch::Tensor& y2) {
  return torch::stack({(x1 + x2) / 2, (y1 + y2) / 2, x2 - x1, y2 - y1}, -1);
}

// Per edge value: its left bin and the interpolation weights towards the bins either side.
// Values below W(0) take all weight on bin 0, values at or past W(reg_max) on the last bin
// (index reg_max - 0.1, LibreYOLO's convention). Written with where() instead of boolean
// indexing: the same result without a data-dependent shape, so nothing waits for the device.
EdgeBins bins_of_values(const torch::Tensor& values, const torch::Tensor& w, int64_t reg_max) {
  const auto at_or_below = (w.unsqueeze(0) - values.unsqueeze(1)) <= 0;  // [n, reg_max + 1]
  const auto left = at_or_below.sum(1) - 1;                              // -1 .. reg_max
  const auto inside = (left >= 0) & (left < reg_max);
  const auto safe = left.clamp(0, reg_max - 1);
  const auto left_value = w.index_select(0, safe), right_value = w.index_select(0, safe + 1);
  const auto to_left = (values - left_value).abs(), to_right = (right_value - values).abs();
  const auto interpolated = to_left / (to_left + to_right);
  const auto below = left < 0;
  const auto ones = torch::ones_like(values), zeros = torch::zeros_like(values);
  EdgeBins bins;
  bins.weight_right = torch::where(inside, interpolated, torch::where(below, zeros, ones));
  bins.weight_left = torch::where(inside, 1.0 - interpolated, torch::where(below, ones, zeros));
  const auto as_float = left.to(values.scalar_type());
  bins.bin = torch::where(below, zeros, torch::where(left >= reg_max, ones * (reg_max - 0.1), as_float));
  return bins;
}

}  // namespace

torch::Tensor weighting_function(int64_t reg_max, const torch::Tensor& up, const torch::Tensor& reg_scale) {
  TORCH_CHECK(reg_max >= 4 && reg_max % 2 == 0, "detr::weighting_function: reg_max must be even and >= 4, got ",
              reg_max);
  const auto bound = up.reshape({-1}).narrow(0, 0, 1).abs() * reg_scale.reshape({-1}).abs();  // [1]
  const auto step = torch::pow(bound + 1, 2.0 / static_cast<double>(reg_max - 2));
  const auto exponents = torch::arange(1, reg_max / 2, bound.options());  // 1 .. reg_max / 2 - 1
  const auto right = torch::pow(step, exponents) - 1;
  const auto left = -right.flip({0});  // -(step^i - 1) for i from reg_max / 2 - 1 down to 1
  return torch::cat({-2 * bound, left, torch::zeros_like(bound), right, 2 * bound});
}

torch::Tensor integrate_distribution(const torch::Tensor& corner_logits, const torch::Tensor& project) {
  const auto bins = project.size(0);
  TORCH_CHECK(corner_logits.size(-1) == 4 * bins, "detr::integrate_distribution: expected [..., 4 * ", bins,
              "] corner logits, got ", corner_logits.sizes());
  const auto probabilities = torch::softmax(corner_logits.reshape({-1, bins}), 1);
  auto shape = corner_logits.sizes().vec();
  shape.back() = 4;
  return torch::matmul(probabilities, project.to(probabilities.scalar_type())).reshape(shape);
}

torch::Tensor distance_to_box(const torch::Tensor& reference, const torch::Tensor& distance,
                              const torch::Tensor& reg_scale) {
  const auto scale = reg_scale.abs();
  const auto half = 0.5 * scale;
  const auto r = reference.unbind(-1), d = distance.unbind(-1);
  const auto x1 = r[0] - (half + d[0]) * (r[2] / scale);
  const auto y1 = r[1] - (half + d[1]) * (r[3] / scale);
  const auto x2 = r[0] + (half + d[2]) * (r[2] / scale);
  const auto y2 = r[1] + (half + d[3]) * (r[3] / scale);
  return xyxy_to_cxcywh(x1, y1, x2, y2);
}

EdgeBins box_to_edge_bins(const torch::Tensor& reference, const torch::Tensor& target_xyxy, int64_t reg_max,
                          const torch::Tensor& reg_scale, const torch::Tensor& up, double eps) {
  torch::NoGradGuard targets_only;
  const auto scale = reg_scale.abs();
  const auto half = 0.5 * scale;
  const auto r = reference.unbind(-1), t = target_xyxy.unbind(-1);
  constexpr double tiny = 1e-16;  // LibreYOLO's guard against zero-sized references
  const auto x_unit = r[2] / scale + tiny, y_unit = r[3] / scale + tiny;
  const auto edges = torch::stack({(r[0] - t[0]) / x_unit - half, (r[1] - t[1]) / y_unit - half,
                                   (t[2] - r[0]) / x_unit - half, (t[3] - r[1]) / y_unit - half},
                                  -1);
  auto bins = bins_of_values(edges.reshape({-1}), weighting_function(reg_max, up, reg_scale), reg_max);
  bins.bin = bins.bin.clamp(0.0, static_cast<double>(reg_max) - eps);
  return bins;
}

}  // namespace libreyolo::sdk::detr
