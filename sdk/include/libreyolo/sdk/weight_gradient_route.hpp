#pragma once
// The seam through which a trainer runs convolution weight gradients on a second CUDA stream
// (fused_kernels=weight_grad_stream; docs/fused-kernels.md, "Weight gradients on a second
// stream") for SDK kernels whose backward is their own (small_convolutions.hpp).
//
// The host routes PyTorch's convolution backward by replacing its dispatcher kernel; a kernel of
// the SDK's own never reaches that operator, so without this seam its weight gradient stays on
// the backward's critical path and the step loses the overlap it had with cuDNN's (thirty-fourth
// session: 1.3 ms of YOLOv9-t's step). The host implements the route and makes it active for
// the span of one backward; the SDK's backward asks it per layer.

#include <torch/types.h>

#include <functional>

#include "libreyolo/sdk/export.hpp"

namespace libreyolo::sdk {

class WeightGradientRoute {
 public:
  virtual ~WeightGradientRoute() = default;
  // Whether the weight gradient of the layer whose weight (the tensor autograd hands the gradient
  // to) is `weight` goes to the second stream, from the stream current now.
  virtual bool routes(const torch::Tensor& weight) const = 0;
  // The weight gradient `work` makes, made on the second stream after the current stream's work
  // so far. `grad_output` and `input` (what `work` reads) are kept alive until the current stream
  // has waited for it. The result must reach autograd as it is (no copy, cast or view).
  virtual torch::Tensor weight_gradient_on_second_stream(const torch::Tensor& weight, const torch::Tensor& grad_output,
                                                         const torch::Tensor& input,
                                                         const std::function<torch::Tensor()>& work) = 0;
};

// The route of the backward running now, or null (none is: the host sets it for one backward).
LIBREYOLO_SDK_API WeightGradientRoute* active_weight_gradient_route();
LIBREYOLO_SDK_API void set_active_weight_gradient_route(WeightGradientRoute* route);

// `work()` on the second stream where the active route takes `weight`, else on the current stream.
LIBREYOLO_SDK_API torch::Tensor routed_weight_gradient(const torch::Tensor& weight, const torch::Tensor& grad_output,
                                                       const torch::Tensor& input,
                                                       const std::function<torch::Tensor()>& work);

}  // namespace libreyolo::sdk
