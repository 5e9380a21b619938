#include "libreyolo/core/checkpoint/state_dict.hpp"

#include <libreyolo/sdk/frozen_batch_norm.hpp>
#include <torch/torch.h>

#include <unordered_set>

#include "libreyolo/core/error.hpp"

namespace libreyolo::core::checkpoint {
namespace {

std::string shape_text(const std::vector<int64_t>& shape) {
  std::string out = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) out += (i ? ", " : "") + std::to_string(shape[i]);
  return out + "]";
}

std::string list(const std::vector<std::string>& names, std::size_t limit = 8) {
  std::string out;
  for (std::size_t i = 0; i < names.size() && i < limit; ++i) out += (i ? ", " : "") + names[i];
  if (names.size() > limit) out += ", ... (" + std::to_string(names.size() - limit) + " more)";
  return out;
}

// The module's own tensors by full name, in state_dict() order, without detaching: loading
// must write into the real parameters.
void add_own(const torch::nn::Module& module, const std::string& prefix, StateDict& out) {
  for (const auto& p : module.named_parameters(/*recurse=*/false)) {
    if (p.value().defined()) out.insert(prefix + p.key(), p.value());
  }
  for (const auto& b : module.named_buffers(/*recurse=*/false)) {
    if (b.value().defined()) out.insert(prefix + b.key(), b.value());
  }
}

StateDict live_tensors(const torch::nn::Module& module) {
  StateDict out;
  add_own(module, "", out);
  // include_self=false: including the root would need it to be owned by a shared_ptr.
  // named_modules walks depth-first in registration order, as PyTorch's state_dict() does.
  for (const auto& item : module.named_modules(/*name_prefix=*/"", /*include_self=*/false)) {
    add_own(*item.value(), item.key() + ".", out);
  }
  return out;
}

// "<path>.num_batches_tracked" for every sdk::FrozenBatchNorm2d under `module`: keys a
// BatchNorm2d checkpoint has and the frozen layer lacks. LibreYOLO's FrozenBatchNorm2d deletes
// them in _load_from_state_dict, so they are neither loaded nor unexpected there; same here.
std::unordered_set<std::string> frozen_batch_norm_counters(const torch::nn::Module& module) {
  std::unordered_set<std::string> keys;
  if (dynamic_cast<const sdk::FrozenBatchNorm2dImpl*>(&module)) keys.insert("num_batches_tracked");
  for (const auto& item : module.named_modules(/*name_prefix=*/"", /*include_self=*/false)) {
    if (dynamic_cast<const sdk::FrozenBatchNorm2dImpl*>(item.value().get())) {
      keys.insert(item.key() + ".num_batches_tracked");
    }
  }
  return keys;
}

}  // namespace

StateDict state_dict_of(const torch::nn::Module& module, const std::function<bool(const std::string&)>& skip) {
  StateDict out;
  for (const auto& item : live_tensors(module)) {
    if (skip && skip(item.key())) continue;
    out.insert(item.key(), item.value().detach());
  }
  return out;
}

std::vector<std::string> LoadReport::skipped() const {
  std::vector<std::string> out = missing;
  out.insert(out.end(), unexpected.begin(), unexpected.end());
  for (const auto& m : mismatched) out.push_back(m.name);
  return out;
}

LoadReport load_state_dict_into(torch::nn::Module& module, const StateDict& state, bool strict,
                                const std::string& source) {
  const StateDict targets = live_tensors(module);
  LoadReport report;
  for (const auto& target : targets) {
    const at::Tensor* value = state.find(target.key());
    if (value == nullptr) {
      report.missing.push_back(target.key());
    } else if (value->sizes() != target.value().sizes()) {
      report.mismatched.push_back({target.key(), target.value().sizes().vec(), value->sizes().vec()});
    }
  }
  const auto dropped = frozen_batch_norm_counters(module);
  for (const auto& item : state) {
    if (targets.find(item.key()) == nullptr && dropped.count(item.key()) == 0) {
      report.unexpected.push_back(item.key());
    }
  }

  if (strict && !report.complete()) {
    std::string why;
    if (!report.missing.empty())
      why += std::to_string(report.missing.size()) + " missing (" + list(report.missing) + ")";
    if (!report.unexpected.empty())
      why += std::string(why.empty() ? "" : "; ") + std::to_string(report.unexpected.size()) +
             " unexpected (" + list(report.unexpected) + ")";
    if (!report.mismatched.empty()) {
      std::vector<std::string> shapes;
      for (const auto& m : report.mismatched)
        shapes.push_back(m.name + ": model " + shape_text(m.expected) + ", weights " + shape_text(m.got));
      why += std::string(why.empty() ? "" : "; ") + std::to_string(report.mismatched.size()) +
             " with another shape (" + list(shapes, 4) + ")";
    }
    throw Error("The weights in " + source + " do not fit this model", why,
                "Check that the checkpoint's family and size match the model you asked for");
  }

  torch::NoGradGuard no_grad;
  for (const auto& target : targets) {
    const at::Tensor* value = state.find(target.key());
    if (value == nullptr || value->sizes() != target.value().sizes()) continue;
    // copy_ keeps the module's own dtype, device and memory format (channels-last stays so).
    target.value().copy_(*value);
    ++report.loaded;
  }
  return report;
}

}  // namespace libreyolo::core::checkpoint
