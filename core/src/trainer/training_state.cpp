#include "training_state.hpp"

#include <ATen/CPUGeneratorImpl.h>
#include <torch/torch.h>

#include <map>
#include <mutex>

#include "libreyolo/core/checkpoint/checkpoint_io.hpp"
#include "libreyolo/core/checkpoint/state_dict.hpp"
#include "libreyolo/core/error.hpp"
#include "libreyolo/core/log/log.hpp"
#include "libreyolo/core/optim/optimizer_choice.hpp"
#include "libreyolo/core/optim/unique_parameters.hpp"

namespace libreyolo::core::trainer {
namespace {

checkpoint::StateDict to_state_dict(const std::vector<std::pair<std::string, torch::Tensor>>& named) {
  checkpoint::StateDict dict;
  for (const auto& [name, tensor] : named) dict.insert(name, tensor);
  return dict;
}

std::vector<std::pair<std::string, torch::Tensor>> to_named(const checkpoint::StateDict& dict) {
  std::vector<std::pair<std::string, torch::Tensor>> named;
  for (const auto& item : dict) named.emplace_back(item.key(), item.value());
  return named;
}

// The optimizer keys its buffers "state.<flat index>.<field>"; files key them by parameter
// name, so a resume survives a change in parameter order.
std::vector<std::string> optimizer_parameter_names(const optim::Optimizer& optimizer, const torch::nn::Module& model) {
  std::map<const void*, std::string> by_storage;
  for (const auto& item : optim::unique_named_parameters(model)) by_storage[item.tensor.unsafeGetTensorImpl()] = item.name;
  std::vector<std::string> names;
  for (const auto& p : optimizer.parameters()) {
    auto it = by_storage.find(p.unsafeGetTensorImpl());
    names.push_back(it == by_storage.end() ? "param" + std::to_string(names.size()) : it->second);
  }
  return names;
}

checkpoint::OptimizerState optimizer_state(const Session& s) {
  checkpoint::OptimizerState state;
  state.name = optim::optimizer_class_name(s.config.optimizer);
  state.step = s.progress.global_step;
  const auto names = optimizer_parameter_names(*s.optimizer, *s.model);
  for (const auto& [key, tensor] : s.optimizer->state()) {
    // key = "state.<index>.<field>"
    const auto first = key.find('.'), second = key.find('.', first + 1);
    const auto index = static_cast<std::size_t>(std::stoul(key.substr(first + 1, second - first - 1)));
    const auto field = key.substr(second + 1);
    const auto& name = names.at(index);
    if (!state.params.contains(name)) state.params.insert(name, checkpoint::StateDict());
    state.params[name].insert(field, tensor);
  }
  return state;
}

optim::NamedTensors optimizer_buffers(const Session& s, const checkpoint::OptimizerState& saved) {
  const auto expected = optim::optimizer_class_name(s.config.optimizer);
  if (saved.name != expected) {
    throw Error("cannot resume: last.pt holds " + saved.name + " state but this run uses " + expected,
                "optimizer= differs from the run being resumed", "resume with the original optimizer=");
  }
  const auto names = optimizer_parameter_names(*s.optimizer, *s.model);
  optim::NamedTensors buffers;
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (!saved.params.contains(names[i])) continue;
    for (const auto& field : saved.params[names[i]]) {
      buffers.emplace_back("state." + std::to_string(i) + "." + field.key(), field.value());
    }
  }
  return buffers;
}

// The best epoch, 0-based (-1: none), from last.pt's `best_epoch`, which is LibreYOLO's: 1-based,
// 0 before any validation. Files of earlier host builds held it 0-based with -1 for none; their
// 0 ("the first epoch") is told from "none" by the metric it comes with (a run never validated
// has best_metric_value 0), and their -1 is none either way.
int best_epoch_of(const checkpoint::TrainState& t) {
  if (t.best_epoch > 0) return static_cast<int>(t.best_epoch) - 1;
  return t.best_epoch == 0 && t.best_fitness > 0 ? 0 : -1;
}

}  // namespace

