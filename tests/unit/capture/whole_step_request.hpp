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
  // Sightings before capturing, this one included (capture_policy.hpp): eager on the first, recorded
  // on the second. 1 would record on the first (the twenty-third session's GPU run found the stream
  // tests expecting an eager step first).
  request.settings.repeats_before_capture = 2;
  return request;
}
