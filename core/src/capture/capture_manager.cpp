#include "libreyolo/core/capture/capture_manager.hpp"

#include <torch/torch.h>

#include <chrono>
#include <cstdio>
#include <exception>

#include "libreyolo/core/log/log.hpp"
#include "libreyolo/core/optim/unique_parameters.hpp"
#include "libreyolo/sdk/batch_count.hpp"
#include "libreyolo/sdk/detector.hpp"

namespace libreyolo::core::capture {
namespace {

std::vector<torch::Tensor> trainable_parameters(sdk::Detector& model) {
  return optim::unique_parameters(model, /*trainable_only=*/true);
}

// Region `step` falls back to the network region where the whole step cannot be recorded.
sdk::CaptureRegion effective_region(const CaptureRequest& request) {
  if (request.region == sdk::CaptureRegion::step && !request.whole_step_refusal.empty()) return sdk::CaptureRegion::network;
  return request.region;
}

CaptureSettings settings_for(const CaptureRequest& request) {
  auto settings = request.settings;
  if (effective_region(request) == sdk::CaptureRegion::step) settings.max_graphs = kMaxStepGraphs;
  return settings;
}

std::string fixed(double value, int decimals) {
  char text[32];
  std::snprintf(text, sizeof text, "%.*f", decimals, value);
  return text;
}

}  // namespace

std::string capture_refusal(const CaptureRequest& request, bool recorder_available) {
  if (!recorder_available) return "this build has no CUDA support";
  if (!request.cuda_device) return "training runs on the CPU (CUDA graphs need a CUDA device)";
  if (request.region == sdk::CaptureRegion::none) {
    return "family " + request.family + " declares no capturable region";
  }
  if (request.world_size > 1) return "distributed runs train eager (the gradient all-reduce is not captured)";
  return "";
}

CaptureManager::CaptureManager(const CaptureRequest& request, sdk::Detector& model,
                               std::unique_ptr<GraphRecorder> recorder)
    : model_(model), policy_(settings_for(request)), region_name_(sdk::to_string(effective_region(request))),
      generation_(model.capture_generation()) {
  const auto refusal = capture_refusal(request, recorder != nullptr);
  if (!request.cuda_graph) {
    // Eager is the default (as in LibreYOLO), and on a GPU the host issuing every kernel is most
    // of an eager step: say once what the user can turn on.
    if (refusal.empty()) {
      log::info("cuda_graph=false: training runs eager; cuda_graph=true would record the ",
                region_name_, " region as a CUDA graph, several times faster where the "
                "host's kernel launches bound the step (docs/cuda-graphs.md)");
    }
    return;
  }
  if (!refusal.empty()) {
    log::info("cuda_graph=true has no effect: ", refusal, "; training runs eager");
    policy_.disable();
    return;
  }
  recorder_ = std::move(recorder);
  whole_step_ = effective_region(request) == sdk::CaptureRegion::step;
  const auto repeats = request.settings.repeats_before_capture;
  if (whole_step_) {
    log::info("cuda_graph: the whole training step (forward, loss, backward, gradient scaler, optimizer, EMA) is "
              "captured once a batch shape has been seen ", repeats, " times");
    return;
  }
  if (request.region == sdk::CaptureRegion::step) {
    log::info("cuda_graph: the whole-step graph is not used (", request.whole_step_refusal, "); the network region is "
              "captured instead");
  }
  log::info("cuda_graph: the ", region_name_, " region is captured once a batch shape has been seen ", repeats, " times");
}

CaptureManager::~CaptureManager() = default;

double CaptureManager::graph_memory_gb() const {
  double total = 0;
  for (const auto& entry : graphs_) total += entry.second->pinned_gb();
  for (const auto& entry : step_graphs_) total += entry.second->pinned_gb();
  return total;
}

// The region's forward with BatchNorm's step counters moved in one multi-tensor add
// (sdk/batch_count.hpp) instead of one kernel a layer, flushed inside the region so that a graph
// recording it replays the flush too.
std::vector<torch::Tensor> CaptureManager::region_forward(const torch::Tensor& images) {
  sdk::BatchCountDeferral counters;
  auto outputs = model_.forward_capturable(images);
  counters.flush();
  return outputs;
}

std::vector<torch::Tensor> CaptureManager::forward(const torch::Tensor& images, const std::vector<std::int64_t>& region_key) {
  if (whole_step()) return region_forward(images);  // counted by run_step
  if (!active()) {
    ++counters_.eager;
    return region_forward(images);
  }
  drop_graphs_if_announced();
  Shape shape(images.sizes().begin(), images.sizes().end());
  shape.insert(shape.end(), region_key.begin(), region_key.end());
  const auto decision = policy_.decide(shape);
  switch (decision.plan) {
    case StepPlan::replay:
      try {
        auto outputs = graphs_.at(shape)->run(images);
        ++counters_.replays;
        return outputs;
      } catch (const std::exception& e) {
        fall_back("replaying the graph of batch shape " + shape_text(shape), e.what());
      }
      break;
    case StepPlan::capture:
      return record_and_run(shape, images);
    case StepPlan::eager:
      if (!decision.eager_note.empty()) log::info("cuda_graph: ", decision.eager_note);
      break;
  }
  ++counters_.eager;
  return region_forward(images);
}

StepRun CaptureManager::run_step(const Shape& key, const StepFunction& step, const std::function<void()>& abandoned) {
  if (!whole_step()) throw std::logic_error("run_step outside whole-step mode");
  drop_graphs_if_announced();
  const auto decision = policy_.decide(key);
  switch (decision.plan) {
    case StepPlan::replay:
      try {
        step_graphs_.at(key)->replay();
        ++counters_.replays;
        return StepRun::replayed;
      } catch (const std::exception& e) {
        fall_back("replaying the step graph of " + shape_text(key), e.what());
        abandoned();
        ++counters_.eager;
        step();
        return StepRun::fell_back;
      }
    case StepPlan::capture:
      return record_step(key, step, abandoned);
    case StepPlan::eager:
      if (!decision.eager_note.empty()) log::info("cuda_graph: ", decision.eager_note);
      break;
  }
  ++counters_.eager;
  step();
  return StepRun::eager;
}

StepRun CaptureManager::record_step(const Shape& key, const StepFunction& step, const std::function<void()>& abandoned) {
  const auto start = std::chrono::steady_clock::now();
  const auto device = model_.parameters().empty() ? torch::Device(torch::kCPU) : model_.parameters().front().device();
  try {
    auto graph = recorder_->record_step(step, device);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    log::info("cuda_graph: captured the whole step for ", shape_text(key), " in ", fixed(seconds, 2),
              " s; it added ", fixed(graph->pinned_gb(), 2), " GB to the step graphs' memory");
    counters_.unchained_memsets += graph->unchained_memsets();
    step_graphs_[key] = std::move(graph);
    policy_.captured(key);
    ++counters_.captures;
    return StepRun::recorded;
  } catch (const CaptureFailure& e) {
    fall_back("capturing the whole step for " + shape_text(key), e.what());
    abandoned();
    ++counters_.eager;  // the step ran once, eager, before the recording failed
    return StepRun::fell_back;
  }
}

void CaptureManager::end_epoch(int batches, bool multi_scale) {
  const auto eager = policy_.take_epoch_eager();
  if (!active()) return;
  const auto note = eager_epoch_note(eager, batches, policy_.settings(), policy_.graphs_held(), multi_scale);
  if (!note.empty()) log::info("cuda_graph: ", note);
}

void CaptureManager::drop_graphs_if_announced() {
  const auto generation = model_.capture_generation();
  if (generation == generation_) return;
  generation_ = generation;
  drop_graphs(model_.last_capture_change_reason());
}

void CaptureManager::invalidate(const std::string& reason) {
  if (!active()) return;  // nothing recorded, nothing to say
  drop_graphs(reason);
}

void CaptureManager::drop_graphs(const std::string& reason) {
  ++counters_.invalidations;
  const bool had_graphs = !graphs_.empty() || !step_graphs_.empty();
  graphs_.clear();
  step_graphs_.clear();
  policy_.invalidate();
  log::info("cuda_graph: ", reason, had_graphs ? "; graphs dropped" : "",
            "; shapes are captured again after ", policy_.settings().repeats_before_capture, " repeats");
}

std::vector<torch::Tensor> CaptureManager::record_and_run(const Shape& shape, const torch::Tensor& images) {
  const auto start = std::chrono::steady_clock::now();
  try {
    std::vector<torch::Tensor> buffers;
    for (const auto& b : model_.buffers()) buffers.push_back(b);
    auto graph = recorder_->record([this](const torch::Tensor& x) { return region_forward(x); }, images,
                                   trainable_parameters(model_), buffers);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    log::info("cuda_graph: captured batch shape ", shape_text(shape), " (forward + backward of the ", region_name_,
              " region) in ", fixed(seconds, 2), " s; the graph holds ", fixed(graph->pinned_gb(), 2),
              " GB of device memory");
    if (model_.capturable_region_is_stochastic() && !said_stochastic_) {
      said_stochastic_ = true;
      log::info("cuda_graph: the captured region draws random numbers (e.g. stochastic depth); replays draw "
                "from the graph's own random stream, so they differ from an eager run's draws");
    }
    counters_.unchained_memsets += graph->unchained_memsets();
    auto outputs = graph->run(images);
    graphs_[shape] = std::move(graph);
    policy_.captured(shape);
    ++counters_.captures;
    return outputs;
  } catch (const std::exception& e) {
    fall_back("capturing batch shape " + shape_text(shape), e.what());
  }
  ++counters_.eager;
  return region_forward(images);
}

void CaptureManager::fall_back(const std::string& what, const std::string& error) {
  ++counters_.failures;
  graphs_.clear();  // releases every graph's private memory pool
  step_graphs_.clear();
  policy_.disable();
  // c10::Error messages carry a C++ backtrace after the first line; the first line is the news.
  const auto first_line = error.substr(0, error.find('\n'));
  log::warn("cuda_graph: ", what, " failed (", first_line, "); the rest of the run trains eager");
}

std::unique_ptr<StepGraph> GraphRecorder::record_step(const StepFunction& step, const torch::Device&) {
  step();
  throw CaptureFailure("this recorder records network regions only");
}

}  // namespace libreyolo::core::capture
