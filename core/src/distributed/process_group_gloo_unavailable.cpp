// A build whose LibTorch came without the Gloo headers (libgloo-dev): no CPU process groups.
#include "c10d_collectives.hpp"

namespace libreyolo::core::distributed {

bool gloo_available() { return false; }

std::shared_ptr<Collectives> make_gloo_collectives(const c10::intrusive_ptr<c10d::Store>&, int, int,
                                                   std::chrono::milliseconds, torch::Device) {
  return nullptr;
}

}  // namespace libreyolo::core::distributed
