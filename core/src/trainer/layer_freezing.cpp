// freeze=: LibreYOLO's layer freezing (training/freezing.py apply_freeze) on the session's
// model. The choice of parameters is optim::choose_frozen's; this file applies it to the
// tensors and keeps the BatchNorm layers it touches in eval mode.

#include <torch/torch.h>

#include <iomanip>
#include <set>
#include <sstream>

#include "libreyolo/core/config/freeze_spec.hpp"
#include "libreyolo/core/log/log.hpp"
#include "libreyolo/core/optim/freeze_selection.hpp"
#include "libreyolo/core/optim/param_groups.hpp"
#include "libreyolo/core/optim/unique_parameters.hpp"
#include "session.hpp"

namespace libreyolo::core::trainer {
namespace {

// "1.96M" from a million on (as the model-size line counts), the number itself below it.
std::string values_text(std::int64_t n) {
  if (n < 1000000) return std::to_string(n);
  std::ostringstream text;
  text << std::fixed << std::setprecision(2) << static_cast<double>(n) / 1e6 << "M";
  return text.str();
}

// Every BatchNorm layer with a parameter among `frozen`; its buffers join the constant state.
void record_frozen_norms(Session& s, const std::set<std::string>& frozen) {
  for (const auto& item : s.model->named_modules("", /*include_self=*/false)) {
    const auto& module = item.value();
    if (!optim::is_batchnorm(*module)) continue;
    bool touched = false;
    for (const auto& parameter : module->named_parameters(/*recurse=*/false)) {
      touched = touched || frozen.count(item.key() + "." + parameter.key()) > 0;
    }
    if (!touched) continue;
    s.frozen.norms.push_back(module);
    for (const auto& buffer : module->named_buffers(/*recurse=*/false)) {
      s.frozen.constant_state.push_back(item.key() + "." + buffer.key());
    }
  }
}

std::string chosen_groups_text(const std::vector<sdk::FreezeGroup>& groups, const optim::FreezeChoice& choice) {
  if (choice.groups.empty()) return "no whole freeze group";
  std::string names;
  for (const auto g : choice.groups) names += (names.empty() ? "" : ", ") + groups[g].name;
  return std::to_string(choice.groups.size()) + " of " + std::to_string(groups.size()) + " freeze groups (" + names + ")";
}

void log_freezing(const Session& s, const std::vector<sdk::FreezeGroup>& groups, const optim::FreezeChoice& choice) {
  std::int64_t trainable = 0;
  for (const auto& p : optim::unique_parameters(*s.model, /*trainable_only=*/true)) trainable += p.numel();
  log::info("freeze=", s.config.freeze, ": ", chosen_groups_text(groups, choice), "; ", s.frozen.tensors,
            " parameter tensors (", values_text(s.frozen.values), " values) frozen, ", s.frozen.norms.size(),
            " BatchNorm layers keep their statistics; ", values_text(trainable), " values still train");
}

}  // namespace

void freeze_layers(Session& s) {
  const auto spec = config::parse_freeze_spec(s.config.freeze);
  if (spec.empty()) return;
  std::vector<std::string> names;
  std::vector<bool> trainable;
  std::vector<torch::Tensor> tensors;
  for (const auto& item : s.model->named_parameters()) {
    names.push_back(item.key());
    trainable.push_back(item.value().requires_grad());
    tensors.push_back(item.value());
  }
  const auto groups = optim::freeze_groups_of(s.recipe.freeze_groups, names);
  const auto choice = optim::choose_frozen(spec, groups, names, trainable, s.family->info.name + s.size);

  std::set<std::string> frozen;
  std::set<const void*> counted;  // a tied tensor listed under two names counts once
  for (const auto p : choice.frozen) {
    tensors[p].requires_grad_(false);
    frozen.insert(names[p]);
    s.frozen.constant_state.push_back(names[p]);
    if (counted.insert(tensors[p].unsafeGetTensorImpl()).second) {
      ++s.frozen.tensors;
      s.frozen.values += tensors[p].numel();
    }
  }
  record_frozen_norms(s, frozen);
  if (s.main_rank()) log_freezing(s, groups, choice);
}

void enter_training_mode(Session& s) {
  s.model->train();
  for (const auto& norm : s.frozen.norms) norm->eval();
}

}  // namespace libreyolo::core::trainer
