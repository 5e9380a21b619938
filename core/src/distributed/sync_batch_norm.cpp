#include "libreyolo/core/distributed/sync_batch_norm.hpp"

#include <libreyolo/sdk/batch_norm.hpp>
#include <torch/torch.h>

#include <functional>
#include <utility>

#include "global_batch_norm.hpp"
#include "libreyolo/core/error.hpp"

namespace libreyolo::core::distributed {
namespace {

using Visitor = std::function<void(torch::nn::Module& module, const std::string& path)>;

// Depth first over `module` and its descendants, with dotted paths as in state_dict keys.
// Walks named_children() itself: Module::modules() needs the root to be owned by a shared_ptr.
void visit(torch::nn::Module& module, const std::string& path, const Visitor& visitor) {
  visitor(module, path);
  for (const auto& child : module.named_children()) {
    visit(*child.value(), path.empty() ? child.key() : path + "." + child.key(), visitor);
  }
}

bool is_torch_batch_norm(const torch::nn::Module& module) {
  return dynamic_cast<const torch::nn::BatchNorm1dImpl*>(&module) != nullptr ||
         dynamic_cast<const torch::nn::BatchNorm2dImpl*>(&module) != nullptr ||
         dynamic_cast<const torch::nn::BatchNorm3dImpl*>(&module) != nullptr;
}

}  // namespace

SyncBatchNormReport synchronize_batch_norm(torch::nn::Module& model,
                                           std::shared_ptr<Collectives> collectives) {
  if (!collectives) {
    throw Error("synchronized BatchNorm was asked for without collectives",
                "the layers need a process group to sum their statistics over",
                "create the process group before converting the model (or leave sync_bn off)");
  }
  // One synchronizer for every layer: it keeps no per-layer state.
  const auto synchronizer = std::make_shared<GlobalBatchNorm>(std::move(collectives));
  SyncBatchNormReport report;
  visit(model, "", [&](torch::nn::Module& module, const std::string& path) {
    if (auto* layer = dynamic_cast<sdk::BatchNorm2dImpl*>(&module)) {
      layer->set_synchronizer(synchronizer);
      ++report.synchronized;
    } else if (is_torch_batch_norm(module)) {
      ++report.not_synchronizable;
      report.not_synchronizable_names.push_back(path.empty() ? module.name() : path);
    }
  });
  return report;
}

std::size_t desynchronize_batch_norm(torch::nn::Module& model) {
  std::size_t count = 0;
  visit(model, "", [&](torch::nn::Module& module, const std::string&) {
    if (auto* layer = dynamic_cast<sdk::BatchNorm2dImpl*>(&module); layer && layer->synchronized()) {
      layer->set_synchronizer(nullptr);
      ++count;
    }
  });
  return count;
}

std::size_t count_batch_norm_layers(torch::nn::Module& model) {
  std::size_t count = 0;
  visit(model, "", [&](torch::nn::Module& module, const std::string&) {
    if (is_torch_batch_norm(module)) ++count;  // sdk::BatchNorm2d is a torch BatchNorm2d too
  });
  return count;
}

}  // namespace libreyolo::core::distributed
