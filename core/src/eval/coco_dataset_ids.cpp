#include "libreyolo/core/eval/coco_dataset_ids.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <set>
#include <string>

#include "libreyolo/core/eval/coco_category_ids.hpp"

namespace libreyolo::core::eval {
namespace {

constexpr std::size_t kCocoClasses = 80;

// COCO's file names are the image id, zero-padded: 000000000139.jpg. Ultralytics decides the
// same way (a numeric stem is the image id).
bool numeric_stem(const std::string& file_name, std::int64_t& id) {
  const auto stem = std::filesystem::path(file_name).stem().string();
  if (stem.empty() || stem.size() > 18 ||
      !std::all_of(stem.begin(), stem.end(), [](unsigned char c) { return std::isdigit(c) != 0; })) {
    return false;
  }
  id = std::stoll(stem);
  return true;
}

}  // namespace

CocoIds coco_ids_for(const std::vector<ImageGroundTruth>& images, std::size_t class_count) {
  CocoIds ids;
  for (const auto& image : images) ids.image_ids.push_back(image.image.id);
  if (class_count != kCocoClasses || images.empty()) return ids;
  std::vector<std::int64_t> official;
  std::set<std::int64_t> seen;
  for (const auto& image : images) {
    std::int64_t id = 0;
    if (!numeric_stem(image.image.file_name, id) || !seen.insert(id).second) return ids;
    official.push_back(id);
  }
  ids.official = true;
  ids.image_ids = std::move(official);
  ids.category_ids = coco80_to_coco91_category_ids();
  return ids;
}

std::vector<ImageGroundTruth> with_ids(std::vector<ImageGroundTruth> images, const CocoIds& ids) {
  for (std::size_t i = 0; i < images.size() && i < ids.image_ids.size(); ++i) images[i].image.id = ids.image_ids[i];
  return images;
}

std::vector<ImageDetections> with_ids(std::vector<ImageDetections> images, const CocoIds& ids) {
  for (std::size_t i = 0; i < images.size() && i < ids.image_ids.size(); ++i) images[i].image_id = ids.image_ids[i];
  return images;
}

}  // namespace libreyolo::core::eval
