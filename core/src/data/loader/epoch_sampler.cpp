#include "libreyolo/core/data/loader/epoch_sampler.hpp"

#include <algorithm>
#include <numeric>
#include <random>

#include "libreyolo/core/error.hpp"

namespace libreyolo::core::data {
namespace {

std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

}  // namespace

std::uint64_t mix_seed(std::uint64_t a, std::uint64_t b, std::uint64_t c, std::uint64_t d) {
  std::uint64_t h = splitmix64(a);
  for (std::uint64_t v : {b, c, d}) h = splitmix64(h ^ splitmix64(v));
  return h;
}

EpochSampler::EpochSampler(SamplerOptions options) : options_(options) {
  if (options_.world_size < 1 || options_.rank < 0 || options_.rank >= options_.world_size) {
    throw Error("invalid rank " + std::to_string(options_.rank) + " of world size " +
                    std::to_string(options_.world_size),
                "rank must be in [0, world_size)", "check RANK and WORLD_SIZE");
  }
  if (options_.batch_size < 1) {
    throw Error("batch size " + std::to_string(options_.batch_size) + " per rank is too small",
                "each rank needs at least one image per step", "raise batch");
  }
  if (options_.dataset_size == 0) {
    throw Error("the dataset is empty", "there is nothing to sample", "check the data= split");
  }
}

std::size_t EpochSampler::samples_per_rank() const {
  const auto world = static_cast<std::size_t>(options_.world_size);
  return (options_.dataset_size + world - 1) / world;
}

std::size_t EpochSampler::steps_per_epoch() const {
  const auto per_rank = samples_per_rank();
  const auto batch = static_cast<std::size_t>(options_.batch_size);
  return options_.drop_last ? per_rank / batch : (per_rank + batch - 1) / batch;
}

std::vector<std::vector<std::size_t>> EpochSampler::batches(int epoch) const {
  std::vector<std::size_t> order(options_.dataset_size);
  std::iota(order.begin(), order.end(), std::size_t{0});
  if (options_.shuffle) {
    std::mt19937_64 rng(mix_seed(options_.seed, static_cast<std::uint64_t>(epoch), 0x5A3D1E));
    // Fisher-Yates with our own index draw: std::shuffle's use of the engine is
    // implementation-defined, and the order must not change with the standard library.
    for (std::size_t i = order.size(); i > 1; --i) {
      std::swap(order[i - 1], order[rng() % i]);
    }
  }
  const auto world = static_cast<std::size_t>(options_.world_size);
  const std::size_t padded = samples_per_rank() * world;
  std::vector<std::size_t> mine;
  mine.reserve(samples_per_rank());
  for (std::size_t p = static_cast<std::size_t>(options_.rank); p < padded; p += world) {
    mine.push_back(order[p % order.size()]);
  }
  std::vector<std::vector<std::size_t>> result;
  const auto batch = static_cast<std::size_t>(options_.batch_size);
  for (std::size_t start = 0; start < mine.size(); start += batch) {
    const std::size_t end = std::min(mine.size(), start + batch);
    if (options_.drop_last && end - start < batch) break;
    result.emplace_back(mine.begin() + static_cast<std::ptrdiff_t>(start),
                        mine.begin() + static_cast<std::ptrdiff_t>(end));
  }
  return result;
}

}  // namespace libreyolo::core::data
