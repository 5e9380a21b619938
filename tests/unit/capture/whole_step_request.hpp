#pragma once
// For GPU cases that run a model's step through the capture manager's whole-step mode: eager once,
// then recorded, then replayed (one repeat before the recording).
#include "libreyolo/core/capture/capture_manager.hpp"

inline libreyolo::core::capture::CaptureRequest whole_step_request() {
  libreyolo::core::capture::CaptureRequest request;
  request.cuda_graph = true;
  request.cuda_device = true;
  request.family = "test";
  request.region = libreyolo::sdk::CaptureRegion::step;
  request.settings.repeats_before_capture = 1;
  return request;
}
