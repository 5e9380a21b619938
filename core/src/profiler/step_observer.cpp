#include "libreyolo/core/profiler/step_observer.hpp"

namespace libreyolo::core::profiler {

const char* to_string(StepPhase phase) {
  switch (phase) {
    case StepPhase::data_wait: return "data_wait";
    case StepPhase::h2d: return "h2d";
    case StepPhase::forward: return "forward";
    case StepPhase::remainder: return "remainder";
    case StepPhase::loss: return "loss";
    case StepPhase::backward: return "backward";
    case StepPhase::grad_sync: return "grad_sync";
    case StepPhase::optimizer: return "optimizer";
    case StepPhase::ema: return "ema";
    case StepPhase::other: return "other";
  }
  return "?";
}

}  // namespace libreyolo::core::profiler
