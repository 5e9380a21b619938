#include "libreyolo/core/distributed/process_group.hpp"

#include <torch/csrc/distributed/c10d/TCPStore.hpp>
#include <torch/version.h>

#include <algorithm>
#include <cstdlib>

#include "c10d_collectives.hpp"
#include "libreyolo/core/error.hpp"
#include "libreyolo/core/log/log.hpp"

namespace libreyolo::core::distributed {
namespace {

// How long the rendezvous waits for every rank to arrive. Shorter than the collectives'
// timeout: a rank that never starts (a typo in a launcher script) should not hold the others
// for three hours.
constexpr std::chrono::minutes kRendezvousTimeout{15};

c10::intrusive_ptr<c10d::Store> rendezvous(const ProcessGroupOptions& o) {
  c10d::TCPStoreOptions store;
  store.port = static_cast<std::uint16_t>(o.master_port);
  store.isServer = o.rank == 0;
  store.numWorkers = static_cast<std::size_t>(o.world_size);
  store.waitWorkers = true;
  store.timeout = std::min<std::chrono::milliseconds>(o.timeout, kRendezvousTimeout);
  try {
    return c10::make_intrusive<c10d::TCPStore>(o.master_addr, store);
  } catch (const std::exception& e) {
    std::string detail = e.what();
    throw Error("rank " + std::to_string(o.rank) + " could not join the rendezvous at " + o.master_addr + ":" +
                    std::to_string(o.master_port),
                detail.substr(0, detail.find('\n')),
                "check that every rank was started with the same MASTER_ADDR/MASTER_PORT, that rank 0 runs, and "
                "that the port is free and reachable");
  }
}

}  // namespace

std::string backend_for(const torch::Device& device) {
  if (device.is_cuda()) return nccl_available() ? "nccl" : (gloo_available() ? "gloo" : "");
  return gloo_available() ? "gloo" : "";
}

std::shared_ptr<Collectives> join_process_group(const ProcessGroupOptions& o) {
  const auto backend = backend_for(o.device);
  if (backend.empty()) {
    throw Error("distributed training on " + o.device.str() + " is not available in this build",
                "it was built without " + std::string(o.device.is_cuda() ? "NCCL or " : "") +
                    "Gloo (the Gloo headers, Debian package libgloo-dev, were missing at configure time)",
                "install libgloo-dev (and NCCL for GPUs) and rebuild, or train on one device");
  }
  // NCCL: a failed or timed-out collective tears the process down instead of leaving it hung,
  // so a dead rank ends the others (a user's own setting wins). LibTorch 1.13 reads the old
  // spelling; 2.x reads the new one and warns about the old one once set.
  ::setenv("TORCH_NCCL_ASYNC_ERROR_HANDLING", "1", 0);
#if TORCH_VERSION_MAJOR < 2
  ::setenv("NCCL_ASYNC_ERROR_HANDLING", "1", 0);
#endif
  auto store = rendezvous(o);
  auto collectives = backend == "nccl"
                         ? make_nccl_collectives(store, o.rank, o.world_size, o.timeout, o.device)
                         : make_gloo_collectives(store, o.rank, o.world_size, o.timeout, o.device);
  log::info("distributed: rank ", o.rank, " of ", o.world_size, " on ", o.device.str(), " joined (", backend, ", ",
            o.master_addr, ":", o.master_port, ", timeout ",
            std::chrono::duration_cast<std::chrono::seconds>(o.timeout).count(), " s)");
  return collectives;
}

}  // namespace libreyolo::core::distributed
