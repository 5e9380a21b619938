#pragma once
// The seam between the training step and the profiler (docs/design.md#profiler): the trainer marks
// where each phase of a step begins; an observer, when one is attached, timestamps the marks.
// Without an observer a mark is one null-pointer check, nothing else.

namespace libreyolo::core::profiler {

// The phases of one training step, in the order they run.
enum class StepPhase : int {
  data_wait,  // waiting for the loader's next batch
  h2d,        // the batch's upload and conversion to the network's input
  forward,    // the capturable region (eager, or a CUDA graph replay)
  remainder,  // the family's eager remainder after the captured region
  loss,       // the criterion: label assignment and losses
  backward,   // backward of loss and network
  grad_sync,  // gradient all-reduce (distributed runs)
  optimizer,  // unscale, clip, optimizer step, scaler update, lr schedule
  ema,        // EMA weight update
  other,      // anything after the above until the next step
};
constexpr int kStepPhaseCount = 10;

const char* to_string(StepPhase phase);

class StepObserver {
 public:
  virtual ~StepObserver() = default;
  // A step (one batch) begins, before its data wait. When the loader then has no batch left
  // (the epoch is over), no step_ends() follows: the next step_begins() abandons that one.
  virtual void step_begins() = 0;
  // `phase` begins now; the previous phase of the step ends.
  virtual void phase_begins(StepPhase phase) = 0;
  // The step's last phase ends.
  virtual void step_ends() = 0;
};

inline void mark_phase(StepObserver* observer, StepPhase phase) {
  if (observer) observer->phase_begins(phase);
}

}  // namespace libreyolo::core::profiler
