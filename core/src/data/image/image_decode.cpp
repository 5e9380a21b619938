#include "libreyolo/core/data/image/image_decode.hpp"

#include <vector>

#include "libreyolo/core/data/image/file_bytes.hpp"
#include "libreyolo/core/data/image/image_format.hpp"
#include "libreyolo/core/data/image/jpeg_decode.hpp"
#include "libreyolo/core/data/image/png_decode.hpp"
#include "libreyolo/core/error.hpp"

namespace libreyolo::core::data {

Image decode_image_bytes(const std::uint8_t* data, std::size_t size, const std::string& name,
                         int min_long_side) {
  switch (detect_image_format(data, size)) {
    case ImageFormat::kJpeg:
      return decode_jpeg(data, size, name, min_long_side);
    case ImageFormat::kPng:
      return decode_png(data, size, name);
    case ImageFormat::kUnknown:
      break;
  }
  throw Error("Cannot decode image " + name, describe_unsupported_signature(data, size),
              "Convert the image to JPEG or PNG, or remove it from the dataset");
}

Image decode_image(const std::filesystem::path& path, int min_long_side) {
  const std::vector<std::uint8_t> bytes = read_file_bytes(path);
  return decode_image_bytes(bytes.data(), bytes.size(), path.string(), min_long_side);
}

}  // namespace libreyolo::core::data
