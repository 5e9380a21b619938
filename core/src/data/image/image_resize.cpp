#include "libreyolo/core/data/image/image_resize.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "libreyolo/core/error.hpp"

namespace libreyolo::core::data {
namespace {

// The source pixels one output pixel reads along one axis, and how much each contributes.
// Weights of one output pixel sum to 1.
struct AxisWeights {
  std::vector<int> first;   // first source index per output index
  std::vector<int> count;   // number of taps per output index
  std::vector<int> offset;  // where its weights start in `weights`
  std::vector<float> weights;
};

AxisWeights area_weights(int in_size, int out_size) {
  AxisWeights axis;
  const double scale = static_cast<double>(in_size) / out_size;  // >= 1
  for (int o = 0; o < out_size; ++o) {
    const double begin = o * scale;
    const double end = std::min<double>((o + 1) * scale, in_size);
    const int first = static_cast<int>(std::floor(begin));
    const int last = std::min(in_size - 1, static_cast<int>(std::ceil(end)) - 1);
    axis.first.push_back(first);
    axis.offset.push_back(static_cast<int>(axis.weights.size()));
    int taps = 0;
    for (int s = first; s <= last; ++s) {
      const double overlap = std::min<double>(s + 1, end) - std::max<double>(s, begin);
      if (overlap <= 0) continue;
      axis.weights.push_back(static_cast<float>(overlap / (end - begin)));
      ++taps;
    }
    axis.count.push_back(taps);
  }
  return axis;
}

AxisWeights bilinear_weights(int in_size, int out_size) {
  AxisWeights axis;
  const double scale = static_cast<double>(in_size) / out_size;  // < 1
  for (int o = 0; o < out_size; ++o) {
    const double centre = std::clamp((o + 0.5) * scale - 0.5, 0.0, in_size - 1.0);
    const int first = static_cast<int>(std::floor(centre));
    const float frac = static_cast<float>(centre - first);
    axis.first.push_back(first);
    axis.offset.push_back(static_cast<int>(axis.weights.size()));
    if (first + 1 < in_size && frac > 0.0f) {
      axis.weights.push_back(1.0f - frac);
      axis.weights.push_back(frac);
      axis.count.push_back(2);
    } else {
      axis.weights.push_back(1.0f);
      axis.count.push_back(1);
    }
  }
  return axis;
}

AxisWeights axis_weights(int in_size, int out_size) {
  return out_size <= in_size ? area_weights(in_size, out_size)
                             : bilinear_weights(in_size, out_size);
}

}  // namespace

Image resize_image(const Image& image, int width, int height) {
  if (image.width <= 0 || image.height <= 0 ||
      image.pixels.size() != image.row_bytes() * static_cast<std::size_t>(image.height)) {
    throw Error("Cannot resize an image",
                "the image is empty or its pixel buffer has the wrong size",
                "Resize only images returned by decode_image");
  }
  if (width <= 0 || height <= 0) {
    throw Error("Cannot resize an image to " + std::to_string(width) + "x" + std::to_string(height),
                "the target size must be positive", "Pass a positive size");
  }
  if (width == image.width && height == image.height) return image;
  constexpr int C = Image::kChannels;
  const AxisWeights across = axis_weights(image.width, width);
  const AxisWeights down = axis_weights(image.height, height);

  // Horizontal pass into floats (one source row at a time), then vertical pass to uint8.
  std::vector<float> rows(static_cast<std::size_t>(image.height) * width * C);
  for (int y = 0; y < image.height; ++y) {
    const std::uint8_t* src = image.pixel(0, y);
    float* dst = rows.data() + static_cast<std::size_t>(y) * width * C;
    for (int x = 0; x < width; ++x) {
      float acc[C] = {0.0f, 0.0f, 0.0f};
      const float* w = across.weights.data() + across.offset[x];
      for (int t = 0; t < across.count[x]; ++t) {
        const std::uint8_t* p = src + static_cast<std::size_t>(across.first[x] + t) * C;
        for (int c = 0; c < C; ++c) acc[c] += w[t] * p[c];
      }
      for (int c = 0; c < C; ++c) dst[x * C + c] = acc[c];
    }
  }
  Image out;
  out.width = width;
  out.height = height;
  out.pixels.resize(out.row_bytes() * height);
  const std::size_t row_floats = static_cast<std::size_t>(width) * C;
  std::vector<float> acc(row_floats);
  for (int y = 0; y < height; ++y) {
    std::fill(acc.begin(), acc.end(), 0.0f);
    const float* w = down.weights.data() + down.offset[y];
    for (int t = 0; t < down.count[y]; ++t) {
      const float* src = rows.data() + static_cast<std::size_t>(down.first[y] + t) * row_floats;
      for (std::size_t i = 0; i < row_floats; ++i) acc[i] += w[t] * src[i];
    }
    std::uint8_t* dst = out.pixel(0, y);
    for (std::size_t i = 0; i < row_floats; ++i) {
      dst[i] = static_cast<std::uint8_t>(std::clamp(std::lround(acc[i]), 0L, 255L));
    }
  }
  return out;
}

Image resize_long_side(const Image& image, int long_side) {
  if (long_side <= 0) {
    throw Error("Cannot resize an image to a long side of " + std::to_string(long_side),
                "the size must be positive", "Pass a positive imgsz");
  }
  const int current = std::max(image.width, image.height);
  if (current <= 0) return resize_image(image, long_side, long_side);  // throws: empty image
  const double scale = static_cast<double>(long_side) / current;
  const int width = image.width >= image.height
                        ? long_side
                        : std::max(1, static_cast<int>(std::lround(image.width * scale)));
  const int height = image.height > image.width
                         ? long_side
                         : std::max(1, static_cast<int>(std::lround(image.height * scale)));
  return resize_image(image, width, height);
}

}  // namespace libreyolo::core::data
