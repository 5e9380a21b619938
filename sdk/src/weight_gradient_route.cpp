#include "libreyolo/sdk/weight_gradient_route.hpp"

#include <atomic>

namespace libreyolo::sdk {
namespace {

// Set by the host's thread around a backward, read by autograd's device thread inside it.
std::atomic<WeightGradientRoute*> active_route{nullptr};

}  // namespace

WeightGradientRoute* active_weight_gradient_route() { return active_route.load(); }

void set_active_weight_gradient_route(WeightGradientRoute* route) { active_route.store(route); }

torch::Tensor routed_weight_gradient(const torch::Tensor& weight, const torch::Tensor& grad_output,
                                     const torch::Tensor& input, const std::function<torch::Tensor()>& work) {
  auto* route = active_weight_gradient_route();
  if (route == nullptr || !route->routes(weight)) return work();
  return route->weight_gradient_on_second_stream(weight, grad_output, input, work);
}

}  // namespace libreyolo::sdk
