#pragma once
// A decoded image as the data pipeline keeps it: 8-bit RGB, interleaved (HWC), rows packed.
// uint8 end to end: the loader never works on floats on the CPU.

#include <cstddef>
#include <cstdint>
#include <vector>

namespace libreyolo::core::data {

struct ImageSize {
  int width = 0;
  int height = 0;
};

struct Image {
  int width = 0;
  int height = 0;
  std::vector<std::uint8_t> pixels;  // width * height * 3 bytes, R G B per pixel

  static constexpr int kChannels = 3;

  std::size_t row_bytes() const { return static_cast<std::size_t>(width) * kChannels; }
  const std::uint8_t* pixel(int x, int y) const {
    return pixels.data() + static_cast<std::size_t>(y) * row_bytes() +
           static_cast<std::size_t>(x) * kChannels;
  }
  std::uint8_t* pixel(int x, int y) {
    return pixels.data() + static_cast<std::size_t>(y) * row_bytes() +
           static_cast<std::size_t>(x) * kChannels;
  }
};

// Decoders refuse anything larger up front, so a forged header cannot make us allocate
// tens of gigabytes before libjpeg/libpng notice the data is missing.
inline constexpr std::uint64_t kMaxImagePixels = 1ull << 28;  // e.g. 16384 x 16384

}  // namespace libreyolo::core::data
