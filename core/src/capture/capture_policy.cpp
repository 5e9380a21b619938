#include "libreyolo/core/capture/capture_policy.hpp"

#include <stdexcept>

#include "libreyolo/sdk/strings.hpp"

namespace libreyolo::core::capture {

std::int64_t target_capacity(std::int64_t boxes) {
  for (std::int64_t power = 16;; power *= 2) {
    if (boxes <= power) return power;
    if (boxes <= power + power / 2) return power + power / 2;
  }
}

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
  ++epoch_eager_[shape];
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

std::map<Shape, int> CapturePolicy::take_epoch_eager() {
  std::map<Shape, int> taken;
  taken.swap(epoch_eager_);
  return taken;
}

std::string eager_epoch_note(const std::map<Shape, int>& eager, int batches, const CaptureSettings& settings,
                             std::size_t graphs_held, bool multi_scale) {
  int eager_batches = 0;
  for (const auto& entry : eager) eager_batches += entry.second;
  if (eager_batches == 0) return "";
  constexpr std::size_t kShapesNamed = 6;
  std::string shapes;
  std::size_t named = 0;
  for (const auto& [shape, count] : eager) {
    if (named++ == kShapesNamed) break;
    shapes += sdk::str_cat(shapes.empty() ? "" : ", ", shape_text(shape), " (", count, ")");
  }
  if (eager.size() > kShapesNamed) shapes += sdk::str_cat(" and ", eager.size() - kShapesNamed, " more");
  const bool full = static_cast<int>(graphs_held) >= settings.max_graphs;
  auto note = sdk::str_cat(eager_batches, " of this epoch's ", batches, " batches ran eager, in ", eager.size(),
                           " shapes ", full ? "without a graph slot or " : "", "not yet seen ",
                           settings.repeats_before_capture, " times: ", shapes);
  if (multi_scale) {
    note += "; multi-scale gives each batch one of several sizes, so shapes rarely repeat: multi_scale=false "
            "lets every batch replay one graph";
  }
  return note;
}

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
