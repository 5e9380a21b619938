#include "libreyolo/core/distributed/global_batch.hpp"

#include <string>

#include "libreyolo/core/error.hpp"

namespace libreyolo::core::distributed {

int per_rank_batch(int batch, int world_size) {
  if (world_size <= 1) return batch;
  const auto b = std::to_string(batch), w = std::to_string(world_size);
  if (batch < world_size) {
    throw Error("batch=" + b + " is the global batch and is smaller than world_size=" + w,
                "each rank trains at batch // world_size, which would be 0 images",
                "Use batch=" + w + " or larger (a multiple of " + w + ").");
  }
  if (batch % world_size != 0) {
    const int below = batch / world_size * world_size, above = below + world_size;
    throw Error("batch=" + b + " is the global batch and must be divisible by world_size=" + w,
                "each rank trains at batch // world_size, so this value would silently train at a different global "
                "batch than requested",
                "Use batch=" + std::to_string(below) + " or batch=" + std::to_string(above) + ".");
  }
  return batch / world_size;
}

}  // namespace libreyolo::core::distributed
