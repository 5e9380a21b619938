#include <algorithm>
#include <iterator>

#include "libreyolo/core/checkpoint/checkpoint_schema.hpp"
#include "libreyolo/core/error.hpp"

namespace libreyolo::core::checkpoint {
namespace {

using V = PickleValue;

[[noreturn]] void invalid(const std::string& target, const std::string& why) {
  throw Error("Refusing to write checkpoint " + target, why + " (LibreYOLO could not load it)",
              "This is a bug in the caller that filled the checkpoint; please report it");
}

// State dicts are written as collections.OrderedDict, exactly what module.state_dict() is.
PickleRef state_dict(const StateDict& dict) {
  auto node = V::dict(/*ordered=*/true);
  node->entries.reserve(dict.size());
  for (const auto& item : dict) node->entries.emplace_back(V::string(item.key()), V::tensor_value(item.value()));
  return node;
}

void validate(const Checkpoint& checkpoint, const std::string& target) {
  const Metadata& m = checkpoint.metadata;
  if (m.model_family.empty()) invalid(target, "model_family is empty");
  if (m.size.empty()) invalid(target, "size is empty");
  if (std::find_if(std::begin(kTasks), std::end(kTasks), [&](const char* t) { return m.task == t; }) == std::end(kTasks))
    invalid(target, "task '" + m.task + "' is not one of LibreYOLO's tasks");
  if (m.nc <= 0) invalid(target, "nc is " + std::to_string(m.nc) + ", it must be positive");
  if (!m.names.empty() && static_cast<int64_t>(m.names.size()) != m.nc)
    invalid(target, std::to_string(m.names.size()) + " class names for nc=" + std::to_string(m.nc));
  if (m.imgsz <= 0) invalid(target, "imgsz is " + std::to_string(m.imgsz) + ", it must be positive");
  if (checkpoint.model.is_empty()) invalid(target, "the model state dict is empty");
  for (const auto& item : checkpoint.model) {
    if (!item.value().defined()) invalid(target, "model tensor '" + item.key() + "' is undefined");
  }
}

PickleRef names(const Metadata& m) {
  auto node = V::dict();
  for (int64_t i = 0; i < m.nc; ++i) {
    const std::string name = m.names.empty() ? "class_" + std::to_string(i) : m.names[static_cast<std::size_t>(i)];
    node->entries.emplace_back(V::int_value(i), V::string(name));
  }
  return node;
}

PickleRef host_state(const TrainState& train) {
  auto host = V::dict();
  host->set("format", V::int_value(kHostTrainStateFormat));
  host->set("writer", V::string(kWriterVersion));
  host->set("global_step", V::int_value(train.global_step));

  auto optimizer = V::dict();
  optimizer->set("name", V::string(train.optimizer.name));
  optimizer->set("step", V::int_value(train.optimizer.step));
  auto params = V::dict(/*ordered=*/true);
  for (const auto& param : train.optimizer.params) params->set(param.key(), state_dict(param.value()));
  optimizer->set("state", params);
  host->set("optimizer", optimizer);

  auto scaler = V::dict();
  scaler->set("enabled", V::boolean_value(train.scaler.enabled));
  scaler->set("scale", V::float_value(train.scaler.scale));
  scaler->set("growth_tracker", V::int_value(train.scaler.growth_tracker));
  host->set("grad_scaler", scaler);

  auto rng = V::dict();
  rng->set("seed", V::int_value(static_cast<int64_t>(train.rng.seed)));
  if (train.rng.cpu_state.defined()) rng->set("cpu_state", V::tensor_value(train.rng.cpu_state));
  auto cuda = V::list();
  for (const auto& state : train.rng.cuda_states) cuda->items.push_back(V::tensor_value(state));
  rng->set("cuda_states", cuda);
  host->set("rng", rng);

  auto options = V::dict();
  for (const auto& option : train.options) options->set(option.first, V::string(option.second));
  host->set("options", options);
  return host;
}

// LibreYOLO's own resume keys (trainer.py save_checkpoint/resume), same names and meaning.
void train_keys(V& root, const TrainState& train) {
  root.set("epoch", V::int_value(train.epoch));
  root.set("best_metric_key", V::string(train.best_metric_key));
  root.set("best_metric_value", V::float_value(train.best_fitness));
  root.set("best_epoch", V::int_value(train.best_epoch));
  root.set("is_ema_weights", V::boolean_value(train.ema.has_value()));
  if (train.ema) {
    root.set("train_model", state_dict(train.train_model));
    root.set("ema", state_dict(train.ema->weights));
    root.set("ema_updates", V::int_value(train.ema->updates));
  }
  root.set(kHostTrainStateKey, host_state(train));
}

}  // namespace

PickleRef encode_checkpoint(const Checkpoint& checkpoint, const std::string& target) {
  validate(checkpoint, target);
  const Metadata& m = checkpoint.metadata;
  auto root = V::dict();
  // The order LibreYOLO's wrap_libreyolo_checkpoint uses, so the files diff cleanly.
  root->set("model", state_dict(checkpoint.model));
  root->set("schema_version", V::string(kSchemaVersion));
  // Always the real writer: a fine-tuned LibreYOLO model re-saved here was produced by us.
  root->set("libreyolo_version", V::string(kWriterVersion));
  root->set("model_family", V::string(m.model_family));
  root->set("size", V::string(m.size));
  root->set("task", V::string(m.task));
  root->set("nc", V::int_value(m.nc));
  root->set("names", names(m));
  root->set("imgsz", V::int_value(m.imgsz));
  if (checkpoint.train) train_keys(*root, *checkpoint.train);
  return root;
}

}  // namespace libreyolo::core::checkpoint
