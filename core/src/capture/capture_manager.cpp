#include "libreyolo/core/capture/capture_manager.hpp"

#include <torch/torch.h>

#include <chrono>
#include <cstdio>
#include <exception>

#include "libreyolo/core/log/log.hpp"
#include "libreyolo/core/optim/unique_parameters.hpp"
#include "libreyolo/sdk/detector.hpp"

namespace libreyolo::core::capture {
namespace {

std::vector<torch::Tensor> trainable_parameters(sdk::Detector& model) {
  return optim::unique_parameters(model, /*trainable_only=*/true);
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
    : model_(model), policy_(request.settings), region_name_(sdk::to_string(request.region)),
      generation_(model.capture_generation()) {
  if (!request.cuda_graph) return;  // silent: the user did not ask
  const auto refusal = capture_refusal(request, recorder != nullptr);
  if (!refusal.empty()) {
    log::info("cuda_graph=true has no effect: ", refusal, "; training runs eager");
    policy_.disable();
    return;
  }
  recorder_ = std::move(recorder);
  log::info("cuda_graph: the ", region_name_, " region is captured once a batch shape has been seen ",
            request.settings.repeats_before_capture, " times");
}

CaptureManager::~CaptureManager() = default;

double CaptureManager::graph_memory_gb() const {
  double total = 0;
  for (const auto& entry : graphs_) total += entry.second->pinned_gb();
  return total;
}

std::vector<torch::Tensor> CaptureManager::forward(const torch::Tensor& images) {
  if (!active()) {
    ++counters_.eager;
    return model_.forward_capturable(images);
  }
  drop_graphs_if_announced();
  const Shape shape(images.sizes().begin(), images.sizes().end());
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
  return model_.forward_capturable(images);
}

void CaptureManager::end_epoch(int batches, bool multi_scale) {
  const auto eager = policy_.take_epoch_eager();
  if (!active()) return;
  const auto note = eager_epoch_note(eager, batches, policy_.settings(), graphs_.size(), multi_scale);
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
  const bool had_graphs = !graphs_.empty();
  graphs_.clear();
  policy_.invalidate();
  log::info("cuda_graph: ", reason, had_graphs ? "; graphs dropped" : "",
            "; shapes are captured again after ", policy_.settings().repeats_before_capture, " repeats");
}

std::vector<torch::Tensor> CaptureManager::record_and_run(const Shape& shape, const torch::Tensor& images) {
  const auto start = std::chrono::steady_clock::now();
  try {
    std::vector<torch::Tensor> buffers;
    for (const auto& b : model_.buffers()) buffers.push_back(b);
    auto graph = recorder_->record([this](const torch::Tensor& x) { return model_.forward_capturable(x); }, images,
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
    auto outputs = graph->run(images);
    graphs_[shape] = std::move(graph);
    policy_.captured(shape);
    ++counters_.captures;
    return outputs;
  } catch (const std::exception& e) {
    fall_back("capturing batch shape " + shape_text(shape), e.what());
  }
  ++counters_.eager;
  return model_.forward_capturable(images);
}

void CaptureManager::fall_back(const std::string& what, const std::string& error) {
  ++counters_.failures;
  graphs_.clear();  // releases every graph's private memory pool
  policy_.disable();
  // c10::Error messages carry a C++ backtrace after the first line; the first line is the news.
  const auto first_line = error.substr(0, error.find('\n'));
  log::warn("cuda_graph: ", what, " failed (", first_line, "); the rest of the run trains eager");
}

}  // namespace libreyolo::core::capture
