#include "libreyolo/core/data/augment/flip.hpp"

#include <algorithm>
#include <cstddef>
#include <cstring>

namespace libreyolo::core::data {
namespace {

// Rows are mirrored through buffers of this many pixels taken from both ends at once.
constexpr int kChunk = 64;

// Writes the n pixels at `src` to `dst` in reverse order. Each pixel moves as one 4-byte copy
// (the fourth byte lands on the next pixel, written right after, so `src` needs one spare byte
// at its end); the last one moves as 3 bytes, so nothing past `dst`'s n pixels changes.
void copy_reversed(const std::uint8_t* src, int n, std::uint8_t* dst) {
  for (int k = 0; k + 1 < n; ++k) {
    std::memcpy(dst + 3 * k, src + 3 * (n - 1 - k), 4);
  }
  if (n > 0) std::memcpy(dst + 3 * (n - 1), src, 3);
}

// One spare byte each for copy_reversed; zeroed once so that it never copies an unset byte.
struct RowBuffers {
  std::uint8_t left[2 * kChunk * 3 + 1] = {};
  std::uint8_t right[kChunk * 3 + 1] = {};
};

void mirror_row(std::uint8_t* row, int w, RowBuffers& buffers) {
  int begin = 0, end = w;  // the columns still to mirror
  for (; end - begin >= 2 * kChunk; begin += kChunk, end -= kChunk) {
    std::uint8_t* head = row + 3 * begin;
    std::uint8_t* tail = row + 3 * (end - kChunk);
    std::memcpy(buffers.left, head, kChunk * 3);
    std::memcpy(buffers.right, tail, kChunk * 3);
    copy_reversed(buffers.right, kChunk, head);
    copy_reversed(buffers.left, kChunk, tail);
  }
  const int middle = end - begin;
  std::memcpy(buffers.left, row + 3 * begin, static_cast<std::size_t>(middle) * 3);
  copy_reversed(buffers.left, middle, row + 3 * begin);
}

}  // namespace

void flip_horizontal(MutableImageView image, int content_width, int content_height,
                     std::vector<PixelBox>& boxes) {
  const int w = std::max(0, std::min(content_width, image.width));
  const int h = std::min(content_height, image.height);
  RowBuffers buffers;
  for (int y = 0; y < h; ++y) {
    mirror_row(image.pixels + static_cast<std::ptrdiff_t>(y) * image.width * 3, w, buffers);
  }
  const float fw = static_cast<float>(content_width);
  for (PixelBox& b : boxes) {
    const float x1 = fw - b.x2;
    b.x2 = fw - b.x1;
    b.x1 = x1;
  }
}

}  // namespace libreyolo::core::data
