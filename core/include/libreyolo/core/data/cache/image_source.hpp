#pragma once
// Where the loader gets a dataset image from: decoded once and kept in RAM, memory-mapped from
// a disk cache, or decoded on demand. Every source returns the image resized so its long side
// is imgsz (aspect ratio kept), RGB HWC uint8, the way LibreYOLO feeds its augmentation.

#include <cstddef>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "libreyolo/core/data/image/image.hpp"
#include "libreyolo/core/data/image/sample.hpp"

namespace libreyolo::core::data {

enum class CacheMode { none, ram, disk };

class ImageSource {
 public:
  virtual ~ImageSource() = default;
  virtual std::size_t size() const = 0;
  // Thread-safe. The view points into the source's memory or, when the source keeps nothing
  // (no cache), into `scratch`; it stays valid until `scratch` is reused or the source dies.
  virtual ImageView get(std::size_t index, Image& scratch) const = 0;
  // The image's size before resizing (for mapping predictions back to the original pixels).
  virtual ImageSize original_size(std::size_t index) const = 0;
  // What the source actually is (a ram request may have fallen back to disk or none).
  virtual CacheMode mode() const = 0;
};

}  // namespace libreyolo::core::data
