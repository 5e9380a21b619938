// side_by_side: the choice between side streams and one after the other (side_by_side.hpp).
#include "libreyolo/sdk/side_by_side.hpp"

#include <atomic>
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

std::string branch_streams_refusal(const std::vector<torch::Tensor>& inputs) {
  if (!fused_kernel_allowed("branch_streams")) return "fused_kernels does not allow branch_streams";
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

std::vector<torch::Tensor> side_by_side(const std::vector<torch::Tensor>& inputs, const std::vector<Branch>& branches) {
  if (branches.empty()) throw std::invalid_argument("side_by_side: no branches to run");
  // No log line here: the host says once whether it permitted side streams, and why not.
  if (branches.size() == 1 || !branch_streams_refusal(inputs).empty()) return one_after_the_other(branches);
  return run_on_side_streams(permitted_device.load(), inputs, branches);
}

}  // namespace libreyolo::sdk
