#include "libreyolo/core/data/cache/image_cache.hpp"

#include <algorithm>
#include <cstdio>
#include <utility>

#include "libreyolo/core/data/cache/cache_text.hpp"
#include "libreyolo/core/data/cache/decode_failures.hpp"
#include "libreyolo/core/data/cache/disk_source.hpp"
#include "libreyolo/core/data/cache/fnv1a.hpp"
#include "libreyolo/core/data/cache/image_plan.hpp"
#include "libreyolo/core/data/cache/memory_budget.hpp"
#include "libreyolo/core/data/cache/ram_source.hpp"
#include "libreyolo/core/data/cache/uncached_source.hpp"
#include "libreyolo/core/log/log.hpp"

namespace libreyolo::core::data {
namespace fs = std::filesystem;
namespace {

// The RAM a cache may take, and the sentence that explains it when it is too little.
struct RamBudget {
  std::optional<std::uint64_t> bytes;  // nullopt: unknown (no /proc/meminfo); just try
  std::string explained;
};

RamBudget ram_budget(const ImageSourceOptions& options) {
  RamBudget budget;
  if (options.ram_budget_bytes) {
    budget.bytes = options.ram_budget_bytes;
    budget.explained = format_bytes(*budget.bytes) + " (the configured budget)";
    return budget;
  }
  const std::optional<std::uint64_t> available = available_memory_bytes();
  if (!available) return budget;
  const int ranks = std::max(1, options.local_ranks);
  budget.bytes = static_cast<std::uint64_t>(static_cast<double>(*available) *
                                            kRamCacheShareOfAvailable / ranks);
  budget.explained = format_bytes(*budget.bytes) + " (" +
                     std::to_string(static_cast<int>(kRamCacheShareOfAvailable * 100)) + "% of " +
                     format_bytes(*available) + " available" +
                     (ranks > 1 ? ", shared by " + std::to_string(ranks) + " ranks" : "") + ")";
  return budget;
}

}  // namespace

fs::path disk_cache_path(const std::vector<fs::path>& images, const fs::path& cache_dir,
                         const std::string& disk_cache_name) {
  std::string stem = disk_cache_name;
  for (char& c : stem) {
    if (c == '/' || c == '\\') c = '_';
  }
  if (stem.empty()) {
    std::uint64_t hash = kFnv1aSeed;
    for (const fs::path& image : images) {
      const std::string text = image.string();
      hash = fnv1a64(text.data(), text.size(), hash);
      hash = fnv1a64("\n", 1, hash);
    }
    char hex[17];
    std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(hash));
    stem = std::string("images-") + hex;
  }
  return cache_dir / (stem + ".libreyolo-images");
}

std::unique_ptr<ImageSource> make_image_source(CacheMode requested, std::vector<fs::path> images,
                                               int imgsz, const fs::path& cache_dir, int threads,
                                               const ImageSourceOptions& options) {
  const fs::path disk_file =
      cache_dir.empty() ? fs::path() : disk_cache_path(images, cache_dir, options.disk_cache_name);
  ImagePlan plan = plan_images(std::move(images), imgsz, options.original_sizes, threads);
  CacheMode mode = requested;

  if (mode == CacheMode::ram) {
    const RamBudget budget = ram_budget(options);
    if (!budget.bytes || plan.pixel_bytes <= *budget.bytes) {
      if (auto source = make_ram_source(plan, threads)) return source;
    } else {
      log::warn("cache=ram needs ", format_bytes(plan.pixel_bytes), " for ",
                plan.images.size(), " images but may use only ", budget.explained, "; ",
                disk_file.empty() ? std::string("decoding images on every read (cache=false)")
                                  : "using cache=disk in " + cache_dir.string() + " instead");
    }
    mode = disk_file.empty() ? CacheMode::none : CacheMode::disk;
  }

  if (mode == CacheMode::disk) {
    if (disk_file.empty()) {
      log::warn("cache=disk needs a cache folder; decoding images on every read (cache=false)");
    } else if (auto source = make_disk_source(plan, disk_file, threads)) {
      return source;
    } else {
      log::warn("decoding images on every read instead (cache=false)");
    }
  }

  log_decode_failures(plan);  // images whose header could not be read
  return make_uncached_source(std::move(plan));
}

}  // namespace libreyolo::core::data
