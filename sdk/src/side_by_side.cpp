// side_by_side: the choice between side streams and one after the other (side_by_side.hpp).
#include "libreyolo/sdk/side_by_side.hpp"

#include <atomic>
#include <memory>
#include <stdexcept>
#include <string>

#include "libreyolo/sdk/fused_kernels.hpp"
#include "side_streams.hpp"

namespace libreyolo::sdk {
namespace {

std::atomic<int> permitted_device{-1};

std::vector<torch::Tensor> one_after_the_other(const std::vector<Branch>& branches) {
  std::vector<torch::Tensor> outputs;
  outputs.reserve(branches.size());
  for (const auto& branch : branches) outputs.push_back(branch());
  return outputs;
}

}  // namespace

void permit_branch_streams(int device) {
  if (device >= 0 && side_streams_unavailable().empty()) make_side_streams(device);
  permitted_device.store(device);
}

bool branch_streams_requested() { return fused_kernel_allowed("branch_streams") || fused_kernel_allowed("level_streams"); }

std::string branch_streams_refusal(const std::vector<torch::Tensor>& inputs, BranchScope scope) {
  if (!fused_kernel_allowed("branch_streams")) {
    if (scope == BranchScope::block) return "fused_kernels does not allow branch_streams";
    if (!fused_kernel_allowed("level_streams")) return "fused_kernels does not allow branch_streams or level_streams";
  }
  if (auto unavailable = side_streams_unavailable(); !unavailable.empty()) return unavailable;
  const int device = permitted_device.load();
  if (device < 0) return "the host permits side streams for training on one CUDA device only";
  if (inputs.empty()) return "the branches name no input";
  for (const auto& input : inputs) {
    if (!input.defined() || !input.is_cuda() || input.get_device() != device)
      return "an input is not on the permitted CUDA device";
  }
  return "";
}

std::vector<torch::Tensor> side_by_side(const std::vector<torch::Tensor>& inputs, const std::vector<Branch>& branches,
                                        BranchScope scope) {
  if (branches.empty()) throw std::invalid_argument("side_by_side: no branches to run");
  // No log line here: the host says once whether it permitted side streams, and why not.
  if (branches.size() == 1 || !branch_streams_refusal(inputs, scope).empty()) return one_after_the_other(branches);
  const ForkPoint point(inputs, scope);  // the others start from here, beside the first
  std::vector<torch::Tensor> outputs{branches[0]()};
  std::vector<SideBranch> started;  // joined by their destructors if a branch throws
  started.reserve(branches.size() - 1);
  for (std::size_t i = 1; i < branches.size(); ++i) started.push_back(point.start(branches[i]));
  for (auto& branch : started) outputs.push_back(branch.join());
  return outputs;
}

ForkPoint::ForkPoint(const std::vector<torch::Tensor>& inputs, BranchScope scope) : inputs_(inputs) {
  if (!branch_streams_refusal(inputs, scope).empty()) return;
  device_ = permitted_device.load();
  event_ = mark_fork_point(device_);
}

SideBranch ForkPoint::start(const Branch& branch) const {
  if (!event_) return SideBranch(branch(), nullptr, -1);
  auto forked = fork_branch(device_, event_, inputs_, branch);
  return SideBranch(std::move(forked.output), forked.stream, device_);
}

SideBranch::SideBranch(torch::Tensor output, void* stream, int device)
    : output_(std::move(output)), stream_(stream), device_(device) {}

SideBranch::SideBranch(SideBranch&& other) noexcept
    : output_(std::move(other.output_)), stream_(other.stream_), device_(other.device_), joined_(other.joined_) {
  other.joined_ = true;  // the moved-from one has nothing left to join
}

SideBranch::~SideBranch() {
  if (joined_ || stream_ == nullptr) return;
  try {
    join_branch(device_, {output_, stream_});
  } catch (...) {
    // Already unwinding from another error: that one is the message to keep.
  }
}

torch::Tensor SideBranch::join() {
  if (joined_) throw std::logic_error("SideBranch::join: joined already (its output was handed over once)");
  joined_ = true;
  if (stream_ != nullptr) join_branch(device_, {output_, stream_});
  return std::move(output_);
}

}  // namespace libreyolo::sdk
