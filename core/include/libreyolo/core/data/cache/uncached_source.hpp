#pragma once
// cache=false: decode and resize on every get(), into the caller's scratch image.

#include <memory>

#include "libreyolo/core/data/cache/image_plan.hpp"
#include "libreyolo/core/data/cache/image_source.hpp"

namespace libreyolo::core::data {

std::unique_ptr<ImageSource> make_uncached_source(ImagePlan plan);

}  // namespace libreyolo::core::data
