#pragma once
// A complete ProfileReport, as the profiler would build it on a GPU run, for the artifact and
// round-trip tests. Kernel names carry what JSON and HTML must escape.

#include "libreyolo/core/profiler/window_measures.hpp"
#include "synthetic_window.hpp"

namespace libreyolo::test {

inline core::profiler::ProfileReport sample_report() {
  using namespace core::profiler;
  ProfileReport r;
  r.config = {{"model", "yolo9s"}, {"batch", "16"}, {"data", "C:\\data\\\"quoted\".yaml"}};
  r.environment = {{"device", "cuda:0 (NVIDIA H200)"}, {"libtorch", "2.11.0"}};
  r.skip = 5;
  r.first_half = 3;
  r.steps = make_steps(3, {0.5, 19.5}, 2);
  r.kernel_timeline = make_kernels(r.steps, 40, 100, 1);
  r.kernel_timeline.push_back({"void at::native::kernel<float, </script><!-- \"x\">(\t)", 100.0, 7.5});
  r.measures = measure_window(r.steps, r.kernel_timeline, true, true);
  r.measures.alloc_retries = 0;
  r.measures.reserved_fraction = 0.25;
  r.reserved_gb = 34.5;
  r.device_total_gb = 138.0;
  r.verdict = decide_verdict(r.measures);
  const auto summary = summarize(r.kernel_timeline);
  r.kernel_events = summary.events;
  r.kernels = summary.by_name;
  r.kernel_busy_us = busy_within_steps_us(r.steps, r.kernel_timeline);
  r.kernel_clock = "unix";
  return r;
}

}  // namespace libreyolo::test
