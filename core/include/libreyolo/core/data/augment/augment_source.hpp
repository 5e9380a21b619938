#pragma once
// Where augmentation gets dataset images from (the loader wraps its ImageSource and labels;
// tests use an in-memory one).

#include <cstddef>

#include "libreyolo/core/data/image/sample.hpp"

namespace libreyolo::core::data {

class AugmentSource {
 public:
  static constexpr int kSlots = 5;  // 0..3 mosaic tiles, 4 the mixup image

  virtual ~AugmentSource() = default;
  virtual std::size_t size() const = 0;
  // Image `index` (RGB HWC uint8; normally long side imgsz, as the cache stores it) and its
  // boxes in its pixels. The view must stay valid until sample() is called again with the same
  // `slot`: up to kSlots views are in use at once. May throw core::Error.
  virtual SampleView sample(std::size_t index, int slot) = 0;
};

}  // namespace libreyolo::core::data
