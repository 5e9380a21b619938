// Building a training run's objects and the one training step, shared by `train` and
// `bench step`.
#include "session.hpp"

#include <torch/torch.h>

#include <iomanip>
#include <sstream>

#include "libreyolo/core/capture/region_graph.hpp"
#include "libreyolo/core/checkpoint/checkpoint_io.hpp"
#include "libreyolo/core/checkpoint/state_dict.hpp"
#include "libreyolo/core/data/cache/cache_mode.hpp"
#include "libreyolo/core/data/dataset/training_data.hpp"
#include "libreyolo/core/data/loader/network_input.hpp"
#include "libreyolo/core/device/cuda_info.hpp"
#include "libreyolo/core/trainer/multi_scale_sizes.hpp"
#include "libreyolo/core/error.hpp"
#include "libreyolo/core/log/log.hpp"
#include "libreyolo/core/optim/grad_utils.hpp"
#include "libreyolo/core/optim/optimizer_choice.hpp"
#include "libreyolo/core/optim/param_group_rules.hpp"
#include "libreyolo/core/optim/param_groups.hpp"
#include "libreyolo/core/optim/unique_parameters.hpp"
#include "libreyolo/core/profiler/flop_count.hpp"
#include "libreyolo/core/distributed/replica_state.hpp"
#include "libreyolo/core/trainer/autobatch.hpp"
#include "libreyolo/core/device/device_choice.hpp"
#include "libreyolo/core/config/fused_kernel_selection.hpp"
#include "libreyolo/sdk/fused_kernels.hpp"
#include "branch_streams_setup.hpp"
#include "distributed_setup.hpp"
#include "whole_step.hpp"

namespace fs = std::filesystem;

