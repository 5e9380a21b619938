// The fused SimOTA selection in a CUDA build: PyTorch's top-k of the costs (the same call as the
// composed path, so the same anchors among equal costs), a zeroed byte mask, then the two
// launches of cuda/simota_selection_kernels.cu on the current stream (CUDA-graph capture records
// them like any ATen kernel). No autograd: the assignment runs without gradients.
#include "simota_selection_fused.hpp"

#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAGuard.h>
#include <torch/torch.h>

#include "../cuda/simota_selection_kernels.hpp"

namespace libreyolo::sdk::losses {

std::string fused_simota_selection_unavailable() { return ""; }

SimOtaSelection fused_simota_selection(const SimOtaCost& cost_in, const torch::Tensor& dynamic_k_in, int64_t topk) {
  torch::NoGradGuard no_grad;
  const c10::cuda::CUDAGuard guard(cost_in.cost.device());
  const auto cost = cost_in.cost.contiguous(), iou = cost_in.iou.contiguous();
  const auto dynamic_k = dynamic_k_in.contiguous();
  fused::SimOtaSelectionShape s;
  s.batch = cost.size(0);
  s.rows = cost.size(1);
  s.anchors = cost.size(2);
  s.topk = topk;
  const auto lowest = cost.topk(topk, 2, /*largest=*/false, /*sorted=*/true);
  const auto lowest_cost = std::get<0>(lowest).contiguous(), lowest_index = std::get<1>(lowest).contiguous();
  const auto options = cost.options();
  auto taken = torch::zeros({s.batch, s.rows, s.anchors}, options.dtype(torch::kUInt8));
  SimOtaSelection out{torch::empty({s.batch, s.anchors}, options.dtype(torch::kBool)),
                      torch::empty({s.batch, s.anchors}, options.dtype(torch::kLong)),
                      torch::empty({s.batch, s.anchors}, options)};
  const fused::SimOtaSelectionInputs inputs{cost.data_ptr<float>(), iou.data_ptr<float>(), lowest_cost.data_ptr<float>(),
                                            lowest_index.data_ptr<int64_t>(), dynamic_k.data_ptr<int64_t>()};
  const fused::SimOtaSelectionOutputs outputs{taken.data_ptr<uint8_t>(), out.foreground.data_ptr<bool>(),
                                              out.gt_index.data_ptr<int64_t>(), out.iou.data_ptr<float>()};
  const int code = fused::simota_selection(s, inputs, outputs, at::cuda::getCurrentCUDAStream().stream());
  TORCH_CHECK(code == 0, "fused SimOTA selection: the kernels did not launch: ", fused::simota_selection_error_text(code));
  return out;
}

}  // namespace libreyolo::sdk::losses
