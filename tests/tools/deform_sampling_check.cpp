// On a CUDA machine: the SDK's fused deformable sampling against the composed PyTorch ops at the
// decoders' real sizes (values and gradients, relative to each tensor's largest magnitude), and
// the time of one forward + backward each way. Exits 77 (skipped) without CUDA or without the
// kernels in the build. Links the SDK only, so it builds in a minute on the GPU machine.
// Usage: deform_sampling_check
#include <torch/torch.h>

#include <libreyolo/sdk/detr/ms_deform_attn.hpp>
#include <libreyolo/sdk/fused_kernels.hpp>

#include <iomanip>
#include <iostream>
#include <string>
#include <vector>

#include "gpu_check_common.hpp"

namespace detr = libreyolo::sdk::detr;
namespace sdk = libreyolo::sdk;

namespace tools = libreyolo::tools;

namespace {

struct Case {
  std::string name;
  detr::SpatialShapes shapes;
  std::vector<int64_t> points;
  int64_t batch, queries, heads, channels;
};

struct Run {
  torch::Tensor out, grad_value, grad_locations, grad_weights;
  double ms = 0;
};

Run run(const Case& c, sdk::FusedKernels policy, const std::vector<torch::Tensor>& inputs, const torch::Tensor& upstream) {
  sdk::set_fused_kernels(policy);
  Run r;
  const auto once = [&] {
    auto value = inputs[0].detach().requires_grad_(), locations = inputs[1].detach().requires_grad_(),
         weights = inputs[2].detach().requires_grad_();
    r.out = detr::deformable_sampling(value, c.shapes, c.points, locations, weights);
    r.out.backward(upstream);
    r.grad_value = value.grad();
    r.grad_locations = locations.grad();
    r.grad_weights = weights.grad();
  };
  r.ms = tools::cuda_ms_per_call(once);
  return r;
}

using tools::relative;

bool check(const Case& c) {
  torch::manual_seed(5);
  int64_t positions = 0, total = 0;
  for (const auto& [h, w] : c.shapes) positions += h * w;
  for (const auto n : c.points) total += n;
  const auto opts = torch::TensorOptions().device(torch::kCUDA).dtype(torch::kFloat32);
  const std::vector<torch::Tensor> inputs = {torch::randn({c.batch, positions, c.heads, c.channels}, opts),
                                             torch::rand({c.batch, c.queries, c.heads, total, 2}, opts) * 1.2 - 0.1,
                                             torch::softmax(torch::randn({c.batch, c.queries, c.heads, total}, opts), -1)};
  const auto upstream = torch::randn({c.batch, c.queries, c.heads * c.channels}, opts);
  const auto composed = run(c, sdk::FusedKernels::off, inputs, upstream);
  const auto fused = run(c, sdk::FusedKernels::when_built, inputs, upstream);
  const double d_out = relative(fused.out, composed.out), d_value = relative(fused.grad_value, composed.grad_value),
               d_loc = relative(fused.grad_locations, composed.grad_locations),
               d_weight = relative(fused.grad_weights, composed.grad_weights);
  const bool ok = d_out < 1e-5 && d_value < 1e-5 && d_loc < 1e-5 && d_weight < 1e-5;
  std::cout << std::setprecision(3) << c.name << ": relative differences out " << d_out << ", grad value " << d_value
            << ", grad locations " << d_loc << ", grad weights " << d_weight << (ok ? " (ok)" : " (ABOVE 1e-5)")
            << "; forward + backward composed " << composed.ms << " ms, fused " << fused.ms << " ms\n";
  return ok;
}

}  // namespace

int main() {
  if (!tools::fused_kernels_runnable()) return 77;
  // One decoder layer's sampling at batch 16, 640 px: 300 queries plus ~200 denoising ones.
  const std::vector<Case> cases = {
      {"D-FINE-n (strides 16, 32; 6 + 6 points; 8 heads x 16)", {{40, 40}, {20, 20}}, {6, 6}, 16, 500, 8, 16},
      {"D-FINE-s (strides 8-32; 3 + 6 + 3 points; 8 heads x 32)", {{80, 80}, {40, 40}, {20, 20}}, {3, 6, 3}, 16, 500, 8, 32},
      {"RT-DETR-r18 (strides 8-32; 4 points a level; 8 heads x 32)", {{80, 80}, {40, 40}, {20, 20}}, {4, 4, 4}, 16, 500, 8, 32},
  };
  bool all = true;
  for (const auto& c : cases) all = check(c) && all;
  return all ? 0 : 1;
}