namespace libreyolo::core::trainer {
namespace {

// A user who turns on float16 autocast for a family that declares mixed precision off hears
// why, once (bfloat16 keeps float32's range, and on the CPU amp has no effect: nothing to say).
void warn_if_amp_against_family(const Session& s) {
  const auto& policy = s.family->policy;
  const bool float16 = s.precision.autocast && s.precision.dtype == torch::kFloat16;
  if (!float16 || policy.amp || policy.amp_off_reason.empty()) return;
  log::warn(s.family->info.name, " trains in float32 by default: ", policy.amp_off_reason,
            "; amp=true was asked for, so watch for non-finite losses (amp=false is the default)");
}

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
void load_start_weights(sdk::Detector& model, const StartWeights& weights, int num_classes) {
  const auto& file = weights.file;
  const auto& loaded = *weights.checkpoint;
  for (const auto& warning : loaded.warnings) log::warn(warning);  // each names the file
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
  for (auto& p : optim::unique_parameters(model)) {
    if (p.dim() == 4) p.set_data(p.contiguous(torch::MemoryFormat::ChannelsLast));
  }
}

// The recipe's frozen parameters stop training before anything collects the trainable ones
// (optimizer groups, gradient synchronisation, CUDA-graph capture).
void freeze_recipe_parameters(Session& s) {
  if (s.recipe.frozen.empty()) return;
  const auto report = optim::freeze_parameters(*s.model, s.recipe.frozen);
  for (const auto& pattern : report.unmatched_patterns) {
    log::warn("frozen pattern ", pattern, " of ", s.family->info.name, s.size, "'s recipe matches no parameter");
  }
  if (report.frozen.empty()) return;
  log::info("frozen by the recipe: ", report.frozen.size(), " parameter tensors (", report.parameters,
            " values), from ", report.frozen.front());
}

void log_param_groups(const std::vector<optim::ParamGroup>& groups) {
  for (const auto& row : optim::describe_param_groups(groups)) {
    log::info("optimizer group ", row.name, ": ", row.tensors, " tensors, ", row.parameters, " values, lr x", row.lr_scale,
              ", weight_decay ", row.weight_decay);
  }
}

std::unique_ptr<optim::Optimizer> make_optimizer(const config::TrainConfig& c, const sdk::Recipe& recipe, sdk::Detector& model,
                                                 double weight_decay) {
  auto split = optim::split_by_rules(model, recipe.param_groups, weight_decay);
  for (const auto& warning : split.warnings) log::warn(warning);
  for (const auto& name : split.ungrouped) log::warn("parameter ", name, " is in no optimizer group and will not train");
  if (!recipe.param_groups.empty()) log_param_groups(split.groups);
  return optim::make_named_optimizer(c.optimizer, std::move(split.groups), c.momentum, c.nesterov);
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

// A batch larger than the training split holds every image in one step anyway; left as it is,
// the loader would reserve buffers for all of it (batch=100000 on 16 images: 100000 images'
// worth of pixels per buffer). Capped to the split (a multiple of the world size, so the ranks
// still share it evenly), once, with a warning that says so.
void cap_batch_to_split(Session& s) {
  const auto images = s.train_split->labels.size();
  if (static_cast<std::size_t>(s.config.batch) <= images) return;
  const int world = s.world_size;
  const int capped = std::max(world, static_cast<int>(images) / world * world);
  if (s.main_rank()) {
    log::warn("batch=", s.config.batch, " is larger than the ", images, " images of the training split: training with batch=",
              capped, " (one step per epoch takes every image; a larger batch would only reserve memory for images "
              "that do not exist)");
  }
  s.config.batch = capped;
  s.rank_batch = capped / world;
}

void load_data(Session& s, const TrainRequest& request) {
  // Training validates on val to pick best.pt: a data.yaml without one fails here.
  auto data = data::load_training_data(
      {s.config.data, request.bundled_datasets, s.config.imgsz, data::parse_cache_mode(s.config.cache), {"train", "val"}});
  s.dataset = std::move(data.dataset);
  s.train_split = data.splits.at("train");
  s.val_split = data.splits.at("val");
  cap_batch_to_split(s);

  data::LoaderOptions loader;
  loader.sampler.dataset_size = s.train_split->labels.size();
  loader.sampler.batch_size = s.rank_batch;
  loader.sampler.rank = s.rank;
  loader.sampler.world_size = s.world_size;
  loader.sampler.seed = static_cast<std::uint64_t>(s.config.seed);
  loader.imgsz = s.config.imgsz;
  loader.workers = s.config.workers;
  loader.device = s.device;
  loader.reuse_batch_memory = true;  // each batch is consumed before the next is asked for
  s.loader = std::make_unique<data::DataLoader>(loader, data::train_sample_makers(s.train_split, s.augmentation.pipelines));
}

// The recipe's augmentation pipelines with the user's overrides, and the multi-scale sizes.
void prepare_augmentation(Session& s) {
  s.augmentation = plan_augmentation(s.recipe, s.config.imgsz, augment_overrides(s.config));
  s.multi_scale = s.config.multi_scale;
  // Only a run that draws sizes needs them (a D-FINE run at imgsz=32 with multi_scale=false has none to check).
  if (s.config.multi_scale) s.multi_scale_sizes = multi_scale_sizes(s.recipe.multi_scale_sizes, s.config.imgsz);
  s.multi_scale_resize = s.recipe.multi_scale_sizes.resize;
}

// One image through the network in eval mode (no denoising, no running-statistics update),
// counted by the profiler: the "GFLOPs at 640" of Ultralytics' model summary.
std::optional<double> forward_flops(Session& s) {
  torch::NoGradGuard no_grad;
  s.model->eval();
  auto images = torch::zeros({1, 3, s.config.imgsz, s.config.imgsz}, torch::TensorOptions().device(s.device));
  if (s.device.is_cuda()) images = images.contiguous(torch::MemoryFormat::ChannelsLast);
  const auto flops = profiler::count_flops([&] { s.model->forward_remainder(s.model->forward_capturable(images), nullptr); });
  s.model->train();
  return flops;
}

// "3.78M parameters", as LibreYOLO's info() and Ultralytics' model summary count them (each
// shared tensor once), so a user can tell at a glance that the size is the one they meant.
void log_model_size(Session& s) {
  std::int64_t total = 0, trainable = 0;
  for (const auto& p : optim::unique_parameters(*s.model)) {
    total += p.numel();
    if (p.requires_grad()) trainable += p.numel();
  }
  const auto millions = [](std::int64_t n) {
    std::ostringstream text;
    text << std::fixed << std::setprecision(2) << static_cast<double>(n) / 1e6 << "M";
    return text.str();
  };
  std::string flops_text;
  if (const auto flops = forward_flops(s)) {
    std::ostringstream text;
    text << ", " << std::fixed << std::setprecision(1) << *flops / 1e9 << " GFLOPs at " << s.config.imgsz;
    flops_text = text.str();
  }
  log::info("model ", s.family->info.name, s.size, ": ", millions(total), " parameters (", millions(trainable),
            " trainable)", flops_text);
}

void build_model(Session& s, const TrainRequest& request) {
  torch::manual_seed(static_cast<std::uint64_t>(s.config.seed));
  // Before the model exists: the first forward (the GFLOPs count) already samples.
  const auto fused = config::parse_fused_kernels(s.config.fused_kernels);
  sdk::set_fused_kernels(fused.policy, fused.only);
  const sdk::ModelSpec spec{s.size, s.dataset.nc(), s.config.imgsz};
  s.model = s.family->family->create_detector(spec);
  if (request.weights) load_start_weights(*s.model, *request.weights, s.dataset.nc());
  s.model->to(s.device);
  if (s.device.is_cuda()) to_channels_last(*s.model);
  freeze_recipe_parameters(s);
  freeze_layers(s);  // the user's freeze=, after the recipe's own
  if (s.main_rank()) log_model_size(s);
  if (s.collectives) prepare_replica(s);
  s.criterion = s.family->family->create_criterion(*s.model, {s.dataset.nc(), s.config.imgsz});
  if (s.config.ema && s.main_rank()) {  // EMA weights serve validation and checkpoints: rank 0's
    optim::ModelEmaOptions options;
    options.decay = s.config.ema_decay;
    options.constant = s.frozen.constant_state;
    s.ema = std::make_unique<optim::ModelEma>(*s.model, options);
  }
}

void build_optimization(Session& s) {
  const auto steps = static_cast<std::int64_t>(s.loader->steps_per_epoch());
  s.accumulate = optim::accumulation_steps(s.config.nbs > 0 ? std::optional<std::int64_t>(s.config.nbs) : std::nullopt,
                                           s.config.batch);
  s.optimizer = make_optimizer(s.config, s.recipe, *s.model, s.config.weight_decay);
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
  prepare_device_step_state(s);
  s.capture = make_capture_manager(s, s.config.cuda_graph);
  prepare_weight_copies(s);
  prepare_weight_gradient_stream(s);
  prepare_fused_optimizer_step(s);
  prepare_branch_streams(s);
}

// batch=-1: rank 0 (or the only process) probes its GPU; every rank gets the global batch.
void resolve_autobatch(Session& s, const TrainRequest& request) {
  int device_batch = s.main_rank() ? probe_request_batch(request, s.device) : 0;
  if (s.collectives) device_batch = static_cast<int>(distributed::broadcast_integer(*s.collectives, device_batch));
  s.config.batch = global_autobatch(device_batch, s.world_size, s.config.nbs);
  s.rank_batch = s.config.batch / s.world_size;
  log::info("autobatch: batch=", s.config.batch, s.world_size > 1 ? " (global)" : "");
}

}  // namespace

std::unique_ptr<capture::CaptureManager> make_capture_manager(const Session& s, bool cuda_graph) {
  capture::CaptureRequest request;
  request.cuda_graph = cuda_graph;
  request.cuda_device = s.device.is_cuda();
  request.region = s.family->policy.capture;
  request.family = s.family->info.name;
  request.world_size = s.world_size;
  request.whole_step_refusal = whole_step_refusal(s);
  // The recorder goes with every request, eager ones too: an eager run is told whether
  // cuda_graph=true could record its region, which asks whether this build can record at all.
  return std::make_unique<capture::CaptureManager>(request, *s.model, capture::make_cuda_graph_recorder());
}

void prepare_session(Session& s, const TrainRequest& request) {
  s.config = request.config;
  s.options = config::report_options(request.config, request.sources);
  s.family = request.family;
  s.size = request.size;
  s.recipe = s.family->family->recipe(s.size);
  if (!s.collectives) {
    s.device = device::choose_device(s.config.device);
    s.rank_batch = s.config.batch;
  }
  s.precision = amp::plan_precision(s.config.amp, s.config.amp_dtype, s.device, device::cuda_supports_bfloat16(s.device));
  log_precision(s.precision);
  warn_if_amp_against_family(s);
  if (s.device.is_cuda()) {
    at::globalContext().setBenchmarkCuDNN(!s.config.multi_scale);
    at::globalContext().setBenchmarkLimitCuDNN(s.config.cudnn_benchmark_limit);
  }
  if (s.config.batch < 0) resolve_autobatch(s, request);
  prepare_augmentation(s);
  load_data(s, request);
  build_model(s, request);
  build_optimization(s);
}

}  // namespace libreyolo::core::trainer
