#pragma once
// The CUDA half of side_by_side and SideBranch (side_by_side.hpp): the side streams of one device
// and the events that fork and join them. side_streams_cuda.cpp in builds whose LibTorch has CUDA,
// side_streams_unavailable.cpp otherwise.

#include <torch/types.h>

#include <memory>
#include <string>
#include <vector>

#include "libreyolo/sdk/side_by_side.hpp"

namespace libreyolo::sdk {

// Why this build cannot run branches on side streams ("" when it can).
std::string side_streams_unavailable();
// Makes device `device`'s side streams (once per device; idempotent). Throws where CUDA refuses.
void make_side_streams(int device);

// An event recorded on the current stream of `device` now (type-erased: the header stays free of
// CUDA's types).
std::shared_ptr<void> mark_fork_point(int device);

// A branch running on a side stream: its output and the stream (a cudaStream_t).
struct ForkedBranch {
  torch::Tensor output;
  void* stream = nullptr;
};
// Runs `branch` on the next side stream of `device` that is not the current one, after the
// work queued before `point`; `inputs` are recorded as read there. If the branch throws, the
// current stream waits for the side stream before the exception goes on.
ForkedBranch fork_branch(int device, const std::shared_ptr<void>& point, const std::vector<torch::Tensor>& inputs,
                         const Branch& branch);
// The current stream waits for everything the forked branch's stream has queued; the output is
// recorded as read on the current stream.
void join_branch(int device, const ForkedBranch& forked);

}  // namespace libreyolo::sdk
