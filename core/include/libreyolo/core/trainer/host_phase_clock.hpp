#pragma once
// For `bench step`: where a step's host time goes and which host phase the GPU was waiting on.
// The trainer's phase marks are stamped on the Unix clock, the clock Kineto reports kernels in,
// so each GPU idle gap can be charged to the phase the host was in when the GPU resumed (the
// phase that issued the late kernel).

#include <string>
#include <vector>

#include "libreyolo/core/profiler/kernel_timeline.hpp"
#include "libreyolo/core/profiler/step_observer.hpp"
#include "libreyolo/core/trainer/benchmarks.hpp"

namespace libreyolo::core::trainer {

class HostPhaseClock : public profiler::StepObserver {
 public:
  void step_begins() override;
  void phase_begins(profiler::StepPhase phase) override;
  // Call after the step's synchronisation: the time since train_step returned is charged to
  // "synchronize".
  void step_ends() override;
  void train_step_returned();

  // Per step over the recorded steps, in the order phases first appeared.
  std::vector<HostPhaseTime> attribute(const std::vector<profiler::DeviceEvent>& events) const;

  // What the observer calls record, at a given time (public for tests): `phase` begins at
  // `unix_us`; "start" also counts a step; an empty name closes the step's last phase.
  void record(const std::string& phase, double unix_us);

 private:
  struct Mark {
    std::string phase;
    double unix_us;
  };
  std::vector<Mark> marks_;
  int steps_ = 0;
};

}  // namespace libreyolo::core::trainer
