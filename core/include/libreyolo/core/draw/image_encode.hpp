#pragma once
// Writing 8-bit RGB images as JPEG (libjpeg-turbo) or PNG (libpng), the libraries the decoders
// already use, so that no image codec library beyond them (OpenCV's imgcodecs and what it
// pulls in) is needed. For predict's annotated images and, later, training plots.

#include <cstdint>
#include <filesystem>
#include <vector>

#include "libreyolo/core/data/image/image.hpp"

namespace libreyolo::core::draw {

enum class EncodedFormat { jpeg, png };

// .png (any letter case) is PNG; everything else (.jpg, .jpeg, ...) is JPEG.
EncodedFormat format_for_path(const std::filesystem::path& path);

// Baseline JPEG, 4:2:0 chroma subsampling at quality < 90, 4:4:4 above (thin coloured lines
// and small label text keep their colour). Throws core::Error for an empty image.
std::vector<std::uint8_t> encode_jpeg(const data::Image& image, int quality = 95);

// 8-bit RGB PNG, lossless. Throws core::Error for an empty image.
std::vector<std::uint8_t> encode_png(const data::Image& image);

// Encodes by `path`'s extension (format_for_path) and writes the file. Throws core::Error
// naming the file when it cannot be written completely.
void write_image(const std::filesystem::path& path, const data::Image& image);

}  // namespace libreyolo::core::draw
