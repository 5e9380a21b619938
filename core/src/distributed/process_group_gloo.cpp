// The Gloo backend: CPU tensors (and CUDA ones through host copies, when NCCL is missing).
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>

#include <cstdlib>

#include "c10d_collectives.hpp"

namespace libreyolo::core::distributed {

bool gloo_available() { return true; }

std::shared_ptr<Collectives> make_gloo_collectives(const c10::intrusive_ptr<c10d::Store>& store, int rank,
                                                   int world_size, std::chrono::milliseconds timeout,
                                                   torch::Device device) {
  auto options = c10d::ProcessGroupGloo::Options::create(timeout);
  // GLOO_SOCKET_IFNAME picks the network interface on multi-homed hosts, as in PyTorch.
  if (const char* interface = std::getenv("GLOO_SOCKET_IFNAME"); interface && *interface) {
    options->devices.push_back(c10d::ProcessGroupGloo::createDeviceForInterface(interface));
  } else {
    options->devices.push_back(c10d::ProcessGroupGloo::createDefaultDevice());
  }
  try {
    auto group = c10::make_intrusive<c10d::ProcessGroupGloo>(store, rank, world_size, options);
    return std::make_shared<C10dCollectives<c10d::ProcessGroupGloo>>(store, group, device);
  } catch (const std::exception& e) {
    throw collective_failure("Gloo connection setup", e);
  }
}

}  // namespace libreyolo::core::distributed
