#include "libreyolo/core/distributed/replica_state.hpp"

#include <torch/torch.h>

#include <algorithm>
#include <cstring>

#include "libreyolo/core/optim/unique_parameters.hpp"

namespace libreyolo::core::distributed {

void broadcast_module_state(torch::nn::Module& model, Collectives& collectives, int root) {
  torch::NoGradGuard no_grad;
  auto copy_from_root = [&](torch::Tensor& tensor) {
    if (!tensor.defined()) return;
    // The collective wants a dense tensor on its device; the model's may be channels-last.
    auto staged = tensor.to(collectives.device()).contiguous();
    collectives.broadcast(staged, root);
    tensor.copy_(staged);
  };
  for (auto& parameter : optim::unique_parameters(model)) copy_from_root(parameter);
  for (auto& buffer : model.buffers()) copy_from_root(buffer);
}

std::int64_t broadcast_integer(Collectives& collectives, std::int64_t value, int root) {
  auto tensor = torch::full({1}, value, torch::TensorOptions().dtype(torch::kInt64).device(collectives.device()));
  collectives.broadcast(tensor, root);
  return tensor.cpu().item<std::int64_t>();
}

std::string broadcast_text(Collectives& collectives, const std::string& text, int root) {
  const auto length = broadcast_integer(collectives, static_cast<std::int64_t>(text.size()), root);
  auto bytes = torch::zeros({std::max<std::int64_t>(length, 1)}, torch::kUInt8);
  if (collectives.rank() == root) std::memcpy(bytes.data_ptr(), text.data(), text.size());
  bytes = bytes.to(collectives.device());
  collectives.broadcast(bytes, root);
  bytes = bytes.cpu();
  return std::string(reinterpret_cast<const char*>(bytes.data_ptr()), static_cast<std::size_t>(length));
}

}  // namespace libreyolo::core::distributed
