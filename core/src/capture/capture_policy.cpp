#include "libreyolo/core/capture/capture_policy.hpp"

#include <stdexcept>

#include "libreyolo/sdk/strings.hpp"

namespace libreyolo::core::capture {

std::string shape_text(const Shape& shape) {
  std::string text;
  for (std::size_t i = 0; i < shape.size(); ++i) text += (i ? "x" : "") + std::to_string(shape[i]);
  return text;
}

CapturePolicy::CapturePolicy(CaptureSettings settings) : settings_(settings) {
  if (settings_.repeats_before_capture < 1 || settings_.max_graphs < 1) {
    throw std::invalid_argument("CapturePolicy: repeats_before_capture and max_graphs must be >= 1");
  }
}

StepDecision CapturePolicy::decide(const Shape& shape) {
  StepDecision decision;
  if (disabled_) return decision;
  if (graphs_.count(shape)) {
    decision.plan = StepPlan::replay;
    return decision;
  }
  const int seen = ++sightings_[shape];
  const bool room = static_cast<int>(graphs_.size()) < settings_.max_graphs;
  if (seen >= settings_.repeats_before_capture && room) {
    decision.plan = StepPlan::capture;
    return decision;
  }
  if (noted_eager_.insert(shape).second) {
    decision.eager_note =
        room ? sdk::str_cat("batch shape ", shape_text(shape), " runs eager until it has been seen ",
                            settings_.repeats_before_capture, " times")
             : sdk::str_cat("batch shape ", shape_text(shape), " runs eager: ", graphs_.size(),
                            " graphs are already held (each pins its own activation memory)");
  }
  return decision;
}

void CapturePolicy::captured(const Shape& shape) { graphs_.insert(shape); }

void CapturePolicy::invalidate() {
  graphs_.clear();
  sightings_.clear();
  noted_eager_.clear();
}

void CapturePolicy::disable() {
  disabled_ = true;
  graphs_.clear();
}

}  // namespace libreyolo::core::capture
