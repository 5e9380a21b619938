#include "libreyolo/core/data/cache/ram_source.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <exception>
#include <new>
#include <utility>

#include "libreyolo/core/data/cache/cache_text.hpp"
#include "libreyolo/core/data/cache/decode_failures.hpp"
#include "libreyolo/core/data/cache/parallel_for.hpp"
#include "libreyolo/core/data/cache/resized_image.hpp"
#include "libreyolo/core/log/log.hpp"

namespace libreyolo::core::data {
namespace {

class RamSource final : public ImageSource {
 public:
  RamSource(ImagePlan plan, std::unique_ptr<std::uint8_t[]> arena)
      : plan_(std::move(plan)), arena_(std::move(arena)) {}

  std::size_t size() const override { return plan_.images.size(); }

  ImageView get(std::size_t index, Image&) const override {
    const PlannedImage& image = plan_.images.at(index);
    if (!image.usable()) throw_unloadable_image(image);
    return {image.resized.width, image.resized.height, arena_.get() + image.offset};
  }

  ImageSize original_size(std::size_t index) const override {
    return plan_.images.at(index).original;
  }

  CacheMode mode() const override { return CacheMode::ram; }

 private:
  ImagePlan plan_;
  std::unique_ptr<std::uint8_t[]> arena_;
};

// Each decoding thread holds a decoded image, the resizer's float rows and the result, about
// 6x a cached image at 640. On a small dataset that scratch, times 16 threads, would rival the
// cache itself; so threads are limited to keep it under kScratchShare of the cache. Large
// datasets (where decode time matters) are never limited.
constexpr double kScratchShare = 0.1;

int ram_cache_threads(const ImagePlan& plan, int threads) {
  std::uint64_t largest = 1;
  for (const PlannedImage& image : plan.images) {
    if (image.usable()) largest = std::max(largest, load_scratch_bytes(image.original, plan.imgsz));
  }
  const double affordable = kScratchShare * static_cast<double>(plan.pixel_bytes) / largest;
  const int wanted = resolve_thread_count(threads, plan.images.size());
  return std::max(1, std::min(wanted, static_cast<int>(affordable)));
}

}  // namespace

std::unique_ptr<ImageSource> make_ram_source(ImagePlan plan, int threads) {
  const auto start = std::chrono::steady_clock::now();
  // One allocation of exactly the pixel bytes. Default-initialised (not zeroed): the pages
  // become resident only as images are written, so memory never exceeds what is cached.
  std::unique_ptr<std::uint8_t[]> arena(new (std::nothrow) std::uint8_t[plan.pixel_bytes + 1]);
  if (!arena) {
    log::warn("cache=ram: could not allocate ", format_bytes(plan.pixel_bytes),
              " for ", plan.images.size(), " images");
    return nullptr;
  }
  const int workers = ram_cache_threads(plan, threads);
  const bool limited = workers < resolve_thread_count(threads, plan.images.size());
  log::info("caching ", plan.images.size(), " images (", format_bytes(plan.pixel_bytes),
            ") in RAM with ", workers, workers == 1 ? " thread" : " threads",
            limited ? " (fewer, so decoding buffers stay small next to the cache)" : "", " ...");
  std::uint8_t* base = arena.get();
  parallel_for(plan.images.size(), workers, [&](std::size_t i) {
    PlannedImage& image = plan.images[i];  // each thread touches only its own images
    if (!image.usable()) return;
    try {
      const Image resized = load_resized_image(image.path, image.original, plan.imgsz);
      std::memcpy(base + image.offset, resized.pixels.data(), image.bytes());
    } catch (const std::exception& e) {
      image.failure = failure_reason(e);
    }
  });
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  log::info("cached ", plan.images.size() - count_failures(plan), " images (",
            format_bytes(plan.pixel_bytes), ") in RAM in ", format_seconds(seconds));
  log_decode_failures(plan);
  return std::make_unique<RamSource>(std::move(plan), std::move(arena));
}

}  // namespace libreyolo::core::data
