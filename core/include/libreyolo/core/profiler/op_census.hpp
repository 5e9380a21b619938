#pragma once
// For `bench step`: how many operations the host dispatches in each phase of a step. A step
// whose GPU waits on the host (RT-DETR's and D-FINE's eager decoder and loss) costs host time
// roughly per dispatched operation, on any device; counting them on the CPU shows which phase
// a change made lighter without a GPU. Counted through LibTorch's RecordFunction callbacks
// (every dispatcher operator and autograd node, on every thread) while a census is open.
// Each outermost operator's host time is kept by name too: which kinds of operator the host
// spends its step on (times include the census's own callbacks, so they rank, not time).

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "libreyolo/core/profiler/step_observer.hpp"

namespace libreyolo::core::profiler {

struct OpCount {
  std::int64_t outermost = 0;  // operators called by the host's own code (and autograd nodes): the dispatches it pays for
  std::int64_t all = 0;        // with the operators those call in turn (aten::linear -> aten::addmm, ...)
};

// An outermost operator's name, how often it ran and the host time it took (its inner calls
// included: an autograd node's time is its whole backward function).
struct OpTally {
  std::string name;
  std::int64_t calls = 0;
  double host_ms = 0;
};

enum class OpOrder { calls, host_time };

// One census at a time per process (the callbacks are global). Phases come from the trainer's
// marks: attach the census as the step's observer. Operators on other threads (autograd's
// device threads run the backward of CUDA tensors) count in the phase the host is in.
class OpCensus : public StepObserver {
 public:
  OpCensus();  // starts counting
  ~OpCensus() override;
  OpCensus(const OpCensus&) = delete;
  OpCensus& operator=(const OpCensus&) = delete;

  void step_begins() override;
  void phase_begins(StepPhase phase) override;
  void step_ends() override;

  OpCount count(StepPhase phase) const;
  // The phase's outermost operators by name, most called (or most host time) first, at most
  // `most` of them.
  std::vector<OpTally> top(StepPhase phase, std::size_t most, OpOrder order = OpOrder::calls) const;
  OpCount total() const;
  int steps() const { return steps_; }

 private:
  std::uint64_t handle_ = 0;
  int steps_ = 0;
};

}  // namespace libreyolo::core::profiler
