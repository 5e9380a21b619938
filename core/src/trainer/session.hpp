#pragma once
// Everything one training run holds, shared by the loop (trainer.cpp) and the checkpoint
// glue (training_state.cpp). Private to core/src/trainer/.

#include <chrono>
#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "libreyolo/core/amp/grad_scaler.hpp"
#include "libreyolo/core/capture/capture_manager.hpp"
#include "libreyolo/core/amp/precision_plan.hpp"
#include "libreyolo/core/amp/fused_optimizer_step.hpp"
#include "libreyolo/core/amp/weight_copies.hpp"
#include "libreyolo/core/amp/weight_gradient_stream.hpp"
#include "libreyolo/core/data/dataset/dataset_config.hpp"
#include "libreyolo/core/data/dataset/dataset_samples.hpp"
#include "libreyolo/core/data/loader/data_loader.hpp"
#include "libreyolo/core/distributed/collectives.hpp"
#include "libreyolo/core/distributed/gradient_sync.hpp"
#include "libreyolo/core/optim/accumulation.hpp"
#include "libreyolo/core/optim/lr_schedule.hpp"
#include "libreyolo/core/optim/model_ema.hpp"
#include "libreyolo/core/optim/optimizer.hpp"
#include "libreyolo/core/plugins/family_registry.hpp"
#include "libreyolo/core/profiler/step_observer.hpp"
#include "libreyolo/core/trainer/augmentation_plan.hpp"
#include "libreyolo/core/trainer/run_folder.hpp"
#include "libreyolo/core/config/train_config.hpp"
#include "libreyolo/core/trainer/lagged_device_read.hpp"
#include "libreyolo/core/trainer/trainer.hpp"
#include "libreyolo/sdk/criterion.hpp"
#include "libreyolo/sdk/detector.hpp"
#include "saved_checkpoints.hpp"

namespace libreyolo::core::trainer {

// Where the run stands; what last.pt carries besides weights.
struct ProgressState {
  int start_epoch = 0;             // first epoch this process trains (after a resume: last + 1)
  std::int64_t global_step = 0;    // optimizer steps since the run began (the lr schedule's clock)
  double best_fitness = 0;         // best validated mAP50-95
  int best_epoch = -1;             // 0-based; -1 before the first validation
  int skipped_in_a_row = 0;        // optimizer steps skipped for non-finite gradients
};

// What the freeze= option stopped (layer_freezing.cpp). The recipe's own frozen patterns are
// not here: they were never the user's choice, and they keep LibreYOLO's behaviour (BatchNorm
// statistics still update, the EMA averages them).
struct FrozenLayers {
  std::size_t tensors = 0;  // parameter tensors freeze= stopped
  std::int64_t values = 0;  // values in them
  // BatchNorm layers with a frozen parameter: back in eval mode after every model->train()
  // (enter_training_mode), so their running statistics stay as they are, as LibreYOLO's
  // _enforce_frozen_bn_eval keeps them.
  std::vector<std::shared_ptr<torch::nn::Module>> norms;
  // The state names that cannot change (those parameters and those layers' buffers): the EMA
  // holds them rather than averaging a constant, which would only move it by rounding.
  std::vector<std::string> constant_state;
};

struct StepBuffers;

struct Session {
  // When train() began (setup included): summary.json's total_seconds, as LibreYOLO times it.
  std::chrono::steady_clock::time_point started = std::chrono::steady_clock::now();
  config::TrainConfig config;
  // Distributed runs (world_size > 1): this rank, the collectives joining the ranks, and the
  // gradient averaging. Rank 0 owns every side effect (run folder, logs, checkpoints,
  // validation); `batch` in config stays the global batch, rank_batch is this rank's share.
  int rank = 0, world_size = 1, rank_batch = 16;
  std::shared_ptr<distributed::Collectives> collectives;
  std::unique_ptr<distributed::GradientSynchronizer> gradient_sync;
  bool main_rank() const { return rank == 0; }

