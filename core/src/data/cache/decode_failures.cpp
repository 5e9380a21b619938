#include "libreyolo/core/data/cache/decode_failures.hpp"

#include "libreyolo/core/error.hpp"
#include "libreyolo/core/log/log.hpp"

namespace libreyolo::core::data {

void throw_unloadable_image(const PlannedImage& image) {
  throw Error("Cannot load image " + image.path.string(), image.failure,
              "Re-encode the image or remove it from the dataset; training skips it");
}

std::string failure_reason(const std::exception& error) {
  if (const auto* e = dynamic_cast<const Error*>(&error)) {
    if (!e->why().empty()) return e->why();
  }
  return error.what();
}

std::size_t count_failures(const ImagePlan& plan) {
  std::size_t failed = 0;
  for (const PlannedImage& image : plan.images) failed += image.usable() ? 0 : 1;
  return failed;
}

void log_decode_failures(const ImagePlan& plan) {
  const std::size_t failed = count_failures(plan);
  if (failed == 0) return;
  constexpr std::size_t kListed = 10;
  std::string names;
  std::size_t listed = 0;
  for (const PlannedImage& image : plan.images) {
    if (image.usable()) continue;
    if (listed == kListed) {
      names += ", ... (" + std::to_string(failed - kListed) + " more)";
      break;
    }
    names += (listed++ == 0 ? "" : ", ") + image.path.filename().string();
  }
  log::warn(failed, failed == 1 ? " image" : " images",
            " could not be decoded and will be skipped: ", names);
}

}  // namespace libreyolo::core::data
