#include "libreyolo/core/data/cache/resized_image.hpp"

#include <algorithm>
#include <string>

#include "libreyolo/core/data/cache/image_plan.hpp"
#include "libreyolo/core/data/image/image_decode.hpp"
#include "libreyolo/core/data/image/image_resize.hpp"
#include "libreyolo/core/error.hpp"

namespace libreyolo::core::data {
namespace {

// libjpeg's DCT scaling returns ceil(size / d) for d in 1, 2, 4, 8; PNGs always d = 1.
bool decoded_size_matches(const Image& decoded, ImageSize original) {
  for (int d = 1; d <= 8; d *= 2) {
    if (decoded.width == (original.width + d - 1) / d &&
        decoded.height == (original.height + d - 1) / d) {
      return true;
    }
  }
  return false;
}

std::string size_text(int width, int height) {
  return std::to_string(width) + "x" + std::to_string(height);
}

// jpeg_decode's choice: the largest power of two up to 8 keeping the long side >= imgsz.
int dct_denominator(ImageSize original, int imgsz) {
  const int long_side = std::max(original.width, original.height);
  int d = 1;
  while (d < 8 && (long_side + 2 * d - 1) / (2 * d) >= imgsz) d *= 2;
  return d;
}

}  // namespace

std::uint64_t load_scratch_bytes(ImageSize original, int imgsz) {
  const ImageSize target = resized_size(original, imgsz);
  const int d = dct_denominator(original, imgsz);
  const std::uint64_t w = static_cast<std::uint64_t>((original.width + d - 1) / d);
  const std::uint64_t h = static_cast<std::uint64_t>((original.height + d - 1) / d);
  const std::uint64_t c = Image::kChannels;
  const std::uint64_t decoded = w * h * c;
  const std::uint64_t float_rows = h * static_cast<std::uint64_t>(target.width) * c * sizeof(float);
  const std::uint64_t result = static_cast<std::uint64_t>(target.width) * target.height * c;
  return decoded + float_rows + result;
}

Image load_resized_image(const std::filesystem::path& path, ImageSize original, int imgsz) {
  const ImageSize target = resized_size(original, imgsz);
  if (target.width <= 0 || target.height <= 0) {
    throw Error("Cannot load image " + path.string(),
                "its size " + size_text(original.width, original.height) + " or imgsz " +
                    std::to_string(imgsz) + " is not usable",
                "Re-encode the image or remove it from the dataset");
  }
  // Let libjpeg skip work it would throw away (its DCT scaling is itself an averaging
  // downscale; the long side stays >= imgsz). The pixels differ slightly from a full-size
  // decode + resize, which is why every cache mode must come through here.
  const Image decoded = decode_image(path, imgsz);
  if (!decoded_size_matches(decoded, original)) {
    throw Error("Cannot load image " + path.string(),
                "it decodes to " + size_text(decoded.width, decoded.height) +
                    " but was scanned as " + size_text(original.width, original.height) +
                    " (the file changed since the dataset was scanned)",
                "Run again so the dataset is rescanned");
  }
  return resize_image(decoded, target.width, target.height);
}

}  // namespace libreyolo::core::data
