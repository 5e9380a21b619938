#pragma once
// The CUDA half of side_by_side (side_by_side.hpp): the side streams of one device and the
// events that fork and join them. side_streams_cuda.cpp in builds whose LibTorch has CUDA,
// side_streams_unavailable.cpp otherwise.

#include <torch/types.h>

#include <string>
#include <vector>

#include "libreyolo/sdk/side_by_side.hpp"

namespace libreyolo::sdk {

// Why this build cannot run branches on side streams ("" when it can).
std::string side_streams_unavailable();
// Makes device `device`'s side streams (once per device; idempotent). Throws where CUDA refuses.
void make_side_streams(int device);
// side_by_side's streamed path: branches[0] on the current stream of `device`, the others on
// side streams; the current stream waits for all before this returns (also when a branch throws).
std::vector<torch::Tensor> run_on_side_streams(int device, const std::vector<torch::Tensor>& inputs,
                                               const std::vector<Branch>& branches);

}  // namespace libreyolo::sdk
