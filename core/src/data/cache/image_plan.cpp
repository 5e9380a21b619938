#include "libreyolo/core/data/cache/image_plan.hpp"

#include <algorithm>
#include <cmath>
#include <exception>

#include "libreyolo/core/data/cache/decode_failures.hpp"
#include "libreyolo/core/data/cache/parallel_for.hpp"
#include "libreyolo/core/data/image/image_header.hpp"
#include "libreyolo/core/error.hpp"

namespace libreyolo::core::data {

ImageSize resized_size(ImageSize original, int imgsz) {
  if (original.width <= 0 || original.height <= 0 || imgsz <= 0) return {};
  // Same arithmetic as resize_long_side(): the long side is exactly imgsz, the short side
  // is rounded. (LibreYOLO truncates with int(); rounding is the closer aspect ratio.)
  const double scale = static_cast<double>(imgsz) / std::max(original.width, original.height);
  ImageSize out;
  out.width = original.width >= original.height
                  ? imgsz
                  : std::max(1, static_cast<int>(std::lround(original.width * scale)));
  out.height = original.height > original.width
                   ? imgsz
                   : std::max(1, static_cast<int>(std::lround(original.height * scale)));
  return out;
}

void assign_offsets(ImagePlan& plan) {
  std::uint64_t offset = 0;
  for (PlannedImage& image : plan.images) {
    if (!image.usable()) image.resized = {};
    image.offset = offset;
    offset += image.bytes();
  }
  plan.pixel_bytes = offset;
}

ImagePlan plan_images(std::vector<std::filesystem::path> paths, int imgsz,
                      const std::vector<ImageSize>& known_sizes, int threads) {
  if (imgsz <= 0) {
    throw Error("Cannot cache images at imgsz=" + std::to_string(imgsz),
                "the image size must be positive", "Pass a positive imgsz");
  }
  if (!known_sizes.empty() && known_sizes.size() != paths.size()) {
    throw Error("Cannot plan the image cache",
                std::to_string(known_sizes.size()) + " known sizes were given for " +
                    std::to_string(paths.size()) + " images",
                "Pass one size per image, or none");
  }
  ImagePlan plan;
  plan.imgsz = imgsz;
  plan.images.resize(paths.size());
  for (std::size_t i = 0; i < paths.size(); ++i) plan.images[i].path = std::move(paths[i]);

  auto plan_one = [&](std::size_t i) {
    PlannedImage& image = plan.images[i];
    try {
      image.original = known_sizes.empty() ? read_image_size(image.path) : known_sizes[i];
    } catch (const std::exception& e) {
      image.failure = failure_reason(e);
    }
    if (image.usable()) {
      const std::uint64_t pixels = static_cast<std::uint64_t>(std::max(0, image.original.width)) *
                                   static_cast<std::uint64_t>(std::max(0, image.original.height));
      if (pixels == 0 || pixels > kMaxImagePixels) {
        image.failure = "its size " + std::to_string(image.original.width) + "x" +
                        std::to_string(image.original.height) + " is not a decodable image size";
      }
    }
    if (image.usable()) image.resized = resized_size(image.original, imgsz);
  };
  if (known_sizes.empty()) {
    parallel_for(plan.images.size(), threads, plan_one);
  } else {
    for (std::size_t i = 0; i < plan.images.size(); ++i) plan_one(i);
  }
  assign_offsets(plan);
  return plan;
}

}  // namespace libreyolo::core::data
