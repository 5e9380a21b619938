#include "libreyolo/core/trainer/trainer.hpp"

#include <torch/torch.h>

#include <chrono>
#include <cmath>
#include <random>

#include "libreyolo/core/amp/grad_scaler.hpp"
#include "libreyolo/core/amp/precision_plan.hpp"
#include "libreyolo/core/checkpoint/checkpoint_io.hpp"
#include "libreyolo/core/checkpoint/state_dict.hpp"
#include "libreyolo/core/data/cache/cache_mode.hpp"
#include "libreyolo/core/data/dataset_config.hpp"
#include "libreyolo/core/data/dataset_samples.hpp"
#include "libreyolo/core/data/loader/data_loader.hpp"
#include "libreyolo/core/data/loader/epoch_sampler.hpp"
#include "libreyolo/core/data/network_input.hpp"
#include "libreyolo/core/device/cuda_info.hpp"
#include "libreyolo/core/error.hpp"
#include "libreyolo/core/eval/report_format.hpp"
#include "libreyolo/core/log/log.hpp"
#include "libreyolo/core/optim/accumulation.hpp"
#include "libreyolo/core/optim/adamw.hpp"
#include "libreyolo/core/optim/grad_utils.hpp"
#include "libreyolo/core/optim/lr_schedule.hpp"
#include "libreyolo/core/optim/model_ema.hpp"
#include "libreyolo/core/optim/param_groups.hpp"
#include "libreyolo/core/optim/sgd.hpp"
#include "libreyolo/core/trainer/augment_settings.hpp"
#include "libreyolo/core/trainer/device_choice.hpp"
#include "libreyolo/core/trainer/interrupt.hpp"
#include "libreyolo/core/trainer/progress_display.hpp"
#include "libreyolo/core/trainer/results_log.hpp"
#include "libreyolo/core/trainer/train_config.hpp"
#include "libreyolo/core/trainer/validator.hpp"
#include "session.hpp"
#include "training_state.hpp"

namespace fs = std::filesystem;

