#pragma once
// Which dataset indices each rank trains on in each epoch, in which batches. Like PyTorch's
// DistributedSampler: one permutation per epoch (from seed and epoch, the same on every rank),
// padded by wrapping around to a multiple of the world size so every rank runs the same
// number of steps, then rank r takes positions r, r + world, r + 2 * world, ...

#include <cstddef>
#include <cstdint>
#include <vector>

namespace libreyolo::core::data {

struct SamplerOptions {
  std::size_t dataset_size = 0;
  int batch_size = 16;  // per rank
  int rank = 0;
  int world_size = 1;
  bool shuffle = true;
  bool drop_last = false;  // false: the epoch's last batch may be smaller
  std::uint64_t seed = 0;
};

class EpochSampler {
 public:
  explicit EpochSampler(SamplerOptions options);

  // The batches of dataset indices this rank trains on in `epoch`.
  std::vector<std::vector<std::size_t>> batches(int epoch) const;
  std::size_t steps_per_epoch() const;
  std::size_t samples_per_rank() const;

 private:
  SamplerOptions options_;
};

// A well-mixed 64-bit seed from several numbers (splitmix64 of each, chained): per-sample
// augmentation seeds derive from (seed, epoch, position), so a sample's augmentation does not
// depend on which worker thread made it or when.
std::uint64_t mix_seed(std::uint64_t a, std::uint64_t b, std::uint64_t c = 0, std::uint64_t d = 0);

}  // namespace libreyolo::core::data
