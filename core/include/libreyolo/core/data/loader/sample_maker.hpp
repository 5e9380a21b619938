#pragma once
// Makes one training (or validation) sample: dataset image `index` turned into the network's
// square input, written straight into its slot of the batch buffer. Each loader worker owns
// one SampleMaker, so makers keep their scratch buffers without locks.

#include <cstddef>
#include <functional>
#include <memory>
#include <random>
#include <vector>

#include "libreyolo/core/data/image/sample.hpp"

namespace libreyolo::core::data {

struct EpochMode {
  int epoch = 0;
  // Which of the recipe's augmentation pipelines the epoch uses (the epoch schedule switches
  // them, e.g. mosaic off for the final no_aug_epochs). Validation makers ignore it.
  std::size_t pipeline = 0;
};

class SampleMaker {
 public:
  virtual ~SampleMaker() = default;
  // Fills `out` (imgsz x imgsz RGB uint8) and `boxes` (output pixels, xyxy). All randomness
  // comes from `rng`, seeded per sample by the loader. May throw core::Error (an image that
  // cannot be decoded); the loader then substitutes another image and warns once.
  virtual void make(std::size_t index, const EpochMode& mode, std::mt19937_64& rng,
                    MutableImageView out, std::vector<PixelBox>& boxes) = 0;
};

using SampleMakerFactory = std::function<std::unique_ptr<SampleMaker>()>;

}  // namespace libreyolo::core::data
