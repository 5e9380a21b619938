#pragma once
// Joining the ranks of a distributed run: a TCPStore rendezvous at MASTER_ADDR:MASTER_PORT (rank
// 0 serves it), then a c10d process group: NCCL when the rank trains on a CUDA device and this
// build has NCCL, Gloo otherwise.

#include <torch/types.h>

#include <chrono>
#include <memory>
#include <string>

#include "libreyolo/core/distributed/collectives.hpp"

namespace libreyolo::core::distributed {

struct ProcessGroupOptions {
  int rank = 0;
  int world_size = 1;
  std::string master_addr = "127.0.0.1";
  int master_port = 29500;
  torch::Device device = torch::kCPU;                 // the rank's training device
  std::chrono::milliseconds timeout = std::chrono::hours(3);  // ddp_timeout: a collective waiting longer fails
};

// Blocks until every rank has joined (or the rendezvous times out). Throws core::Error naming
// what failed: the rendezvous address, a backend this build lacks.
std::shared_ptr<Collectives> join_process_group(const ProcessGroupOptions& options);

// "nccl" or "gloo": the backend join_process_group picks for `device` in this build, or "" when
// this build has none for it (the error join_process_group would raise).
std::string backend_for(const torch::Device& device);

}  // namespace libreyolo::core::distributed
