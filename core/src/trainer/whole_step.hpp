#pragma once
// The whole training step as one CUDA graph (capture region `step`, docs/cuda-graphs.md): the
// static buffers a recorded step reads, the device-side state it needs (the lr and the EMA decay
// as device tensors), and the step that trains from the buffers through the capture manager.
// Private to core/src/trainer/.

#include <torch/types.h>

#include <cstdint>
#include <map>
#include <utility>
#include <optional>
#include <string>

#include "libreyolo/core/capture/capture_policy.hpp"
#include "session.hpp"

namespace libreyolo::core::trainer {

// One graph's inputs and output, allocated outside every graph and kept as long as the session.
struct StepInputs {
  torch::Tensor images;  // the network's input (to_network_input's layout and type)
  torch::Tensor boxes;   // [B, capacity, 5], rows past counts[b] zero
  torch::Tensor counts;  // [B] int64
  torch::Tensor losses;  // the loss components the step wrote
};

// The buffers behind every key's StepInputs. Keys share them where their shapes agree (the
// images of one batch shape, about 79 MB at 16 x 640 px in float32, serve every capacity and
// accumulation role; the boxes of one capacity serve both roles; one loss buffer serves all):
// graphs replay one at a time, each right after its inputs were written, and the caller copies
// the losses out before the next.
struct StepBuffers {
  std::map<capture::Shape, torch::Tensor> images;                             // by [B, C, H, W]
  std::map<capture::Shape, std::pair<torch::Tensor, torch::Tensor>> targets;  // by [B, capacity]
  torch::Tensor losses;
  std::map<capture::Shape, StepInputs> by_key;  // handles to the above, stable for the graphs' closures
};

// The graph key of a batch: its shape, the target capacity and the accumulation role.
capture::Shape whole_step_key(const data::Batch& batch, const optim::AccumulationWindow& window);

// Why this session cannot record whole steps ("" when it can; also "" when its family does not
// declare region `step`, which the capture manager never asks about).
std::string whole_step_refusal(const Session& session);

// For families that declare region `step`, on CUDA: the optimizer reads its lr from the device
// and the EMA its decay, in eager and recorded steps alike, so the two compute the same bits.
// Call once the optimizer, scaler and EMA exist, before the capture manager is made.
void prepare_device_step_state(Session& session);

// fused_kernels=weight_casts (docs/fused-kernels.md, "Weight casts"): in whole-step mode under
// autocast, the session's convolutions read low-precision copies of their weights instead of
// casting them one by one in every forward. Says in one line what it did or why not. Call after
// the capture manager is made.
void prepare_weight_copies(Session& session);
// fused_kernels=weight_grad_stream: the weight copies' convolutions compute their weight
// gradients on a second stream (amp/weight_gradient_stream.hpp). Call after prepare_weight_copies.
void prepare_weight_gradient_stream(Session& session);
// fused_kernels=optimizer_step (amp/fused_optimizer_step.hpp): with one batch a window, no
// clipping and no distributed averaging, where the window ends on the device (a family of region
// `step` on CUDA under float16: prepare_device_step_state), the end of every step in three
// kernels: recorded, or eager where fused_kernels also names eager_optimizer_step. Says in one
// line what it did or why not. Call after prepare_weight_copies.
void prepare_fused_optimizer_step(Session& session);
// The end of a window in the fused optimizer step's three kernels (after ModelEma::advance, with
// the weight copies' gradients where the backward left them). False when this step's tensors do
// not fit it (logged once), having passed the copies' gradients on: finish_window_on_device then.
bool finish_with_fused_step(Session& session);
// After the first backward that used it: one log line saying how many layers did.
void report_weight_gradient_stream(Session& session);

// One training step through the capture manager's whole-step mode: eager, recorded or replayed.
// nullopt when the session is not in that mode or this batch needs the ordinary step
// (multi-scale); the caller runs train_step's eager path then.
std::optional<torch::Tensor> whole_step(Session& session, const data::Batch& batch,
                                        const optim::AccumulationWindow& window);

}  // namespace libreyolo::core::trainer
