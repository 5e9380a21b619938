#pragma once
// PNG -> 8-bit RGB with libpng: gray (1-16 bit), gray+alpha, palette, RGB, RGBA, 16-bit and
// interlaced inputs. Use decode_image() unless you already know the format.

#include <cstddef>
#include <cstdint>
#include <string>

#include "libreyolo/core/data/image/image.hpp"

namespace libreyolo::core::data {

// Alpha is dropped, not composited: the stored colour of a transparent pixel is kept, which is
// what OpenCV's imread(IMREAD_COLOR) does, so a model sees the same pixels as in the Python
// tools. 16-bit samples are scaled (rounded) to 8 bits; gAMA/iCCP are ignored, as OpenCV does.
// `name` only labels error messages. Throws libreyolo::core::Error for corrupt or truncated data.
Image decode_png(const std::uint8_t* data, std::size_t size, const std::string& name);

}  // namespace libreyolo::core::data
