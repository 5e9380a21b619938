#pragma once
// cache=ram: every image decoded once, in parallel, into one arena of exactly the planned
// pixel bytes.

#include <memory>

#include "libreyolo/core/data/cache/image_plan.hpp"
#include "libreyolo/core/data/cache/image_source.hpp"

namespace libreyolo::core::data {

// Decodes everything now with `threads` threads. Returns nullptr (after logging why) when the
// arena cannot be allocated; budget checks are the caller's (make_image_source).
std::unique_ptr<ImageSource> make_ram_source(ImagePlan plan, int threads);

}  // namespace libreyolo::core::data
