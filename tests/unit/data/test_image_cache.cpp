// The decode-once image cache (cache=ram|disk|false): identical pixels in every mode, the RAM
// budget fallback, disk cache reuse and rebuild, undecodable images, concurrent readers.
#include <doctest/doctest.h>
#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "data_test_support.hpp"
#include "libreyolo/core/data/cache/image_cache.hpp"
#include "libreyolo/core/data/cache/image_plan.hpp"
#include "libreyolo/core/data/cache/resized_image.hpp"
#include "libreyolo/core/data/image/image_header.hpp"
#include "libreyolo/core/error.hpp"

using namespace libreyolo::core::data;
using libreyolo::core::Error;
using libreyolo::test::TempDir;
using libreyolo::test::encode_jpeg;
using libreyolo::test::encode_png;
using libreyolo::test::exif_app1;
using libreyolo::test::write_bytes;
namespace fs = std::filesystem;

namespace {

constexpr int kImgsz = 64;

// Smooth gradients, so resizing has real work to do and a wrong offset shows.
std::vector<std::uint8_t> gradient(int width, int height, int components, int seed) {
  std::vector<std::uint8_t> pixels(static_cast<std::size_t>(width) * height * components);
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x)
      for (int c = 0; c < components; ++c)
        pixels[(static_cast<std::size_t>(y) * width + x) * components + c] =
            static_cast<std::uint8_t>((x * 3 + y * 2 + c * 60 + seed * 37) & 0xFF);
  return pixels;
}

// A PNG whose header and IEND are fine (so it passes the scan) but whose pixel data is not.
std::vector<std::uint8_t> png_with_corrupt_pixels() {
  std::vector<std::uint8_t> bytes =
      encode_png({32, 32, PNG_COLOR_TYPE_RGB, 8}, gradient(32, 32, 3, 9));
  const char idat[] = {'I', 'D', 'A', 'T'};
  auto at = std::search(bytes.begin(), bytes.end(), std::begin(idat), std::end(idat));
  REQUIRE(at != bytes.end());
  for (int i = 4; i < 24; ++i) at[i] = static_cast<std::uint8_t>(at[i] ^ 0x5A);
  return bytes;
}

// Five readable images covering shrink, enlarge, exact size, EXIF rotation with DCT-scaled
// decoding, grayscale and PNG.
struct Dataset {
  TempDir dir;
  std::vector<fs::path> images;

  Dataset() {
    add("a.jpg", encode_jpeg(96, 64, 3, gradient(96, 64, 3, 1)));
    add("b.png", encode_png({40, 30, PNG_COLOR_TYPE_RGB, 8}, gradient(40, 30, 3, 2)));
    add("c.jpg", encode_jpeg(300, 200, 3, gradient(300, 200, 3, 3), exif_app1(6)));
    add("d.png", encode_png({64, 64, PNG_COLOR_TYPE_RGB, 8}, gradient(64, 64, 3, 4)));
    add("e.jpg", encode_jpeg(50, 80, 1, gradient(50, 80, 1, 5)));
  }
  fs::path add(const std::string& name, const std::vector<std::uint8_t>& bytes) {
    write_bytes(dir / ("images/" + name), bytes);
    images.push_back(dir / ("images/" + name));
    return images.back();
  }
  fs::path cache_dir() const { return dir / "cache"; }
};

std::vector<std::uint8_t> copy_pixels(const ImageView& view) {
  return std::vector<std::uint8_t>(view.pixels,
                                   view.pixels + static_cast<std::size_t>(view.width) *
                                                     view.height * Image::kChannels);
}

struct FileIdentity {
  ino_t inode = 0;
  std::int64_t mtime_ns = 0;
  bool operator==(const FileIdentity& o) const { return inode == o.inode && mtime_ns == o.mtime_ns; }
};

FileIdentity identity(const fs::path& path) {
  struct stat info {};
  REQUIRE(::stat(path.c_str(), &info) == 0);
  return {info.st_ino, static_cast<std::int64_t>(info.st_mtim.tv_sec) * 1000000000 +
                           info.st_mtim.tv_nsec};
}

std::unique_ptr<ImageSource> source_for(CacheMode mode, const Dataset& data, int imgsz = kImgsz,
                                        const ImageSourceOptions& options = {}) {
  return make_image_source(mode, data.images, imgsz, data.cache_dir(), 2, options);
}

