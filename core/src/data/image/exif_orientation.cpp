#include "libreyolo/core/data/image/exif_orientation.hpp"

#include <cstring>
#include <utility>

namespace libreyolo::core::data {
namespace {

constexpr std::uint16_t kOrientationTag = 0x0112;
constexpr std::uint16_t kTiffTypeShort = 3;

// TIFF data carries its own byte order ("II" little, "MM" big), independent of the host.
struct TiffReader {
  const std::uint8_t* data;
  std::size_t size;
  bool little_endian;

  bool u16(std::size_t offset, std::uint16_t* out) const {
    if (offset > size || size - offset < 2) return false;
    const std::uint8_t* p = data + offset;
    *out = little_endian ? static_cast<std::uint16_t>(p[0] | (p[1] << 8))
                         : static_cast<std::uint16_t>((p[0] << 8) | p[1]);
    return true;
  }
  bool u32(std::size_t offset, std::uint32_t* out) const {
    if (offset > size || size - offset < 4) return false;
    const std::uint8_t* p = data + offset;
    *out = little_endian ? (std::uint32_t{p[0]} | (std::uint32_t{p[1]} << 8) |
                            (std::uint32_t{p[2]} << 16) | (std::uint32_t{p[3]} << 24))
                         : ((std::uint32_t{p[0]} << 24) | (std::uint32_t{p[1]} << 16) |
                            (std::uint32_t{p[2]} << 8) | std::uint32_t{p[3]});
    return true;
  }
};

}  // namespace

int parse_exif_orientation(const std::uint8_t* app1_payload, std::size_t size) {
  static const std::uint8_t kExifHeader[6] = {'E', 'x', 'i', 'f', 0, 0};
  if (app1_payload == nullptr || size < 6 + 8 || std::memcmp(app1_payload, kExifHeader, 6) != 0) {
    return 1;
  }
  const std::uint8_t* tiff = app1_payload + 6;
  const std::size_t tiff_size = size - 6;
  TiffReader reader{tiff, tiff_size, true};
  if (tiff[0] == 'I' && tiff[1] == 'I') {
    reader.little_endian = true;
  } else if (tiff[0] == 'M' && tiff[1] == 'M') {
    reader.little_endian = false;
  } else {
    return 1;
  }
  std::uint16_t magic = 0;
  std::uint32_t ifd0 = 0;
  std::uint16_t entry_count = 0;
  if (!reader.u16(2, &magic) || magic != 42 || !reader.u32(4, &ifd0) ||
      !reader.u16(ifd0, &entry_count)) {
    return 1;
  }
  for (std::uint32_t i = 0; i < entry_count; ++i) {
    const std::size_t entry = std::size_t{ifd0} + 2 + std::size_t{i} * 12;
    std::uint16_t tag = 0, type = 0, value = 0;
    std::uint32_t count = 0;
    if (!reader.u16(entry, &tag) || !reader.u16(entry + 2, &type) ||
        !reader.u32(entry + 4, &count)) {
      return 1;
    }
    if (tag != kOrientationTag) continue;
    // A SHORT with count 1 sits left-aligned in the 4-byte value field, in file byte order.
    if (type != kTiffTypeShort || count != 1 || !reader.u16(entry + 8, &value)) return 1;
    return (value >= 1 && value <= 8) ? value : 1;
  }
  return 1;
}

ImageSize oriented_size(ImageSize stored, int orientation) {
  if (orientation_swaps_axes(orientation)) std::swap(stored.width, stored.height);
  return stored;
}

Image apply_exif_orientation(Image image, int orientation) {
  if (orientation < 2 || orientation > 8) return image;
  const int w = image.width;
  const int h = image.height;
  Image out;
  const ImageSize size = oriented_size({w, h}, orientation);
  out.width = size.width;
  out.height = size.height;
  out.pixels.resize(image.pixels.size());
  // For each upright pixel (ox, oy), where it was stored. Derived from the EXIF definitions:
  // 6 = turn 90 degrees clockwise, 8 = 90 counter-clockwise, 5/7 = transpose/transverse.
  for (int oy = 0; oy < out.height; ++oy) {
    for (int ox = 0; ox < out.width; ++ox) {
      int sx = ox, sy = oy;
      switch (orientation) {
        case 2:
          sx = w - 1 - ox;
          sy = oy;
          break;
        case 3:
          sx = w - 1 - ox;
          sy = h - 1 - oy;
          break;
        case 4:
          sx = ox;
          sy = h - 1 - oy;
          break;
        case 5:
          sx = oy;
          sy = ox;
          break;
        case 6:
          sx = oy;
          sy = h - 1 - ox;
          break;
        case 7:
          sx = w - 1 - oy;
          sy = h - 1 - ox;
          break;
        case 8:
          sx = w - 1 - oy;
          sy = ox;
          break;
        default:
          break;
      }
      const std::uint8_t* src = image.pixel(sx, sy);
      std::uint8_t* dst = out.pixel(ox, oy);
      dst[0] = src[0];
      dst[1] = src[1];
      dst[2] = src[2];
    }
  }
  return out;
}

}  // namespace libreyolo::core::data
