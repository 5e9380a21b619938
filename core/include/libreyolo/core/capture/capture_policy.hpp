#pragma once
// When to capture a CUDA graph, when to replay one, and when to run eager: the bookkeeping
// half of the capture manager, free of LibTorch so it can be tested without a GPU.
//
// docs/design.md#cuda-graphs: a graph is valid only for the input shape it recorded. A shape is
// captured once it has been seen `repeats_before_capture` times; every other shape (multi-scale
// batches, an epoch's last partial batch) runs eager. Invalidation (a family announcing that
// its captured computation changed) drops every graph and restarts the counts. A disabled
// policy runs everything eager for the rest of the run.

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace libreyolo::core::capture {

using Shape = std::vector<std::int64_t>;

// "16x3x640x640"
std::string shape_text(const Shape& shape);

// Whole-step capture (region `step`): the target capacity a batch with at most `boxes` boxes per
// image is padded to, the smallest of 16, 24, 32, 48, 64, 96, 128, ... (powers of two and one and
// a half times them) that holds them. A few graphs cover any dataset, and padding costs the
// criterion at most half again.
std::int64_t target_capacity(std::int64_t boxes);

struct CaptureSettings {
  int repeats_before_capture = 3;  // sightings of a shape, this one included, before capturing
  int max_graphs = 2;              // each graph pins about one copy of the activations
};

enum class StepPlan { eager, capture, replay };

struct StepDecision {
  StepPlan plan = StepPlan::eager;
  // Set on the first eager run of a shape (and when a shape is refused a graph because
  // max_graphs are held): the one log line the manager writes for it.
  std::string eager_note;
};

// The end-of-epoch line about batches that ran eager (empty when none did): how many, in which
// shapes, and the lever when multi-scale is why shapes do not repeat (the DETR trap of docs/design.md#cuda-graphs).
std::string eager_epoch_note(const std::map<Shape, int>& eager, int batches, const CaptureSettings& settings,
                             std::size_t graphs_held, bool multi_scale);

class CapturePolicy {
 public:
  explicit CapturePolicy(CaptureSettings settings = {});

  // Counts one sighting of `shape` and says how to run it.
  StepDecision decide(const Shape& shape);

  // The capture that decide() asked for worked: later sightings replay.
  void captured(const Shape& shape);

  // Every graph is gone (family announcement): counts restart, shapes are logged again.
  void invalidate();

  // The rest of the run is eager (a capture or replay failed, or capture does not apply).
  void disable();
  bool disabled() const { return disabled_; }

  // The batches of the epoch that ran eager while capture was on, by shape; counting starts
  // again for the next epoch.
  std::map<Shape, int> take_epoch_eager();

  bool holds_graph(const Shape& shape) const { return graphs_.count(shape) > 0; }
  std::size_t graphs_held() const { return graphs_.size(); }
  const CaptureSettings& settings() const { return settings_; }

 private:
  CaptureSettings settings_;
  std::map<Shape, int> sightings_;
  std::set<Shape> graphs_;
  std::set<Shape> noted_eager_;  // shapes whose eager run was already logged
  std::map<Shape, int> epoch_eager_;
  bool disabled_ = false;
};

}  // namespace libreyolo::core::capture
