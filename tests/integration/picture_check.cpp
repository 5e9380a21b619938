// Checks one of a run folder's pictures: the file is the format its name says (PNG or JPEG
// signature), it decodes with the project's own decoder, it has the expected width and height,
// and it is not blank (at least MIN_COLOURS distinct colours, no colour on more than MAX_SHARE
// percent of it, 97 unless given: a line chart of an untrained model, one flat curve on white,
// is 97-98% background and is checked with 99).
// Usage: picture_check FILE WIDTH HEIGHT [MIN_COLOURS [MAX_SHARE]]
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <unordered_map>

#include "libreyolo/core/data/image/file_bytes.hpp"
#include "libreyolo/core/data/image/image_decode.hpp"
#include "libreyolo/core/draw/image_encode.hpp"

namespace {

// The signature the file must start with, by its name (draw::format_for_path, as written).
bool signature_matches(const std::vector<std::uint8_t>& bytes, const std::string& path) {
  using libreyolo::core::draw::EncodedFormat;
  if (libreyolo::core::draw::format_for_path(path) == EncodedFormat::png) {
    static const std::uint8_t png[] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    return bytes.size() >= sizeof png && std::equal(png, png + sizeof png, bytes.begin());
  }
  return bytes.size() >= 3 && bytes[0] == 0xFF && bytes[1] == 0xD8 && bytes[2] == 0xFF;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: picture_check FILE WIDTH HEIGHT [MIN_COLOURS [MAX_SHARE]]\n");
    return 2;
  }
  const std::string path = argv[1];
  const int width = std::atoi(argv[2]), height = std::atoi(argv[3]);
  const std::size_t min_colours = argc > 4 ? static_cast<std::size_t>(std::atol(argv[4])) : 16;
  const double max_share = (argc > 5 ? std::atof(argv[5]) : 97.0) / 100.0;
  try {
    using namespace libreyolo::core::data;
    const auto bytes = read_file_bytes(path);
    if (!signature_matches(bytes, path)) {
      std::fprintf(stderr, "FAILED: %s does not start with the signature its extension names\n", path.c_str());
      return 1;
    }
    const auto image = decode_image(path);
    std::unordered_map<std::uint32_t, std::size_t> counts;
    for (std::size_t i = 0; i + 2 < image.pixels.size(); i += 3) {
      ++counts[(std::uint32_t{image.pixels[i]} << 16) | (std::uint32_t{image.pixels[i + 1]} << 8) | image.pixels[i + 2]];
    }
    std::size_t dominant = 0;
    for (const auto& entry : counts) dominant = std::max(dominant, entry.second);
    const double pixels = static_cast<double>(image.width) * image.height;
    const double dominant_share = pixels > 0 ? static_cast<double>(dominant) / pixels : 1.0;
    std::printf("%s: %dx%d, %zu colours, the most common covers %.1f%%\n", path.c_str(), image.width, image.height,
                counts.size(), 100.0 * dominant_share);
    if (image.width != width || image.height != height) {
      std::fprintf(stderr, "FAILED: %s is %dx%d, expected %dx%d\n", path.c_str(), image.width, image.height, width, height);
      return 1;
    }
    if (counts.size() < min_colours || dominant_share > max_share) {
      std::fprintf(stderr, "FAILED: %s looks blank (need >= %zu colours and <= %.1f%% of one colour)\n", path.c_str(),
                   min_colours, 100.0 * max_share);
      return 1;
    }
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "FAILED: %s\n", e.what());
    return 1;
  }
}
