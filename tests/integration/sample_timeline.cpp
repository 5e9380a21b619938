// Writes timeline.html for a synthetic GPU window (CI has no GPU, so this is how the kernel
// lanes and the merged-block drawing get opened in a real browser): 6 unsynchronised and 6
// synchronised steps with KERNELS kernels per unsynchronised step.
// Usage: sample_timeline OUT.html KERNELS_PER_STEP
#include <cstdio>
#include <cstdlib>
#include <fstream>

#include "libreyolo/core/profiler/communication_overlap.hpp"
#include "libreyolo/core/profiler/timeline_html.hpp"
#include "libreyolo/core/profiler/window_measures.hpp"
#include "synthetic_window.hpp"

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: sample_timeline OUT.html KERNELS_PER_STEP\n");
    return 2;
  }
  using namespace libreyolo::core::profiler;
  const int kernels = std::atoi(argv[2]);
  ProfileReport r;
  r.config = {{"model", "synthetic"}, {"batch", "8"}};
  r.environment = {{"device", "synthetic GPU"}};
  r.skip = 5;
  r.first_half = 6;
  r.steps = libreyolo::test::make_steps(6, {2, 38}, 6);
  r.kernel_timeline = libreyolo::test::make_kernels(r.steps, kernels, 30000.0 / kernels, 3);
  // A second stream overlapping the first (an NCCL all-reduce): a second lane, drawn orange.
  for (const auto& step : r.steps) {
    if (!step.synchronized) {
      r.kernel_timeline.push_back({"ncclDevKernel_AllReduce_Sum_f32_RING_LL", (step.start_ms + 5) * 1000.0, 4000});
    }
  }
  // As a distributed run's report has them (communication_overlap.hpp): the page shows both.
  record_communication(r, communication_overlap(r.steps, r.kernel_timeline));
  r.measures = measure_window(r.steps, r.kernel_timeline, true, true);
  r.measures.reserved_fraction = 0.3;
  r.reserved_gb = 40;
  r.device_total_gb = 139;
  r.verdict = decide_verdict(r.measures);
  const auto summary = summarize(r.kernel_timeline);
  r.kernel_events = summary.events;
  r.kernels = summary.by_name;
  r.kernel_clock = "unix";
  std::ofstream out(argv[1]);
  write_timeline_html(out, r);
  return out ? 0 : 1;
}
