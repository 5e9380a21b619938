#pragma once
// The few random draws augmentation needs, written out instead of taken from <random>'s
// distributions: the standard leaves their algorithms to each library, so the same seed would
// give different augmentations under libstdc++ and libc++. These depend on the engine only,
// and std::mt19937_64's output is fixed by the standard, so a seed means the same sample
// everywhere.

#include <cstdint>
#include <random>

namespace libreyolo::core::data {

// Uniform in [0, 1), 53 random bits.
inline double uniform01(std::mt19937_64& rng) {
  return static_cast<double>(rng() >> 11) * (1.0 / 9007199254740992.0);
}

// Uniform in [0, 1) as a float of 24 random bits: the values torch.rand gives on the CPU. The
// torchvision-style transforms do their geometry in float32 on such draws (int(w * r) etc.),
// so they take them in this form.
inline float uniform01_f32(std::mt19937_64& rng) {
  return static_cast<float>(rng() >> 40) * (1.0f / 16777216.0f);
}

// Uniform in [lo, hi) (Python's random.uniform(lo, hi) up to the closed end).
inline double uniform(std::mt19937_64& rng, double lo, double hi) {
  return lo + (hi - lo) * uniform01(rng);
}

// Uniform integer in [lo, hi], both ends included (Python's random.randint). hi <= lo gives lo.
// The modulo bias is below 2^-40 for any range augmentation uses.
inline int uniform_int(std::mt19937_64& rng, int lo, int hi) {
  if (hi <= lo) return lo;
  const std::uint64_t span = static_cast<std::uint64_t>(static_cast<std::int64_t>(hi) - lo) + 1;
  return static_cast<int>(lo + static_cast<std::int64_t>(rng() % span));
}

// True with probability p: p >= 1 always, p <= 0 never (one draw either way, so the number of
// draws does not depend on the probabilities).
inline bool chance(std::mt19937_64& rng, double p) { return uniform01(rng) < p; }

// Beta(a, b) from two gamma draws (Marsaglia-Tsang), for yolo9's mixup ratio.
double beta_sample(std::mt19937_64& rng, double a, double b);

}  // namespace libreyolo::core::data