bool save_checkpoint_file(Session& s, const std::filesystem::path& file, int last_finished_epoch) {
  checkpoint::Checkpoint out;
  out.metadata.model_family = s.family->info.name;
  out.metadata.size = s.size;
  out.metadata.task = "detect";
  out.metadata.nc = s.dataset.nc();
  out.metadata.names = s.dataset.names;
  out.metadata.imgsz = s.config.imgsz;
  checkpoint::TrainState train;
  train.epoch = last_finished_epoch;
  train.global_step = s.progress.global_step;
  train.best_fitness = s.progress.best_fitness;
  train.best_epoch = s.progress.best_epoch + 1;  // LibreYOLO's: 1-based, 0 before any validation
  train.train_model = checkpoint::state_dict_of(*s.model);
  if (s.ema) {
    train.ema = checkpoint::EmaState{to_state_dict(s.ema->state()), s.ema->updates()};
    out.model = train.ema->weights;  // LibreYOLO ships the EMA weights as `model`
  } else {
    out.model = train.train_model;
  }
  train.optimizer = optimizer_state(s);
  const auto scaler = s.scaler->state();
  train.scaler = {s.precision.grad_scaler, scaler.scale, scaler.growth_tracker};
  train.rng.seed = static_cast<std::uint64_t>(s.config.seed);
  train.rng.cpu_state = cpu_random_state();
  for (const auto& option : s.options) train.options[option.name] = option.value;
  out.train = std::move(train);
  try {
    checkpoint::save_checkpoint(file, out);
  } catch (const Error& e) {
    const int on_disk = s.saved.epochs_on_disk(file);
    const std::string kept = on_disk < 0    ? ""
                             : on_disk == 0 ? " (it still holds the starting weights)"
                                            : " (it still holds epoch " + std::to_string(on_disk) + ")";
    log::error(e.what(), kept, "; training goes on and the next save tries again");
    s.saved.failed(file, e.why());
    return false;
  }
  s.saved.saved(file, last_finished_epoch + 1);
  return true;
}

torch::Tensor cpu_random_state() {
  auto generator = at::detail::getDefaultCPUGenerator();
  std::lock_guard<std::mutex> lock(generator.mutex());
  return generator.get_state();
}

void set_cpu_random_state(const torch::Tensor& state) {
  auto generator = at::detail::getDefaultCPUGenerator();
  std::lock_guard<std::mutex> lock(generator.mutex());
  generator.set_state(state);
}

void restore_training_state(Session& s, const checkpoint::Checkpoint& saved) {
  if (!saved.train) {
    throw Error("cannot resume from weights/last.pt", "it holds weights but no training state",
                "start a new run with model=weights/last.pt instead");
  }
  const auto& t = *saved.train;
  checkpoint::load_state_dict_into(*s.model, t.train_model, /*strict=*/true, "last.pt (training weights)");
  if (s.weight_copies) s.weight_copies->mark_stale();
  if (s.ema && t.ema) {
    s.ema->load_state(to_named(t.ema->weights));
    s.ema->set_updates(t.ema->updates);
  }
  s.optimizer->load_state(optimizer_buffers(s, t.optimizer));
  s.scaler->load_state({t.scaler.scale, t.scaler.growth_tracker});
  if (t.rng.cpu_state.defined()) set_cpu_random_state(t.rng.cpu_state);
  s.progress.start_epoch = static_cast<int>(t.epoch) + 1;
  s.progress.global_step = t.global_step;
  s.progress.best_fitness = t.best_fitness;
  s.progress.best_epoch = best_epoch_of(t);
  s.optimizer->set_lr(optim::learning_rate(s.schedule, s.progress.global_step));
}

}  // namespace libreyolo::core::trainer
