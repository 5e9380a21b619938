// The image cache on the real bundled dataset: cache=ram holds coco128's train split in about
// its pixel bytes (the requirement: within 1.2x), and disk and no cache give the same pixels.
// Skipped when the dataset is not on this machine.
#include <doctest/doctest.h>

#include <fstream>
#include <string>

#include "../temp_dir.hpp"
#include "libreyolo/core/data/cache/image_cache.hpp"
#include "libreyolo/core/data/dataset/image_paths.hpp"
#include "support/test_paths.hpp"

using namespace libreyolo::core::data;
namespace fs = std::filesystem;

namespace {

// Sanitizers keep freed memory in quarantine and add shadow memory: resident size means
// nothing there.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr bool kMeasurable = false;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || \
    __has_feature(memory_sanitizer)
constexpr bool kMeasurable = false;
#else
constexpr bool kMeasurable = true;
#endif
#else
constexpr bool kMeasurable = true;
#endif

fs::path coco128_train() {
  return fs::path(libreyolo::test_paths::source_dir()).parent_path() / "shared" / "datasets" / "coco128" /
         "images" / "train2017";
}

// Resident memory of this process, from /proc/self/status ("VmRSS:  1234 kB").
std::uint64_t resident_bytes() {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("VmRSS:", 0) == 0) return std::stoull(line.substr(6)) * 1024;
  }
  return 0;
}

bool same_view(const ImageView& a, const ImageView& b) {
  return a.width == b.width && a.height == b.height &&
         std::equal(a.pixels, a.pixels + static_cast<std::size_t>(a.width) * a.height * 3,
                    b.pixels);
}

}  // namespace

TEST_CASE("coco128: cache=ram holds the split in about its pixel bytes; disk and none agree") {
  const fs::path folder = coco128_train();
  if (!fs::is_directory(folder)) {
    MESSAGE("skipped: no coco128 at " << folder.string());
    return;
  }
  const std::vector<fs::path> images = list_images(folder);
  REQUIRE(images.size() == 128);

  const std::uint64_t before = resident_bytes();
  const auto ram = make_image_source(CacheMode::ram, images, 640, {}, 0);
  const std::uint64_t grown = resident_bytes() - std::min(before, resident_bytes());
  REQUIRE(ram->mode() == CacheMode::ram);
  std::uint64_t pixel_bytes = 0;
  Image scratch;
  for (std::size_t i = 0; i < ram->size(); ++i) {
    const ImageView view = ram->get(i, scratch);
    CHECK(std::max(view.width, view.height) == 640);
    pixel_bytes += static_cast<std::uint64_t>(view.width) * view.height * 3;
  }
  MESSAGE("cache=ram: " << pixel_bytes << " pixel bytes, resident memory grew by " << grown
                        << " bytes (" << static_cast<double>(grown) / pixel_bytes << "x)");
  if (kMeasurable) CHECK(grown <= pixel_bytes * 12 / 10);

  libreyolo::test::TempDir dir;
  const auto disk = make_image_source(CacheMode::disk, images, 640, dir.path(), 0);
  const auto none = make_image_source(CacheMode::none, images, 640, {}, 0);
  REQUIRE(disk->mode() == CacheMode::disk);
  Image scratch_a, scratch_b;
  for (std::size_t i = 0; i < ram->size(); ++i) {
    CAPTURE(images[i].string());
    CHECK(same_view(ram->get(i, scratch_a), disk->get(i, scratch_b)));
    if (i % 8 == 0) CHECK(same_view(ram->get(i, scratch_a), none->get(i, scratch_b)));
    CHECK(ram->original_size(i).width == none->original_size(i).width);
  }
}
