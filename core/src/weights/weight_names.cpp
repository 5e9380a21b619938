#include "libreyolo/core/weights/weight_names.hpp"

#include <algorithm>
#include <array>
#include <cctype>

namespace libreyolo::core::weights {
namespace {

// From LibreYOLO's model classes (FILENAME_PREFIX and INPUT_SIZES of
// libreyolo/models/{yolo9,yolox,rtmdet,rtdetr,dfine}/model.py): the families this host trains.
struct PublishedFamily {
  std::string_view prefix;
  std::vector<std::string_view> sizes;
};

const std::array<PublishedFamily, 5>& published_families() {
  static const std::array<PublishedFamily, 5> families{{
      {"LibreYOLO9", {"t", "s", "m", "c"}},
      {"LibreYOLOX", {"n", "t", "s", "m", "l", "x"}},
      {"LibreRTMDet", {"t", "s", "m", "l", "x"}},
      {"LibreRTDETR", {"r18", "r34", "r50", "r50m", "r101", "l", "x"}},
      {"LibreDFINE", {"n", "s", "m", "l", "x"}},
  }};
  return families;
}

bool equal_ignoring_case(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

}  // namespace

std::optional<KnownWeights> known_weights(std::string_view file_name) {
  constexpr std::string_view extension = ".pt";
  if (file_name.size() <= extension.size() ||
      !equal_ignoring_case(file_name.substr(file_name.size() - extension.size()), extension)) {
    return std::nullopt;
  }
  const auto stem = file_name.substr(0, file_name.size() - extension.size());
  for (const auto& family : published_families()) {
    if (stem.size() <= family.prefix.size() || !equal_ignoring_case(stem.substr(0, family.prefix.size()), family.prefix)) {
      continue;
    }
    const auto size = stem.substr(family.prefix.size());
    for (const auto known_size : family.sizes) {
      if (equal_ignoring_case(size, known_size)) {
        std::string canonical = std::string(family.prefix) + std::string(known_size);
        return KnownWeights{canonical, canonical + std::string(extension)};
      }
    }
  }
  return std::nullopt;
}

std::string weights_url(std::string_view base_url, const KnownWeights& weights) {
  while (!base_url.empty() && base_url.back() == '/') base_url.remove_suffix(1);
  return std::string(base_url) + "/" + weights.stem + "/resolve/main/" + weights.file_name;
}

std::string known_weights_examples() {
  std::string text;
  for (const auto& family : published_families()) {
    if (!text.empty()) text += ", ";
    text += std::string(family.prefix) + std::string(family.sizes[1 % family.sizes.size()]) + ".pt";
  }
  return text;
}

}  // namespace libreyolo::core::weights