void check_same_pixels(const ImageSource& a, const ImageSource& b) {
  REQUIRE(a.size() == b.size());
  Image scratch_a, scratch_b;
  for (std::size_t i = 0; i < a.size(); ++i) {
    CAPTURE(i);
    const ImageView va = a.get(i, scratch_a);
    const ImageView vb = b.get(i, scratch_b);
    REQUIRE(va.width == vb.width);
    REQUIRE(va.height == vb.height);
    CHECK(copy_pixels(va) == copy_pixels(vb));
    CHECK(a.original_size(i).width == b.original_size(i).width);
    CHECK(a.original_size(i).height == b.original_size(i).height);
  }
}

}  // namespace

TEST_CASE("cache=false, ram and disk return the same resized pixels") {
  Dataset data;
  const auto none = source_for(CacheMode::none, data);
  const auto ram = source_for(CacheMode::ram, data);
  const auto disk = source_for(CacheMode::disk, data);
  CHECK(none->mode() == CacheMode::none);
  CHECK(ram->mode() == CacheMode::ram);
  CHECK(disk->mode() == CacheMode::disk);
  CHECK(fs::is_regular_file(disk_cache_path(data.images, data.cache_dir())));

  Image scratch;
  for (std::size_t i = 0; i < none->size(); ++i) {
    CAPTURE(data.images[i].string());
    const ImageView view = none->get(i, scratch);
    const ImageSize original = none->original_size(i);
    // Long side imgsz: small images are enlarged too, like LibreYOLO's load_resized_img.
    CHECK(std::max(view.width, view.height) == kImgsz);
    CHECK(view.width == resized_size(original, kImgsz).width);
    CHECK(view.height == resized_size(original, kImgsz).height);
    CHECK(copy_pixels(view) == load_resized_image(data.images[i], original, kImgsz).pixels);
  }
  // EXIF orientation 6: the 300x200 file is 200x300 upright.
  CHECK(none->original_size(2).width == 200);
  CHECK(none->original_size(2).height == 300);
  CHECK(none->original_size(1).width == 40);  // 40x30 PNG, enlarged to 64x48
  check_same_pixels(*none, *ram);
  check_same_pixels(*none, *disk);
}

TEST_CASE("Views point into the cache; cache=false decodes into the caller's scratch") {
  Dataset data;
  const auto ram = source_for(CacheMode::ram, data);
  const auto none = source_for(CacheMode::none, data);
  Image scratch;
  const ImageView first = ram->get(0, scratch);
  CHECK(scratch.pixels.empty());  // the cache never needs the scratch
  CHECK(ram->get(0, scratch).pixels == first.pixels);  // same memory every time
  const ImageView decoded = none->get(0, scratch);
  CHECK(decoded.pixels == scratch.pixels.data());
}

TEST_CASE("cache=ram over its budget falls back to disk, or to no cache without a folder") {
  Dataset data;
  ImageSourceOptions tiny;
  tiny.ram_budget_bytes = 1000;  // the five images need ~50 KB
  const auto fallback = source_for(CacheMode::ram, data, kImgsz, tiny);
  CHECK(fallback->mode() == CacheMode::disk);

  const auto no_folder = make_image_source(CacheMode::ram, data.images, kImgsz, {}, 2, tiny);
  CHECK(no_folder->mode() == CacheMode::none);

  // A cache folder that cannot be created (its parent is a file): no cache, not a crash.
  write_bytes(data.dir / "not_a_folder", {1, 2, 3});
  const auto unwritable =
      make_image_source(CacheMode::ram, data.images, kImgsz, data.dir / "not_a_folder/cache", 2, tiny);
  CHECK(unwritable->mode() == CacheMode::none);
  const auto disk_unwritable =
      make_image_source(CacheMode::disk, data.images, kImgsz, data.dir / "not_a_folder/cache", 2);
  CHECK(disk_unwritable->mode() == CacheMode::none);

  // Automatic budget: a tiny dataset fits, also when 1000 ranks share the machine's memory.
  ImageSourceOptions ranks;
  ranks.local_ranks = 1000;
  CHECK(source_for(CacheMode::ram, data, kImgsz, ranks)->mode() == CacheMode::ram);
  ranks.local_ranks = 1 << 30;  // ... but not when a billion do
  CHECK(source_for(CacheMode::ram, data, kImgsz, ranks)->mode() == CacheMode::disk);

  ImageSourceOptions roomy;
  roomy.ram_budget_bytes = 1ull << 30;
  CHECK(source_for(CacheMode::ram, data, kImgsz, roomy)->mode() == CacheMode::ram);
  check_same_pixels(*fallback, *source_for(CacheMode::none, data));
  check_same_pixels(*unwritable, *source_for(CacheMode::none, data));
}

