#pragma once
// The end of a training step (a float16 run's gradient unscaling and inf/NaN check, SGD with
// momentum, the float16 weight copies' refresh, the EMA, the gradient scaler's update) in three
// kernels over a table of every parameter and buffer, instead of PyTorch's multi-tensor
// operators (about 87 launches a YOLOv9-t step). Plain interface (raw pointers and a stream, no
// torch headers): fused_optimizer_step.cpp builds the table and calls it
// (docs/fused-kernels.md, "Optimizer step").

#include <cstdint>

namespace libreyolo::core::amp::fused {

constexpr int kStepMostGroups = 8;  // the optimizer's parameter groups

enum class SlotKind : std::int32_t { float32, int64_copy };

// One tensor's work. float32: `param` (and what the optimizer keeps beside it) is updated where
// `grad` is set, then copied to `copy` (float16 bits) and averaged into `average` where those are
// set. int64_copy: `average` (int64) takes `param`'s (int64) values, as the EMA copies integer
// buffers. Every tensor of a slot has the same layout, so element i of each belongs together.
struct OptimizerSlot {
  void* param = nullptr;
  const void* grad = nullptr;  // float16 (grad_half) or float32; nullptr: not updated this step
  float* momentum = nullptr;   // set with grad
  void* average = nullptr;     // the EMA's tensor, nullptr: none
  std::uint16_t* copy = nullptr;  // float16 bits, nullptr: none
  std::int32_t numel = 0;
  std::int32_t first_block = 0;  // within its launch (set by the launch)
  SlotKind kind = SlotKind::float32;
  std::int32_t group = 0;       // the optimizer's parameter group (grad set)
  std::int32_t grad_half = 0;
};

// How torch's fused SGD rounds, which its version and nvcc decide: each of its four multiply-adds
// (weight decay g + wd * p, momentum m * buf + g, Nesterov g + m * buf, the step p - lr * g) is
// either one fused multiply-add or a product and a sum (the kFused* bits), in float32 with the
// scalars rounded to float32 (recent PyTorch), or, with kDoubleScalars, in double as PyTorch
// before about 2.6 wrote it. FusedOptimizerStep measures which on the device it runs on
// (optimizer_step_calibration.cpp), and on the CPU which one gives our Sgd::step's bits.
enum SgdRounding : std::int32_t {
  kFusedDecay = 1,
  kFusedMomentum = 2,
  kFusedNesterov = 4,
  kFusedStep = 8,
  kDoubleScalars = 16,
};
constexpr std::int32_t kSgdRoundings = 17;  // 0-15: float32 scalars; 16: double

// Everything but the table: device pointers to the scaler's, optimizer's and EMA's scalars and
// the run's constants. The doubles are what PyTorch's kernels take as double arguments.
struct StepScalars {
  float* found_inf = nullptr;      // 0 before the check; 1 after an inf/NaN; 0 again at the end
  float* scale = nullptr;          // the gradient scaler's
  std::int32_t* growth_tracker = nullptr;
  float* skip_streak = nullptr;    // optimizer steps skipped in a row; nullptr: not counted
  const float* lr[kStepMostGroups] = {};
  double weight_decay[kStepMostGroups] = {};
  double momentum = 0;  // dampening is 0: Sgd's only setting
  std::int32_t nesterov = 0;
  std::int32_t sgd_rounding = 0;  // SgdRounding bits
  const float* decay = nullptr;    // the EMA's d and 1 - d (nullptr: no EMA)
  const float* keep = nullptr;
  double growth_factor = 2.0, backoff_factor = 0.5;
  std::int32_t growth_interval = 2000;
};

// 0 on success, else the CUDA error code (optimizer_step_error_text names it). The slots travel
// in the launches' parameters (no table in device memory to upload or keep alive, so a recorded
// graph holds them): as many launches as the parameter space needs, one or two for YOLOv9-t.
// found_inf = 1 where a gradient of `slots` is not finite.
int optimizer_step_check(const OptimizerSlot* slots, int count, float* found_inf, void* stream);
// The update of every slot; after the check.
int optimizer_step_update(const OptimizerSlot* slots, int count, const StepScalars& scalars, void* stream);
// The skip streak, the scale's update and found_inf back to 0 (one thread); after every update.
int optimizer_step_finish(const StepScalars& scalars, void* stream);
const char* optimizer_step_error_text(int code);

}  // namespace libreyolo::core::amp::fused
