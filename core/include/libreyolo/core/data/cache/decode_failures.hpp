#pragma once
// Images that passed the scan but cannot be decoded: the cache build records them instead of
// stopping, logs one summary line, and get() throws for them so the loader can skip them.

#include <exception>
#include <string>

#include "libreyolo/core/data/cache/image_plan.hpp"

namespace libreyolo::core::data {

// The Error get() throws for an image whose decode failed (names the file and the reason).
[[noreturn]] void throw_unloadable_image(const PlannedImage& image);

// What to record for a failed decode: an Error's why() (its what() repeats the path), else what().
std::string failure_reason(const std::exception& error);

// "2 images could not be decoded and will be skipped: a.jpg, b.jpg" (warn), nothing when all
// are fine. At most 10 names are listed.
void log_decode_failures(const ImagePlan& plan);

// Number of images with a failure.
std::size_t count_failures(const ImagePlan& plan);

}  // namespace libreyolo::core::data