namespace libreyolo::core::trainer {
namespace {

using Clock = std::chrono::steady_clock;

// Skipped (non-finite) optimizer steps in a row that end the run. Under float16 a few overflows
// in a row are routine while the gradient scaler backs off from 65536; 24 halvings would take
// it below 2^-8, which only a diverged model needs.
constexpr int kMaxNonFiniteSteps = 5;
constexpr int kMaxNonFiniteStepsFloat16 = 24;

TrainConfig config_for(const TrainRequest& request) { return make_train_config(request.options); }

void log_precision(const amp::PrecisionPlan& plan) {
  if (!plan.note.empty()) log::info(plan.note);
  if (plan.autocast) {
    log::info("mixed precision: autocast ", plan.dtype == torch::kBFloat16 ? "bfloat16" : "float16",
              plan.grad_scaler ? " with a dynamic gradient scaler" : "");
  }
}

// The weights the run starts from: fresh (seeded) or model=file.pt. A class count different
// from the dataset's keeps every weight but the mismatched head, which stays freshly
// initialised (and says so).
void load_start_weights(sdk::Detector& model, const fs::path& file, int num_classes) {
  const auto loaded = checkpoint::load_checkpoint(file);
  for (const auto& warning : loaded.warnings) log::warn(file.string(), ": ", warning);
  const bool same_classes = loaded.metadata.nc == num_classes;
  const auto report = checkpoint::load_state_dict_into(model, loaded.model, same_classes, file.string());
  if (!same_classes) {
    log::warn(file.string(), " was trained for ", loaded.metadata.nc, " classes, the dataset has ", num_classes,
              ": ", report.skipped().size(), " tensors (the class-dependent head) start fresh");
  }
  log::info("starting from ", file.string(), " (", report.loaded, " tensors)");
}

// Conv weights in channels-last, matching the loader's NHWC batches: cuDNN then runs NHWC
// kernels without layout conversions.
void to_channels_last(torch::nn::Module& model) {
  torch::NoGradGuard no_grad;
  for (auto& p : model.parameters()) {
    if (p.dim() == 4) p.set_data(p.contiguous(torch::MemoryFormat::ChannelsLast));
  }
}

std::unique_ptr<optim::Optimizer> make_optimizer(const TrainConfig& c, sdk::Detector& model, double weight_decay) {
  auto split = optim::split_param_groups(model, weight_decay);
  for (const auto& name : split.ungrouped) log::warn("parameter ", name, " is in no optimizer group and will not train");
  if (c.optimizer == "adamw") {
    optim::AdamWOptions options;
    options.beta1 = c.momentum;
    return std::make_unique<optim::AdamW>(std::move(split.groups), options);
  }
  optim::SgdOptions options;
  options.momentum = c.momentum;
  options.nesterov = c.nesterov;
  return std::make_unique<optim::Sgd>(std::move(split.groups), options);
}

// float16: PyTorch GradScaler semantics. Otherwise the same mechanism with scale 1 guards
// against non-finite gradients: the step is skipped (powers of two keep the scaling exact).
amp::GradScalerOptions scaler_options(const amp::PrecisionPlan& plan) {
  amp::GradScalerOptions options;
  if (!plan.grad_scaler) {
    options.init_scale = 1.0;
    options.growth_interval = std::int64_t{1} << 40;
  }
  return options;
}

}  // namespace


namespace {

void load_data(Session& s, const TrainRequest& request) {
  s.dataset = data::load_dataset(s.config.data, request.bundled_datasets);
  if (!s.dataset.val.defined) {
    throw Error("data " + s.config.data + " has no val split", "training validates on it to pick best.pt",
                "add a val: entry to the data.yaml (it may point at the train images)");
  }
  data::SplitLoadOptions options;
  options.imgsz = s.config.imgsz;
  options.cache = data::parse_cache_mode(s.config.cache);
  options.cache_dir = s.dataset.root / ".libreyolo-cache";
  s.train_split = data::load_split_samples(s.dataset.train, s.dataset.nc(), options);
  s.val_split = data::load_split_samples(s.dataset.val, s.dataset.nc(), options);
  log::info("data: ", s.train_split->labels.size(), " train and ", s.val_split->labels.size(), " val images, ",
            s.dataset.nc(), " classes (", s.dataset.yaml_path.string(), ")");

  data::LoaderOptions loader;
  loader.sampler.dataset_size = s.train_split->labels.size();
  loader.sampler.batch_size = s.config.batch;
  loader.sampler.seed = static_cast<std::uint64_t>(s.config.seed);
  loader.imgsz = s.config.imgsz;
  loader.workers = s.config.workers;
  loader.device = s.device;
  s.loader = std::make_unique<data::DataLoader>(
      loader, data::train_sample_makers(s.train_split, augment_params_for(s.config, s.family->info.augment)));

  ValidationOptions validation;
  validation.imgsz = s.config.imgsz;
  validation.batch = s.config.batch;
  validation.workers = s.config.workers;
  validation.device = s.device;
  validation.precision = s.precision;
  s.validator = std::make_unique<Validator>(s.val_split, s.dataset.names, validation);
}

void build_model(Session& s, const TrainRequest& request) {
  torch::manual_seed(static_cast<std::uint64_t>(s.config.seed));
  const sdk::ModelSpec spec{s.size, s.dataset.nc(), s.config.imgsz};
  s.model = s.family->family->create_detector(spec);
  if (request.weights) load_start_weights(*s.model, *request.weights, s.dataset.nc());
  s.model->to(s.device);
  if (s.device.is_cuda()) to_channels_last(*s.model);
  s.criterion = s.family->family->create_criterion(*s.model, {s.dataset.nc(), s.config.imgsz});
  if (s.config.ema) {
    s.eval_model = s.family->family->create_detector(spec);  // holds the EMA weights for validation
    s.eval_model->to(s.device);
    optim::ModelEmaOptions options;
    options.decay = s.config.ema_decay;
    s.ema = std::make_unique<optim::ModelEma>(*s.model, options);
  }
}

void build_optimization(Session& s) {
  const auto steps = static_cast<std::int64_t>(s.loader->steps_per_epoch());
  s.accumulate = optim::accumulation_steps(s.config.nbs > 0 ? std::optional<std::int64_t>(s.config.nbs) : std::nullopt,
                                           s.config.batch);
  s.optimizer = make_optimizer(s.config, *s.model, s.config.weight_decay);
  s.schedule.kind = optim::parse_lr_schedule(s.config.scheduler);
  s.schedule.lr0 = s.config.lr0;
  s.schedule.iters_per_epoch = optim::optimizer_steps_per_epoch(steps, s.accumulate);
  s.schedule.total_epochs = s.config.epochs;
  s.schedule.warmup_epochs = s.config.warmup_epochs;
  s.schedule.warmup_lr_start = s.config.warmup_lr_start;
  s.schedule.no_aug_epochs = s.config.no_aug_epochs;
  s.schedule.min_lr_ratio = s.config.min_lr_ratio;
  s.optimizer->set_lr(optim::learning_rate(s.schedule, 0));
  s.scaler = std::make_unique<amp::GradScaler>(s.device, scaler_options(s.precision));
  if (s.accumulate > 1) log::info("gradient accumulation: ", s.accumulate, " batches per optimizer step (nbs=", s.config.nbs, ")");
}

// One epoch of training. Returns the epoch's mean loss components.
std::vector<std::pair<std::string, double>> train_one_epoch(Session& s, int epoch, ProgressDisplay& display,
                                                            double& seconds, std::size_t& images_seen) {
  const auto& c = s.config;
  const bool mosaic = epoch < c.epochs - c.no_aug_epochs;
  s.model->train();
  s.model->on_epoch_start({epoch, c.epochs, mosaic});
  s.loader->start_epoch({epoch, mosaic});
  display.start_epoch(epoch);
  const auto names = s.criterion->component_names();
  const auto steps = static_cast<std::int64_t>(s.loader->steps_per_epoch());
  auto sums = torch::zeros({static_cast<int64_t>(names.size())}, torch::TensorOptions().device(s.device));
  std::mt19937_64 scale_rng(data::mix_seed(static_cast<std::uint64_t>(c.seed), static_cast<std::uint64_t>(epoch), 0x5CA1E));
  std::int64_t counted = 0;
  const auto start = Clock::now();
  images_seen = 0;

  auto read_means = [&]() {
    std::vector<std::pair<std::string, double>> means;
    const auto host = (sums / std::max<std::int64_t>(counted, 1)).to(torch::kCPU);
    for (std::size_t i = 0; i < names.size(); ++i) means.emplace_back(names[i], host[static_cast<int64_t>(i)].item<double>());
    return means;
  };

  std::int64_t step = 0;
  while (auto batch = s.loader->next()) {
    const auto window = optim::accumulation_window(epoch, step, steps, s.accumulate);
    if (window.starts_window) s.optimizer->zero_grad();
    auto images = data::to_network_input(batch->images, s.family->info.input);
    sdk::Targets targets{batch->targets, batch->counts};
    if (c.multi_scale) {
      // A random multiple of 32 in [0.5, 1.5] x imgsz for the whole batch (LibreYOLO's range).
      const int low = std::max(1, c.imgsz / 2 / 32), high = c.imgsz * 3 / 2 / 32;
      const int size = 32 * (low + static_cast<int>(scale_rng() % static_cast<std::uint64_t>(high - low + 1)));
      data::resize_batch(images, targets.boxes, size);
    }
    std::vector<torch::Tensor> outputs;
    {
      amp::AutocastScope autocast(s.precision);
      outputs = s.model->forward_remainder(s.model->forward_capturable(images), &targets);
    }
    const auto loss = (*s.criterion)(outputs, targets, images);
    s.scaler->scale(loss.total / static_cast<double>(window.window_size)).backward();
    std::vector<torch::Tensor> parts;
    for (const auto& component : loss.components) parts.push_back(component.second.detach().to(torch::kFloat32).reshape({}));
    sums += torch::stack(parts);
    ++counted;
    images_seen += static_cast<std::size_t>(batch->images.size(0));

    if (window.ends_window) {
      if (c.clip_grad > 0) {
        s.scaler->unscale(*s.optimizer);
        optim::clip_grad_norm(s.optimizer->parameters(), c.clip_grad);
      }
      const bool stepped = s.scaler->step(*s.optimizer);  // one 4-byte read: was any gradient inf/NaN?
      s.scaler->update();
      auto& skipped = s.progress.skipped_in_a_row;
      if (stepped) {
        skipped = 0;
        if (s.ema) s.ema->update(*s.model);
      } else if (++skipped > 1 || !s.precision.grad_scaler) {
        // A lone float16 overflow is routine (the scale backs off); anything more is news.
        log::warn("epoch ", epoch + 1, " step ", step + 1, ": non-finite loss or gradients, step skipped");
      }
      if (skipped >= (s.precision.grad_scaler ? kMaxNonFiniteStepsFloat16 : kMaxNonFiniteSteps)) {
        throw Error("training diverged: " + std::to_string(skipped) + " steps in a row had non-finite gradients",
                    "the loss became inf or NaN (learning rate too high, bad labels, or float16 overflow)",
                    "weights/last.pt holds the last good epoch; lower lr0, check the data, or try amp=false");
      }
      ++s.progress.global_step;
      s.optimizer->set_lr(optim::learning_rate(s.schedule, s.progress.global_step));
    }
    ++step;
    if (display.interactive() && (step % c.log_interval == 0 || step == steps)) {
      display.update(static_cast<std::size_t>(step), images_seen, read_means(), device::reserved_memory_gb(s.device));
    }
    if (InterruptGuard::requested()) break;
  }
  display.finish_epoch();
  seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return read_means();
}

}  // namespace

TrainOutcome train(const TrainRequest& request) {
  Session s;
  s.config = config_for(request);
  s.options = request.options;
  s.family = request.family;
  s.size = request.size;
  s.device = choose_device(s.config.device);
  s.precision = amp::plan_precision(s.config.amp, s.config.amp_dtype, s.device, device::cuda_supports_bfloat16(s.device));
  log_precision(s.precision);
  if (s.device.is_cuda()) at::globalContext().setBenchmarkCuDNN(!s.config.multi_scale);

  std::optional<checkpoint::Checkpoint> resume_from;
  if (s.config.resume) {
    s.run = existing_run_folder(s.config.project, s.config.name);
    resume_from = checkpoint::load_checkpoint(s.run.weights / "last.pt");
  } else {
    s.run = create_run_folder(s.config.project, s.config.name, s.config.exist_ok);
    write_args_yaml(s.run.root / "args.yaml", request.options);
  }
  log::set_file(s.run.root / "train.log");
  log::info("run folder: ", s.run.root.string());

  load_data(s, request);
  build_model(s, request);
  build_optimization(s);
  if (resume_from) {
    restore_training_state(s, *resume_from);
    log::info("resuming ", s.run.root.string(), " after epoch ", s.progress.start_epoch);
  }
  s.results = std::make_unique<ResultsLog>(s.run.root, s.criterion->component_names(), s.config.resume);

  TrainOutcome outcome;
  outcome.run = s.run;
  InterruptGuard interrupts;
  ProgressDisplay display(s.config.epochs, s.loader->steps_per_epoch());
  int epochs_without_improvement = 0;
  for (int epoch = s.progress.start_epoch; epoch < s.config.epochs; ++epoch) {
    double seconds = 0;
    std::size_t images = 0;
    const auto losses = train_one_epoch(s, epoch, display, seconds, images);
    if (InterruptGuard::requested()) {
      save_checkpoint_file(s, s.run.weights / "last.pt", epoch - 1);
      log::warn("interrupted during epoch ", epoch + 1, ": saved ", (s.run.weights / "last.pt").string(),
                ". Resume with: libreyolo-host train resume=true project=", s.config.project, " name=",
                s.run.root.filename().string());
      outcome.interrupted = true;
      break;
    }
    EpochRecord record;
    record.epoch = epoch + 1;
    record.seconds = seconds;
    record.images_per_second = seconds > 0 ? static_cast<double>(images) / seconds : 0;
    record.learning_rate = s.optimizer->groups().front().lr;
    record.train_losses = losses;
    const bool last_epoch = epoch + 1 == s.config.epochs;
    if ((epoch + 1) % s.config.eval_interval == 0 || last_epoch) {
      sdk::Detector& evaluated = s.ema ? *s.eval_model : *s.model;
      if (s.ema) s.ema->copy_to(*s.eval_model);
      const auto evaluation = s.validator->run(evaluated, s.family->info.input);
      record.validated = true;
      record.map50 = std::max(0.0, evaluation.stats.ap50());
      record.map50_95 = std::max(0.0, evaluation.stats.ap());
      if (last_epoch) log::info("\n", eval::format_class_table(evaluation));
      if (record.map50_95 > s.progress.best_fitness || s.progress.best_epoch < 0) {
        s.progress.best_fitness = record.map50_95;
        s.progress.best_epoch = epoch;
        epochs_without_improvement = 0;
        save_checkpoint_file(s, s.run.weights / "best.pt", epoch);
      } else {
        epochs_without_improvement += s.config.eval_interval;
      }
    }
    s.results->write(record);
    std::string summary;
    for (const auto& [name, value] : losses) summary += " " + name + " " + std::to_string(value);
    log::info("epoch ", epoch + 1, "/", s.config.epochs, ":", summary, ", ", static_cast<long>(record.images_per_second),
              " img/s", record.validated ? ", mAP50 " + std::to_string(record.map50) + " mAP50-95 " +
                                                std::to_string(record.map50_95)
                                          : std::string());
    save_checkpoint_file(s, s.run.weights / "last.pt", epoch);
    if (s.config.save_period > 0 && (epoch + 1) % s.config.save_period == 0) {
      save_checkpoint_file(s, s.run.weights / ("epoch" + std::to_string(epoch + 1) + ".pt"), epoch);
    }
    outcome.epochs_completed = epoch + 1;
    if (s.config.patience > 0 && epochs_without_improvement >= s.config.patience) {
      log::info("stopping early: no improvement in mAP50-95 for ", epochs_without_improvement,
                " epochs (patience=", s.config.patience, ")");
      outcome.stopped_early = true;
      break;
    }
  }
  outcome.best_map50_95 = s.progress.best_epoch >= 0 ? s.progress.best_fitness : -1;
  log::info("done: ", s.run.root.string(), " (best mAP50-95 ", outcome.best_map50_95, ")");
  log::close_file();
  return outcome;
}

}  // namespace libreyolo::core::trainer
