#pragma once
// fused_kernels=branch_streams (sdk/side_by_side.hpp): whether this session's network may run its
// independent branches on side streams.

namespace libreyolo::core::trainer {

struct Session;

// Permits the SDK's side streams for a run on one CUDA device, forbids them otherwise
// (distributed training: its gradient hooks and buckets expect autograd's work on one stream).
// One log line when the policy asks for them. Call once the distributed setup is known.
void prepare_branch_streams(Session& session);

}  // namespace libreyolo::core::trainer
