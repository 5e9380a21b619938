#pragma once
// `batch` is the global batch (docs/design.md#multi-gpu-training): each of world_size ranks trains at
// batch / world_size. No LibTorch here: the launcher checks this before it spawns anything.

namespace libreyolo::core::distributed {

// batch / world_size. Throws core::Error, with the nearest valid batches, when it does not
// divide (training would silently run at another global batch than requested) or when a rank
// would get no image.
int per_rank_batch(int batch, int world_size);

}  // namespace libreyolo::core::distributed
