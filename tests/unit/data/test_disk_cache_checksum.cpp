// The disk image cache's pixel checksums (issue #20, item 6): bytes that changed in the pixel
// block after the cache was written are never handed to training. Each image is checked when
// first read, named once, served from its source image and written back into the cache.
#include <doctest/doctest.h>

#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "data_test_support.hpp"
#include "libreyolo/core/data/cache/image_cache.hpp"
#include "libreyolo/core/data/cache/pixel_hash.hpp"
#include "log_capture.hpp"

using namespace libreyolo::core::data;
using libreyolo::test::count_of;
using libreyolo::test::encode_jpeg;
using libreyolo::test::encode_png;
using libreyolo::test::LogCapture;
using libreyolo::test::TempDir;
using libreyolo::test::write_bytes;
namespace fs = std::filesystem;

namespace {

constexpr int kImgsz = 48;

std::vector<std::uint8_t> pattern(int width, int height, int components, int seed) {
  std::vector<std::uint8_t> pixels(static_cast<std::size_t>(width) * height * components);
  for (std::size_t i = 0; i < pixels.size(); ++i)
    pixels[i] = static_cast<std::uint8_t>((i * 7 + static_cast<std::size_t>(seed) * 31) & 0xFF);
  return pixels;
}

struct Images {
  TempDir dir;
  std::vector<fs::path> paths;
  Images() {
    add("a.png", encode_png({40, 30, PNG_COLOR_TYPE_RGB, 8}, pattern(40, 30, 3, 1)));
    add("b.jpg", encode_jpeg(64, 48, 3, pattern(64, 48, 3, 2)));
    add("c.png", encode_png({30, 50, PNG_COLOR_TYPE_RGB, 8}, pattern(30, 50, 3, 3)));
  }
  void add(const std::string& name, const std::vector<std::uint8_t>& bytes) {
    paths.push_back(dir / ("images/" + name));
    write_bytes(paths.back(), bytes);
  }
  std::unique_ptr<ImageSource> source(CacheMode mode) const {
    return make_image_source(mode, paths, kImgsz, dir / "cache", 2, {});
  }
  fs::path cache_file() const { return disk_cache_path(paths, dir / "cache"); }
};

std::vector<std::vector<std::uint8_t>> all_pixels(const ImageSource& source) {
  std::vector<std::vector<std::uint8_t>> out;
  Image scratch;
  for (std::size_t i = 0; i < source.size(); ++i) {
    const ImageView view = source.get(i, scratch);
    out.emplace_back(view.pixels, view.pixels + static_cast<std::size_t>(view.width) * view.height *
                                                    Image::kChannels);
  }
  return out;
}

std::uint64_t pixel_block_bytes(const std::vector<std::vector<std::uint8_t>>& pixels) {
  std::uint64_t bytes = 0;
  for (const auto& image : pixels) bytes += image.size();
  return bytes;
}

// Random bytes over the whole pixel block, written in place (same file, same inode).
void scramble_pixel_block(const fs::path& cache, std::uint64_t bytes) {
  std::fstream file(cache, std::ios::binary | std::ios::in | std::ios::out);
  REQUIRE(file);
  file.seekp(4096);
  std::mt19937 random(7);
  for (std::uint64_t i = 0; i < bytes; ++i) file.put(static_cast<char>(random()));
  REQUIRE(file.good());
}

}  // namespace

TEST_CASE("hash_pixels notices one changed bit anywhere, and its tail bytes count") {
  std::vector<std::uint8_t> bytes(1000);
  for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<std::uint8_t>(i * 13);
  const std::uint64_t whole = hash_pixels(bytes.data(), bytes.size());
  for (const std::size_t at : {std::size_t{0}, std::size_t{31}, std::size_t{500}, std::size_t{999}}) {
    CAPTURE(at);
    bytes[at] ^= 0x04;
    CHECK(hash_pixels(bytes.data(), bytes.size()) != whole);
    bytes[at] ^= 0x04;
  }
  CHECK(hash_pixels(bytes.data(), bytes.size()) == whole);
  CHECK(hash_pixels(bytes.data(), 999) != whole);
}

TEST_CASE("Random bytes in the disk cache's pixel block are named once and repaired from the images") {
  Images images;
  const auto reference = all_pixels(*images.source(CacheMode::none));
  images.source(CacheMode::disk);  // build the cache
  scramble_pixel_block(images.cache_file(), pixel_block_bytes(reference));

  LogCapture log;
  const auto disk = images.source(CacheMode::disk);
  REQUIRE(disk->mode() == CacheMode::disk);
  CHECK(all_pixels(*disk) == reference);
  CHECK(all_pixels(*disk) == reference);  // read twice: still right, and no second warning
  const std::string said = log.text();
  for (const fs::path& image : images.paths) {
    CAPTURE(image.string());
    CHECK(count_of(said, "the cached pixels of " + image.string()) == 1);
  }

  // Written back: the next run reads the cache as it was built, without a word.
  LogCapture next_log;
  CHECK(all_pixels(*images.source(CacheMode::disk)) == reference);
  CHECK(count_of(next_log.text(), "do not match their checksum") == 0);
}

TEST_CASE("A rebuild never copies changed pixels of unchanged images from the previous cache") {
  Images images;
  const auto reference = all_pixels(*images.source(CacheMode::none));
  images.source(CacheMode::disk);
  scramble_pixel_block(images.cache_file(), pixel_block_bytes(reference));
  // One image changes its stamp, so the cache is rebuilt and the others are candidates for a copy.
  fs::last_write_time(images.paths[0], fs::last_write_time(images.paths[0]) + std::chrono::seconds(5));

  LogCapture log;
  const auto rebuilt = images.source(CacheMode::disk);
  const std::string said = log.text();
  CHECK(count_of(said, "building the disk image cache") == 1);
  CHECK(count_of(said, "the previous cache's pixels of " + images.paths[1].string()) == 1);
  CHECK(all_pixels(*rebuilt) == reference);
}
