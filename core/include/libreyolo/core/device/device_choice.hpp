#pragma once
// device=: auto, cpu, 0, cuda:0 for one process; a list of GPUs (0,1 / [0, 1]) asks `train` to
// start one worker per GPU; mps is refused on this platform.

#include <torch/types.h>

#include <string>
#include <vector>

namespace libreyolo::core::distributed {
struct RankEnvironment;
}

namespace libreyolo::core::device {

// The device of a single-process run. Throws core::Error for an unknown spelling, a GPU that
// does not exist, or a list of GPUs (the caller handles lists before).
torch::Device choose_device(const std::string& spec);

// The CUDA indices a device= list names ("0,1", "[0, 1]", "cuda:0,cuda:1"), checked against
// this machine; empty when the spec names one device, cpu or auto. Throws for duplicates,
// malformed entries or GPUs that do not exist.
std::vector<int> requested_gpus(const std::string& spec);

// The device of one rank of a distributed run: the GPU the launcher gave it, cpu when device=cpu
// (or auto without CUDA), else cuda:LOCAL_RANK, as torchrun-style launchers expect.
torch::Device choose_rank_device(const std::string& spec, const distributed::RankEnvironment& ranks);

}  // namespace libreyolo::core::device