TEST_CASE("The disk cache is reused while nothing changed and rebuilt when an image did") {
  Dataset data;
  const fs::path cache = disk_cache_path(data.images, data.cache_dir());
  source_for(CacheMode::disk, data);
  const FileIdentity built = identity(cache);

  SUBCASE("a second build reuses the file") {
    const auto again = source_for(CacheMode::disk, data);
    CHECK(again->mode() == CacheMode::disk);
    CHECK(identity(cache) == built);
    check_same_pixels(*again, *source_for(CacheMode::none, data));
  }
  SUBCASE("new content in a source image rebuilds it") {
    write_bytes(data.images[0], encode_jpeg(96, 64, 3, gradient(96, 64, 3, 42)));
    fs::last_write_time(data.images[0], fs::last_write_time(data.images[0]) + std::chrono::seconds(5));
    const auto rebuilt = source_for(CacheMode::disk, data);
    CHECK_FALSE(identity(cache) == built);
    check_same_pixels(*rebuilt, *source_for(CacheMode::none, data));
  }
  SUBCASE("only touching a source image rebuilds it") {
    fs::last_write_time(data.images[3], fs::last_write_time(data.images[3]) + std::chrono::seconds(5));
    source_for(CacheMode::disk, data);
    CHECK_FALSE(identity(cache) == built);
  }
  SUBCASE("another imgsz rebuilds it at that size") {
    const auto larger = source_for(CacheMode::disk, data, 80);
    CHECK_FALSE(identity(cache) == built);
    check_same_pixels(*larger, *source_for(CacheMode::none, data, 80));
  }
  SUBCASE("another image list gets its own file") {
    Dataset other;
    const fs::path other_cache = disk_cache_path(other.images, data.cache_dir());
    CHECK(other_cache != cache);
    data.images.pop_back();
    CHECK(disk_cache_path(data.images, data.cache_dir()) != cache);
    CHECK(disk_cache_path(data.images, data.cache_dir(), "train2017").filename() ==
          "train2017.libreyolo-images");
  }
  SUBCASE("an open cache stays valid while another run replaces the file") {
    const auto reader = source_for(CacheMode::disk, data);
    Image scratch;
    const std::vector<std::uint8_t> before = copy_pixels(reader->get(2, scratch));
    source_for(CacheMode::disk, data, 80);  // rename over the file the reader has mapped
    CHECK(copy_pixels(reader->get(2, scratch)) == before);
  }
}

TEST_CASE("A corrupt or truncated disk cache is rebuilt, never trusted") {
  Dataset data;
  const fs::path cache = disk_cache_path(data.images, data.cache_dir());
  const auto reference = source_for(CacheMode::none, data);
  source_for(CacheMode::disk, data);
  std::vector<std::uint8_t> bytes = libreyolo::test::read_bytes(cache);
  REQUIRE(bytes.size() > 4096);

  SUBCASE("truncated") { bytes.resize(bytes.size() - 100); }
  SUBCASE("cut inside the preamble") { bytes.resize(20); }
  SUBCASE("empty") { bytes.clear(); }
  SUBCASE("a flipped byte in the index") { bytes[bytes.size() - 10] ^= 0x01; }
  SUBCASE("a flipped byte in the preamble") { bytes[30] ^= 0x01; }
  SUBCASE("bytes appended") { bytes.push_back(0); }
  SUBCASE("noise") {
    std::mt19937 rng(3);
    for (auto& b : bytes) b = static_cast<std::uint8_t>(rng());
  }
  write_bytes(cache, bytes);
  write_bytes(cache.string() + ".tmp-999999", {1, 2, 3});  // left by a killed build
  const auto rebuilt = source_for(CacheMode::disk, data);
  CHECK_FALSE(fs::exists(cache.string() + ".tmp-999999"));
  CHECK(rebuilt->mode() == CacheMode::disk);
  check_same_pixels(*rebuilt, *reference);
  CHECK(libreyolo::test::read_bytes(cache).size() > 4096);
}