  // The options as the command line resolved them (batch=-1 before autobatch), for checkpoints.
  std::vector<config::ReportedOption> options;
  const plugins::LoadedFamily* family = nullptr;
  std::string size;
  sdk::Recipe recipe;  // the family's for this size: pipelines, schedule, groups
  torch::Device device = torch::kCPU;
  amp::PrecisionPlan precision;
  data::DatasetConfig dataset;
  std::shared_ptr<const data::SplitSamples> train_split, val_split;
  std::unique_ptr<data::DataLoader> loader;
  AugmentationPlan augmentation;
  std::size_t pipeline = 0;  // the augmentation pipeline in use (the epoch schedule switches it)
  // Multi-scale batches: on while multi_scale=true and the schedule has not turned it off; each
  // batch is resized to one of `multi_scale_sizes`.
  bool multi_scale = false;
  std::vector<int> multi_scale_sizes;
  sdk::MultiScale::Resize multi_scale_resize = sdk::MultiScale::Resize::bilinear;
  std::shared_ptr<sdk::Detector> model;
  std::shared_ptr<sdk::Criterion> criterion;
  std::unique_ptr<capture::CaptureManager> capture;  // runs the capturable region (eager or graphed)
  std::shared_ptr<StepBuffers> step_buffers;          // whole-step mode: what its graphs read (whole_step.hpp)
  // fused_kernels=weight_casts in whole-step mode: the convolutions read float16 copies of their
  // weights, refreshed after each optimizer step (prepare_weight_copies, whole_step.hpp).
  std::unique_ptr<amp::WeightCopies> weight_copies;
  // fused_kernels=weight_grad_stream, with the weight copies: their convolutions' weight gradients
  // on a second CUDA stream (prepare_weight_gradient_stream, whole_step.hpp).
  std::unique_ptr<amp::WeightGradientStream> weight_grad_stream;
  bool weight_grad_stream_reported = false;  // its first backward logged
  // fused_kernels=optimizer_step in whole-step mode without accumulation: the end of the step
  // in three kernels (prepare_fused_optimizer_step, whole_step.hpp).
  std::unique_ptr<amp::FusedOptimizerStep> fused_optimizer_step;
  bool fused_optimizer_step_refused = false;  // a step's tensors did not fit: logged once
  profiler::StepObserver* observer = nullptr;         // set while the profiler records a window
  std::unique_ptr<optim::Optimizer> optimizer;
  std::unique_ptr<amp::GradScaler> scaler;
  torch::Tensor skip_streak;  // optimizer steps skipped in a row, counted on the device
  LaggedDeviceRead skip_streak_read;  // watches skip_streak without waiting for the device
  bool gradients_clear = false;  // no backward since clear_gradients()
  std::unique_ptr<optim::ModelEma> ema;
  optim::LrSchedule schedule;
  std::int64_t accumulate = 1;
  FrozenLayers frozen;
  RunFolder run;
  std::unique_ptr<RunFolderLock> run_lock;  // rank 0: held until the run ends
  SavedCheckpoints saved;                   // rank 0: what each checkpoint file holds on disk
  ProgressState progress;
};

// Everything `train` needs before its first epoch: device, precision, data and loaders, model,
// criterion, optimizer, scaler, EMA, schedule. The run folder is the caller's business. A
// distributed run joins its ranks first (join_ranks); then the device is already chosen.
void prepare_session(Session& session, const TrainRequest& request);

// Distributed runs (request.ranks with WORLD_SIZE > 1): checks the global batch, chooses this
// rank's device and joins the process group. Sets rank, world_size, rank_batch, device and
// collectives; a single-process run is left to prepare_session.
void join_ranks(Session& session, const TrainRequest& request);

// The capture manager for the session's model: `cuda_graph` as the option says (benchmarks
// build one of each to compare).
std::unique_ptr<capture::CaptureManager> make_capture_manager(const Session& session, bool cuda_graph);

// freeze= (LibreYOLO's layer freezing) applied to the built model, after the recipe's frozen
// patterns and before anything collects the trainable parameters: the selected parameters stop
// (requires_grad false, so no optimizer group), their BatchNorm layers are recorded in
// s.frozen, and one log line says what was frozen. Refuses a selection the model cannot honour
// (core::Error: an index past the family's last freeze group, a name that matches nothing,
// nothing left to train).
void freeze_layers(Session& session);

// model->train() for a training epoch, then the frozen BatchNorm layers back to eval mode.
void enter_training_mode(Session& session);

// Empties every parameter's .grad: zeroed in place while CUDA graphs are in use (the backward
// graph adds into the .grad tensors it recorded), dropped otherwise (autograd's first
// accumulation then takes the new gradient without a kernel).
void clear_gradients(Session& session);

// The profiler's phase mark (nothing while no profiler watches, or in a build without it).
void mark_phase(Session& session, profiler::StepPhase phase);

// Forward (under autocast), loss and scaled backward of a batch already in the network's input
// form on the device; gradients divided by `window_size` and accumulated into .grad. Returns
// the loss components as one float32 device tensor. `pass_copy_gradients` false: the weight
// copies' gradients stay where the backward left them (the fused optimizer step reads them there).
torch::Tensor forward_loss_backward(Session& session, const torch::Tensor& images, const sdk::Targets& targets,
                                    std::int64_t window_size, bool pass_copy_gradients = true);

// Whether this run ends its accumulation windows on the device alone (float16 gradient scaler,
// an optimizer reading its lr from the device): the way a recorded whole step ends them.
bool window_ends_on_device(const Session& session);

// The end of an accumulation window with device work only: unscale (and clip), the fused
// optimizer step (skipped on the device after an inf/NaN gradient), the skip count, the scale
// update, the EMA's move (ModelEma::advance set its decay before). Gradients are left as they
// are: the caller zeroes them.
void finish_window_on_device(Session& session);

// The host's bookkeeping after an accumulation window ended: the skip streak's lagged read, the
// optimizer step count, the next learning rate.
void after_window(Session& session);

// Forward (under autocast), loss and backward of one batch, gradients scaled by the grad
// scaler and divided by `window_size`, accumulated into .grad. Returns the loss components as
// one float32 device tensor (no host read).
torch::Tensor forward_backward(Session& session, const data::Batch& batch, std::int64_t window_size,
                               std::mt19937_64& scale_rng);

// One training step on `batch`: forward (under autocast), loss, backward; and, when `window`
// ends an accumulation window, unscale, clip, optimizer step (skipped for non-finite
// gradients), EMA update and the next learning rate. Returns the loss components as one device
// tensor (no host read). Throws core::Error when too many steps in a row were non-finite.
torch::Tensor train_step(Session& session, const data::Batch& batch, const optim::AccumulationWindow& window,
                         std::mt19937_64& scale_rng);

}  // namespace libreyolo::core::trainer
