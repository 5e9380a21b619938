#pragma once
// How much of a distributed step's communication the GPU hid behind computation. NCCL runs each
// collective as a kernel of its own, on its own stream; the gradient buckets' all-reduces are
// launched while backward still runs (docs/multi-gpu.md), so on the timeline they overlap the
// backward's kernels. What does not overlap is communication the step waits for ("exposed").
// Free of LibTorch.

#include <cstdint>
#include <string>
#include <vector>

#include "libreyolo/core/profiler/kernel_timeline.hpp"
#include "libreyolo/core/profiler/profile_report.hpp"

namespace libreyolo::core::profiler {

struct CommunicationOverlap {
  int steps = 0;                 // unsynchronised steps measured
  std::int64_t kernels = 0;      // communication kernels started inside them
  double communication_us = 0;   // union of the communication kernels' intervals, all steps
  double overlapped_us = 0;      // the part of it during which some other kernel ran too

  double exposed_us() const { return communication_us - overlapped_us; }
  double overlapped_share() const { return communication_us > 0 ? overlapped_us / communication_us : 0; }
};

// NCCL's kernels (ncclDevKernel_AllReduce_..., ncclKernel_...): every collective the trainer
// issues over NCCL. Gloo (the CPU backend) runs none.
bool is_communication_kernel(const std::string& name);

// Over the unsynchronised steps of `steps` (kernels clipped to their spans, as GPU busy time
// is: the synchronised half's waits would not be the step's): communication time and the part
// of it that overlapped other kernels. A window without communication kernels gives zeros.
CommunicationOverlap communication_overlap(const std::vector<StepRecord>& steps,
                                           const std::vector<DeviceEvent>& kernels);

// The report's per-step communication numbers from a window's overlap (unchanged without steps).
void record_communication(ProfileReport& report, const CommunicationOverlap& overlap);

}  // namespace libreyolo::core::profiler
