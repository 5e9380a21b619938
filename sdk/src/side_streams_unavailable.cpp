// A build whose LibTorch has no CUDA, or configured with LIBREYOLO_SIDE_STREAMS=OFF: side_by_side
// always runs its branches one after the other, SideBranch in place.
#include <stdexcept>

#include "side_streams.hpp"

namespace libreyolo::sdk {

std::string side_streams_unavailable() {
#ifdef LIBREYOLO_SIDE_STREAMS_OFF
  return "this build was configured without side streams (LIBREYOLO_SIDE_STREAMS=OFF)";
#else
  return "this build has no CUDA";
#endif
}

void make_side_streams(int) {}

std::shared_ptr<void> mark_fork_point(int) {
  throw std::logic_error("side_by_side: this build has no side streams (ask branch_streams_refusal first)");
}

ForkedBranch fork_branch(int, const std::shared_ptr<void>&, const std::vector<torch::Tensor>&, const Branch&) {
  throw std::logic_error("side_by_side: this build has no side streams (ask branch_streams_refusal first)");
}

void join_branch(int, const ForkedBranch&) {
  throw std::logic_error("side_by_side: this build has no side streams (ask branch_streams_refusal first)");
}

}  // namespace libreyolo::sdk
