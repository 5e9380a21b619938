// The image cache's small parts: option parsing, the resize rule, the memory budget readers and
// the disk cache format.
#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "libreyolo/core/data/cache/cache_mode.hpp"
#include "libreyolo/core/data/cache/disk_cache_format.hpp"
#include "libreyolo/core/data/cache/image_plan.hpp"
#include "libreyolo/core/data/cache/memory_budget.hpp"
#include "libreyolo/core/data/cache/parallel_for.hpp"
#include "libreyolo/core/error.hpp"

using namespace libreyolo::core::data;
using libreyolo::core::Error;

TEST_CASE("cache= values") {
  CHECK(parse_cache_mode("ram") == CacheMode::ram);
  CHECK(parse_cache_mode("RAM") == CacheMode::ram);
  CHECK(parse_cache_mode("true") == CacheMode::ram);
  CHECK(parse_cache_mode("disk") == CacheMode::disk);
  CHECK(parse_cache_mode("false") == CacheMode::none);
  CHECK(parse_cache_mode("none") == CacheMode::none);
  CHECK_THROWS_AS(parse_cache_mode("gpu"), Error);
  CHECK(std::string(cache_mode_name(CacheMode::none)) == "false");
  CHECK(std::string(cache_mode_name(CacheMode::disk)) == "disk");
}

TEST_CASE("Resized size: long side imgsz, short side rounded, small images enlarged") {
  auto check = [](int w, int h, int imgsz, int rw, int rh) {
    const ImageSize r = resized_size({w, h}, imgsz);
    CAPTURE(w);
    CAPTURE(h);
    CHECK(r.width == rw);
    CHECK(r.height == rh);
  };
  check(640, 480, 640, 640, 480);
  check(1280, 853, 640, 640, 427);  // 426.5 rounds up
  check(480, 640, 640, 480, 640);
  check(320, 200, 640, 640, 400);   // enlarged
  check(100, 100, 640, 640, 640);
  check(4000, 1, 640, 640, 1);      // never 0
  check(0, 10, 640, 0, 0);          // unusable
}

TEST_CASE("Available memory: /proc/meminfo and cgroup limits") {
  CHECK(parse_mem_available("MemTotal: 100 kB\nMemAvailable:    2048 kB\n") == 2048u * 1024);
  CHECK_FALSE(parse_mem_available("MemTotal: 100 kB\n").has_value());
  // cgroup v2: 8 GiB limit, 3 GiB used of which 1 GiB is reclaimable file cache.
  CHECK(cgroup_headroom("8589934592\n", "3221225472\n", "anon 1\ninactive_file 1073741824\n",
                        "inactive_file") == 6ull << 30);
  CHECK_FALSE(cgroup_headroom("max\n", "100\n", "", "inactive_file").has_value());
  CHECK_FALSE(cgroup_headroom("9223372036854771712\n", "100\n", "", "total_inactive_file"));
  CHECK(cgroup_headroom("100", "200", "", "inactive_file") == 0u);  // over its limit
  CHECK(available_memory_bytes().value_or(1) > 0);
}

TEST_CASE("parallel_for runs every index once and rethrows after finishing") {
  std::vector<int> hits(1000, 0);
  parallel_for(hits.size(), 4, [&](std::size_t i) { ++hits[i]; });
  CHECK(std::count(hits.begin(), hits.end(), 1) == 1000);
  std::atomic<int> ran{0};
  CHECK_THROWS_AS(parallel_for(100, 3,
                               [&](std::size_t i) {
                                 ++ran;
                                 if (i == 7) throw std::runtime_error("x");
                               }),
                  std::runtime_error);
  CHECK(ran == 100);
  CHECK(resolve_thread_count(16, 3) == 3);
  CHECK(resolve_thread_count(0, 1000) >= 1);
}

TEST_CASE("Disk cache format: round trip, and nothing but an exact file reads back") {
  DiskCacheContents contents;
  contents.imgsz = 64;
  PlannedImage a;
  a.path = "/data/a.jpg";
  a.original = {128, 96};
  a.resized = resized_size(a.original, 64);
  PlannedImage bad;
  bad.path = "/data/b.jpg";
  bad.original = {10, 10};
  bad.failure = "corrupt";
  bad.offset = a.bytes();
  contents.images = {a, bad};
  contents.stamps = {FileStamp{100, 5}, FileStamp{7, 9}};
  contents.pixel_bytes = a.bytes();
  contents.pixel_hashes = {0x0123456789abcdefull, 0};

  const std::string index = encode_disk_cache_index(contents);
  std::string file = encode_disk_cache_preamble(contents, index);
  REQUIRE(file.size() == kDiskCachePixelOffset);
  file += std::string(contents.pixel_bytes, '\x7f');
  file += index;
  auto data = [&] { return reinterpret_cast<const std::uint8_t*>(file.data()); };

  const auto back = decode_disk_cache(data(), file.size());
  REQUIRE(back.has_value());
  CHECK(back->imgsz == 64);
  REQUIRE(back->images.size() == 2);
  CHECK(back->images[0].path == a.path);
  CHECK(back->images[0].resized.width == 64);
  CHECK(back->images[0].resized.height == 48);
  CHECK(back->images[1].failure == "corrupt");
  CHECK(back->stamps[1].mtime == 9);
  CHECK(back->pixel_hashes[0] == 0x0123456789abcdefull);

  CHECK_FALSE(decode_disk_cache(data(), file.size() - 1).has_value());
  CHECK_FALSE(decode_disk_cache(data(), 100).has_value());
  for (const std::size_t at : {std::size_t{0}, std::size_t{20}, file.size() - 3}) {
    std::string copy = file;
    copy[at] ^= 0x10;
    CHECK_FALSE(decode_disk_cache(reinterpret_cast<const std::uint8_t*>(copy.data()), copy.size()));
  }
  // An index whose entry does not fit imgsz (a hand-edited or foreign file) is refused.
  DiskCacheContents wrong = contents;
  wrong.images[0].resized = {60, 48};
  const std::string wrong_index = encode_disk_cache_index(wrong);
  std::string wrong_file = encode_disk_cache_preamble(wrong, wrong_index) +
                           std::string(wrong.pixel_bytes, '\0') + wrong_index;
  CHECK_FALSE(decode_disk_cache(reinterpret_cast<const std::uint8_t*>(wrong_file.data()),
                                wrong_file.size()));
}
