// Checks one of predict's annotated images against its source: decodes both with the project's
// own decoder, requires the same width and height, a picture that is not blank (many colours,
// none covering 97%), and at least MIN_CHANGED of its pixels clearly changed (drawn boxes);
// MIN_CHANGED 0 requires the pixels to be unchanged up to JPEG noise instead (no detections).
// MAX_CHANGED (default 1) bounds it from above: a few boxes must not repaint the whole image.
// --png OUT also writes the annotated image as PNG, for looking at it.
// Usage: annotated_image_check ANNOTATED SOURCE MIN_CHANGED [MAX_CHANGED] [--png OUT]
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <unordered_map>

#include "libreyolo/core/data/image/image_decode.hpp"
#include "libreyolo/core/draw/image_encode.hpp"

using libreyolo::core::data::Image;

namespace {

struct Variety {
  std::size_t colours = 0;
  double dominant_share = 1.0;
};

Variety variety(const Image& image) {
  std::unordered_map<std::uint32_t, std::size_t> counts;
  for (std::size_t i = 0; i + 2 < image.pixels.size(); i += 3) {
    ++counts[(std::uint32_t{image.pixels[i]} << 16) | (std::uint32_t{image.pixels[i + 1]} << 8) | image.pixels[i + 2]];
  }
  std::size_t dominant = 0;
  for (const auto& entry : counts) dominant = std::max(dominant, entry.second);
  const double pixels = static_cast<double>(image.width) * image.height;
  return {counts.size(), pixels > 0 ? static_cast<double>(dominant) / pixels : 1.0};
}

// Share of pixels where some channel differs by more than JPEG noise does (40 levels).
double changed_share(const Image& a, const Image& b) {
  std::size_t changed = 0;
  for (std::size_t i = 0; i + 2 < a.pixels.size(); i += 3) {
    bool differs = false;
    for (int c = 0; c < 3; ++c) differs = differs || std::abs(int(a.pixels[i + c]) - int(b.pixels[i + c])) > 40;
    changed += differs;
  }
  return static_cast<double>(changed) / (static_cast<double>(a.width) * a.height);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: annotated_image_check ANNOTATED SOURCE MIN_CHANGED [MAX_CHANGED] [--png OUT]\n");
    return 2;
  }
  try {
    using libreyolo::core::data::decode_image;
    const auto annotated = decode_image(argv[1]);
    const auto source = decode_image(argv[2]);
    const double min_changed = std::atof(argv[3]);
    int next = 4;
    const double max_changed = argc > next && std::strcmp(argv[next], "--png") != 0 ? std::atof(argv[next++]) : 1.0;
    if (argc > next + 1 && std::strcmp(argv[next], "--png") == 0) libreyolo::core::draw::write_image(argv[next + 1], annotated);
    if (annotated.width != source.width || annotated.height != source.height) {
      std::fprintf(stderr, "FAILED: %s is %dx%d, its source %dx%d\n", argv[1], annotated.width, annotated.height,
                   source.width, source.height);
      return 1;
    }
    const auto v = variety(annotated);
    const double changed = changed_share(annotated, source);
    std::printf("%s: %dx%d, %zu colours, most common %.1f%%, %.2f%% of pixels changed\n", argv[1], annotated.width,
                annotated.height, v.colours, 100.0 * v.dominant_share, 100.0 * changed);
    if (v.colours < 16 || v.dominant_share > 0.97) {
      std::fprintf(stderr, "FAILED: %s looks blank\n", argv[1]);
      return 1;
    }
    if (changed > max_changed) {
      std::fprintf(stderr, "FAILED: %s: %.4f of the pixels changed, expected at most %.4f\n", argv[1], changed,
                   max_changed);
      return 1;
    }
    if (min_changed > 0 ? changed < min_changed : changed > 0.001) {
      std::fprintf(stderr, "FAILED: %s: %.4f of the pixels changed, expected %s %.4f\n", argv[1], changed,
                   min_changed > 0 ? "at least" : "at most", min_changed > 0 ? min_changed : 0.001);
      return 1;
    }
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "FAILED: %s\n", e.what());
    return 1;
  }
}
