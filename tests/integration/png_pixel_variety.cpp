// Checks that a screenshot shows something: decodes the PNG with the project's own decoder and
// requires at least MIN_COLOURS distinct colours, with no single colour covering more than 97%
// of the pixels (a blank or error-only page fails both).
// Usage: png_pixel_variety FILE.png [MIN_COLOURS]
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <unordered_map>

#include "libreyolo/core/data/image/file_bytes.hpp"
#include "libreyolo/core/data/image/png_decode.hpp"

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: png_pixel_variety FILE.png [MIN_COLOURS]\n");
    return 2;
  }
  const std::size_t min_colours = argc > 2 ? static_cast<std::size_t>(std::atol(argv[2])) : 16;
  try {
    using namespace libreyolo::core::data;
    const auto bytes = read_file_bytes(argv[1]);
    const auto image = decode_png(bytes.data(), bytes.size(), argv[1]);
    std::unordered_map<std::uint32_t, std::size_t> counts;
    for (std::size_t i = 0; i + 2 < image.pixels.size(); i += 3) {
      ++counts[(std::uint32_t{image.pixels[i]} << 16) | (std::uint32_t{image.pixels[i + 1]} << 8) | image.pixels[i + 2]];
    }
    std::size_t dominant = 0;
    for (const auto& entry : counts) dominant = std::max(dominant, entry.second);
    const double pixels = static_cast<double>(image.width) * image.height;
    const double dominant_share = pixels > 0 ? static_cast<double>(dominant) / pixels : 1.0;
    std::printf("%s: %dx%d, %zu colours, the most common covers %.1f%%\n", argv[1], image.width, image.height,
                counts.size(), 100.0 * dominant_share);
    if (counts.size() < min_colours || dominant_share > 0.97) {
      std::fprintf(stderr, "FAILED: the screenshot looks blank (need >= %zu colours and <= 97%% of one colour)\n",
                   min_colours);
      return 1;
    }
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "FAILED: %s\n", e.what());
    return 1;
  }
}
