#pragma once
// Independent branches of a forward, side by side on CUDA streams (fused_kernels=branch_streams;
// docs/fused-kernels.md, "Branches side by side").
//
// A YOLO's blocks hold branches that read the same input and meet only at an addition or a
// concatenation: RepConvN's 3x3 and 1x1 convolutions, a CSP block's shortcut convolution beside
// its bottleneck chain, the head's box and class towers. PyTorch runs them one after the other
// on one stream, and their kernels are small: most of the GPU idles under each. Here every
// branch but the first runs on a side stream of its own that starts once the caller's stream has
// made the inputs; the caller's stream runs the first branch and then waits for the others. The
// host calls the branches in their order (the first, then the others), as without streams.
// Autograd runs each backward node on the stream its forward ran on (and orders the streams where
// gradients cross), so the backward's branches run side by side too; in a recorded CUDA graph the
// streams' events become the graph's edges. The kernels and their inputs are the same ones:
// outputs and gradients are the same bits as one after the other.
//
// Memory read on a stream other than the one it was made on is recorded with the caching
// allocator (record_stream), so it is not handed out again while the other stream may still
// read it.
//
// Without CUDA inputs, without the policy (fused_kernels), or before the host permits it (one
// CUDA device, no distributed training), the branches run one after the other, in order.

#include <torch/types.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "libreyolo/sdk/export.hpp"

namespace libreyolo::sdk {

using Branch = std::function<torch::Tensor()>;

// Where a set of branches sits. `block`: inside a building block (RepConvN's two convolutions, a
// CSP block's shortcut beside its chain): small branches, many of them. `level`: the detector's
// level structure (the finest level's head beside the rest of the neck, the levels' heads, a
// head's towers): fewer, larger branches. fused_kernels=branch_streams runs both on side streams;
// level_streams only `level` (the first measurement, 2026-12-05: every branch on side streams
// overlapped 2 ms of YOLOv9-t's kernels yet made the step 0.7% slower; whether the block-level
// forks and joins cost more than they win is what level_streams asks).
enum class BranchScope { block, level };

// Runs `branches` and returns their outputs, in order. Every branch reads only `inputs` (and its
// own modules' parameters) and nothing another branch makes. Put the longest branch first: it
// stays on the caller's stream; the others start beside it from a ForkPoint made before it.
// The branches are called in order either way.
LIBREYOLO_SDK_API std::vector<torch::Tensor> side_by_side(const std::vector<torch::Tensor>& inputs,
                                                          const std::vector<Branch>& branches,
                                                          BranchScope scope = BranchScope::block);

// A branch running on a side stream, joined when the caller needs its output (ForkPoint::start).
// Where streams are refused it has already run; join() then only hands the output over.
class LIBREYOLO_SDK_API SideBranch {
 public:
  SideBranch(SideBranch&& other) noexcept;
  SideBranch& operator=(SideBranch&&) = delete;
  SideBranch(const SideBranch&) = delete;
  SideBranch& operator=(const SideBranch&) = delete;
  // Joins if join() was not called (an exception is on its way; a CUDA graph needs the join).
  ~SideBranch();

  // The branch's output, once the caller's stream has waited for it. Once only.
  torch::Tensor join();

 private:
  friend class ForkPoint;
  SideBranch(torch::Tensor output, void* stream, int device);

  torch::Tensor output_;
  void* stream_ = nullptr;  // the side stream (a cudaStream_t); null where it ran in place
  int device_ = -1;
  bool joined_ = false;
};

// A point on the caller's stream that branches called later may start from: on the GPU they wait
// only for what the caller's stream had queued when the point was made, so they run beside
// whatever the caller queued in between (a detector's finest-level head beside the rest of its
// neck). Branches are called, and their autograd nodes made, in the order the caller calls
// start(): the same order as without streams, so autograd adds gradients in the same order and
// the results are the same bits. Where side_by_side would refuse streams, start() runs the branch
// at once. The branches read only `inputs` (and their own modules), which the caller's work in
// between must not write.
class LIBREYOLO_SDK_API ForkPoint {
 public:
  ForkPoint(const std::vector<torch::Tensor>& inputs, BranchScope scope);
  SideBranch start(const Branch& branch) const;

 private:
  std::vector<torch::Tensor> inputs_;
  std::shared_ptr<void> event_;  // recorded on the caller's stream; null: streams refused
  int device_ = -1;
};

// The host's permission, process-wide: side streams on CUDA device `device` (its index), or none
// (-1, the default). The host permits one device's training and evaluation only: distributed
// training's gradient hooks expect autograd's work on one stream. Makes the side streams.
LIBREYOLO_SDK_API void permit_branch_streams(int device);
// Why side_by_side runs the branches of a call with these inputs one after the other ("" when it
// would run them side by side).
LIBREYOLO_SDK_API std::string branch_streams_refusal(const std::vector<torch::Tensor>& inputs,
                                                     BranchScope scope = BranchScope::block);

// Whether fused_kernels asks for side streams at some scope (branch_streams or level_streams): the
// host then decides whether it permits them.
LIBREYOLO_SDK_API bool branch_streams_requested();

}  // namespace libreyolo::sdk
