#pragma once
// cache=disk: a memory-mapped cache file per split, reused while its images are unchanged.

#include <filesystem>
#include <memory>

#include "libreyolo/core/data/cache/image_plan.hpp"
#include "libreyolo/core/data/cache/image_source.hpp"

namespace libreyolo::core::data {

// Opens `cache_file` if it matches `plan` exactly, otherwise (re)builds it with `threads`
// threads. Returns nullptr (after logging why) when it can be neither used nor written: a
// read-only or full folder, or a failed mmap.
std::unique_ptr<ImageSource> make_disk_source(ImagePlan plan,
                                              const std::filesystem::path& cache_file,
                                              int threads);

}  // namespace libreyolo::core::data