TEST_CASE("An image that cannot be decoded is skipped by the build and named by get()") {
  Dataset data;
  const fs::path bad_png = data.add("bad_pixels.png", png_with_corrupt_pixels());
  // A JPEG whose header says 12-bit precision: its size reads, its pixels do not.
  std::vector<std::uint8_t> jpeg = encode_jpeg(48, 32, 3, gradient(48, 32, 3, 6));
  for (std::size_t i = 0; i + 4 < jpeg.size(); ++i) {
    if (jpeg[i] == 0xFF && jpeg[i + 1] == 0xC0) {
      jpeg[i + 4] = 12;
      break;
    }
  }
  const fs::path bad_jpeg = data.add("twelve_bit.jpg", jpeg);
  const fs::path missing = data.dir / "images/missing.jpg";
  data.images.push_back(missing);
  REQUIRE_NOTHROW(read_image_size(bad_png));  // passes the scan
  REQUIRE_NOTHROW(read_image_size(bad_jpeg));

  const auto reference = source_for(CacheMode::none, data);
  for (const CacheMode mode : {CacheMode::none, CacheMode::ram, CacheMode::disk, CacheMode::disk}) {
    // disk twice: failures are remembered by a reused cache file as well
    CAPTURE(static_cast<int>(mode));
    const auto source = source_for(mode, data);
    REQUIRE(source->mode() == mode);
    REQUIRE(source->size() == 8);
    Image scratch;
    for (std::size_t i = 0; i < 5; ++i) CHECK_NOTHROW(source->get(i, scratch));
    for (const std::size_t bad : {std::size_t{5}, std::size_t{6}, std::size_t{7}}) {
      try {
        source->get(bad, scratch);
        FAIL("get() returned an image for " << data.images[bad].string());
      } catch (const Error& e) {
        CHECK(std::string(e.what()).find(data.images[bad].string()) != std::string::npos);
        CHECK_FALSE(e.why().empty());
      }
    }
    CHECK(source->original_size(5).width == 32);  // the header's size is still known
    CHECK(source->original_size(7).width == 0);   // missing: nothing is known
  }
}

TEST_CASE("Concurrent get() calls return the right pixels in every mode") {
  Dataset data;
  const auto reference = source_for(CacheMode::none, data);
  std::vector<std::vector<std::uint8_t>> expected;
  Image scratch;
  for (std::size_t i = 0; i < reference->size(); ++i)
    expected.push_back(copy_pixels(reference->get(i, scratch)));

  for (const CacheMode mode : {CacheMode::none, CacheMode::ram, CacheMode::disk}) {
    CAPTURE(static_cast<int>(mode));
    const auto source = source_for(mode, data);
    std::atomic<int> mismatches{0};
    std::vector<std::thread> readers;
    for (int t = 0; t < 6; ++t) {
      readers.emplace_back([&, t] {
        std::mt19937 rng(static_cast<unsigned>(t));
        Image own_scratch;  // one per thread, as the loader's workers hold them
        for (int n = 0; n < 150; ++n) {
          const std::size_t i = rng() % source->size();
          if (copy_pixels(source->get(i, own_scratch)) != expected[i]) ++mismatches;
        }
      });
    }
    for (auto& reader : readers) reader.join();
    CHECK(mismatches == 0);
  }
}

TEST_CASE("Processes or threads building the same disk cache at once all get a valid one") {
  Dataset data;
  const auto reference = source_for(CacheMode::none, data);
  std::vector<std::unique_ptr<ImageSource>> built(4);
  std::vector<std::thread> builders;
  for (std::size_t i = 0; i < built.size(); ++i)
    builders.emplace_back([&, i] { built[i] = source_for(CacheMode::disk, data); });
  for (auto& builder : builders) builder.join();
  for (const auto& source : built) {
    CHECK(source->mode() == CacheMode::disk);
    check_same_pixels(*source, *reference);
  }
  // Nothing but the cache and its lock file is left behind.
  std::size_t files = 0;
  for (const auto& entry : fs::directory_iterator(data.cache_dir())) {
    CAPTURE(entry.path().string());
    CHECK(entry.path().string().find(".tmp-") == std::string::npos);
    ++files;
  }
  CHECK(files == 2);
}

TEST_CASE("Sizes from the dataset scan can replace the header reads") {
  Dataset data;
  ImageSourceOptions options;
  for (const fs::path& image : data.images) options.original_sizes.push_back(read_image_size(image));
  check_same_pixels(*source_for(CacheMode::ram, data, kImgsz, options),
                    *source_for(CacheMode::none, data));
  options.original_sizes.pop_back();
  CHECK_THROWS_AS(source_for(CacheMode::none, data, kImgsz, options), Error);
  CHECK_THROWS_AS(source_for(CacheMode::none, data, 0), Error);
}
