#pragma once
// JPEG -> 8-bit RGB with libjpeg(-turbo): grayscale, YCbCr, RGB, CMYK and YCCK inputs,
// EXIF orientation applied. Use decode_image() unless you already know the format.

#include <cstddef>
#include <cstdint>
#include <string>

#include "libreyolo/core/data/image/image.hpp"

namespace libreyolo::core::data {

// `name` only labels error messages (usually the file path). Throws libreyolo::core::Error for
// corrupt data, unsupported colour spaces and truncated files (libjpeg would otherwise pad a
// truncated image with grey and report a mere warning).
// `min_long_side` > 0 lets libjpeg decode at 1/2, 1/4 or 1/8 scale (its DCT scaling, several
// times faster than a full decode plus resize) as long as the long side stays >= min_long_side.
Image decode_jpeg(const std::uint8_t* data, std::size_t size, const std::string& name,
                  int min_long_side = 0);

}  // namespace libreyolo::core::data
