// The plugin registry cache's format (plugin_registry_cache.hpp): what it keeps, what it
// refuses to trust, and that a damaged file is ignored and rewritten.
#include <doctest/doctest.h>

#include <fstream>
#include <sstream>

#include "libreyolo/core/plugins/plugin_registry_cache.hpp"
#include "temp_dir.hpp"

using namespace libreyolo::core;
using namespace libreyolo::core::plugins;
namespace fs = std::filesystem;

namespace {

data::FileStamp stamp(std::int64_t size, std::int64_t mtime) {
  data::FileStamp s;
  s.size = size;
  s.mtime = mtime;
  s.ctime = mtime + 1;
  s.inode = 77;
  return s;
}

std::string read_text(const fs::path& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

TEST_CASE("the plugin registry cache reads back what it wrote, odd paths and reasons included") {
  PluginRegistryCache cache("host sdk-abi=1; scanner 10 20");
  cache.record("/opt/families/libok.so", stamp(100, 5), {ScanOutcome::approved, ""});
  cache.record("/tmp/with\ttab\nand newline\\.so", stamp(200, 6),
               {ScanOutcome::crashed, "it crashed\twith\nsignal 11, SIGSEGV \\ (Segmentation fault)"});
  cache.record("/tmp/hangs.so", stamp(300, 7), {ScanOutcome::hung, "it hung"});
  std::string problem;
  const auto back = PluginRegistryCache::parse(cache.format(), cache.identity(), problem);
  REQUIRE_MESSAGE(back, problem);
  REQUIRE(back->entries().size() == 3);
  const auto* ok = back->find("/opt/families/libok.so", stamp(100, 5));
  REQUIRE(ok);
  CHECK(ok->outcome == ScanOutcome::approved);
  const auto* crashed = back->find("/tmp/with\ttab\nand newline\\.so", stamp(200, 6));
  REQUIRE(crashed);
  CHECK(crashed->outcome == ScanOutcome::crashed);
  CHECK(crashed->reason == "it crashed\twith\nsignal 11, SIGSEGV \\ (Segmentation fault)");
  CHECK(back->find("/tmp/hangs.so", stamp(300, 7))->outcome == ScanOutcome::hung);
}

TEST_CASE("a plugin whose stamp changed is not taken from the registry cache") {
  PluginRegistryCache cache("id");
  cache.record("/p/libx.so", stamp(100, 5), {ScanOutcome::crashed, "it crashed"});
  CHECK(cache.find("/p/libx.so", stamp(100, 5)));
  CHECK_FALSE(cache.find("/p/libx.so", stamp(101, 5)));  // rebuilt: another size
  CHECK_FALSE(cache.find("/p/libx.so", stamp(100, 6)));  // touched
  auto same_times_new_inode = stamp(100, 5);
  same_times_new_inode.inode = 78;  // replaced by a copy with the old times (cp -p)
  CHECK_FALSE(cache.find("/p/libx.so", same_times_new_inode));
  auto same_mtime_new_ctime = stamp(100, 5);
  same_mtime_new_ctime.ctime += 1;  // written again, mtime set back (touch -d)
  CHECK_FALSE(cache.find("/p/libx.so", same_mtime_new_ctime));
  CHECK_FALSE(cache.find("/p/other.so", stamp(100, 5)));
  CHECK_FALSE(cache.find("/p/libx.so", data::FileStamp{}));  // the file is gone
}

TEST_CASE("a damaged, cut-short or foreign registry cache is not trusted") {
  PluginRegistryCache cache("host A; scanner 1 2");
  cache.record("/p/liba.so", stamp(1, 2), {ScanOutcome::approved, ""});
  cache.record("/p/libb.so", stamp(3, 4), {ScanOutcome::refused, "ABI mismatch"});
  const std::string good = cache.format();
  std::string problem;
  REQUIRE(PluginRegistryCache::parse(good, "host A; scanner 1 2", problem));

  CHECK_FALSE(PluginRegistryCache::parse(good, "host B; scanner 1 2", problem));
  CHECK(problem.find("another host or scanner") != std::string::npos);
  CHECK_FALSE(PluginRegistryCache::parse("garbage\n", "host A; scanner 1 2", problem));
  CHECK(problem.find("does not start with") != std::string::npos);
  // Cut short: the end line is missing.
  CHECK_FALSE(PluginRegistryCache::parse(good.substr(0, good.rfind("end\t")), "host A; scanner 1 2", problem));
  CHECK(problem.find("cut short") != std::string::npos);
  // The end line counts the plugin lines: one lost in the middle is noticed.
  std::string lost_line = good;
  const auto second = lost_line.find("refused\t");
  lost_line.erase(second, lost_line.find('\n', second) + 1 - second);
  CHECK_FALSE(PluginRegistryCache::parse(lost_line, "host A; scanner 1 2", problem));
  // A damaged number, an unknown outcome, an approved entry with a reason, a bad escape.
  for (const auto& [from, to] : std::vector<std::pair<std::string, std::string>>{
           {"ok\t1\t2", "ok\tx\t2"}, {"refused\t3", "exploded\t3"}, {"ABI mismatch", "ABI \\q mismatch"}}) {
    std::string damaged = good;
    damaged.replace(damaged.find(from), from.size(), to);
    CHECK_FALSE(PluginRegistryCache::parse(damaged, "host A; scanner 1 2", problem));
    CHECK(problem.find("line") != std::string::npos);
  }
  std::string approved_with_reason = good;
  approved_with_reason.replace(approved_with_reason.find("/p/liba.so\t"), 11, "/p/liba.so\twhy");
  CHECK_FALSE(PluginRegistryCache::parse(approved_with_reason, "host A; scanner 1 2", problem));
}

TEST_CASE("the registry cache lives under XDG_CACHE_HOME, else ~/.cache, named after the ABI") {
  const std::string abi = "sdk-abi=1;torch=2.11.0;cxx-abi=libstdc++-cxx11";
  CHECK(registry_cache_path("/x/cache", "/home/u", abi) ==
        "/x/cache/libreyolo/plugin-registry-sdk-abi_1_torch_2.11.0_cxx-abi_libstdc++-cxx11.txt");
  CHECK(registry_cache_path(nullptr, "/home/u", abi).parent_path() == "/home/u/.cache/libreyolo");
  CHECK(registry_cache_path("", "/home/u", abi).parent_path() == "/home/u/.cache/libreyolo");
  CHECK(registry_cache_path(nullptr, nullptr, abi).empty());
}

TEST_CASE("the registry cache file is written atomically; a damaged one is ignored and rewritten") {
  libreyolo::test::TempDir dir;
  const fs::path file = dir / "cache/libreyolo/plugin-registry-x.txt";
  PluginRegistryCache cache("id 1");
  cache.record(dir / "libgood.so", stamp(1, 2), {ScanOutcome::approved, ""});
  REQUIRE(write_registry_cache(file, cache));  // creates the folders
  CHECK(read_text(file) == cache.format());
  CHECK(fs::directory_iterator(file.parent_path()) != fs::directory_iterator());
  std::size_t files = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(file.parent_path())) ++files;
  CHECK(files == 1);  // no temp file left behind
  CHECK(read_registry_cache(file, "id 1").entries().size() == 1);
  CHECK(read_registry_cache(file, "id 2").entries().empty());  // another scanner: start afresh

  std::ofstream(file) << "libreyolo-plugin-registry 1\nidentity\tid 1\nok\t1\t2";  // cut short
  const auto damaged = read_registry_cache(file, "id 1");
  CHECK(damaged.entries().empty());
  REQUIRE(write_registry_cache(file, cache));
  CHECK(read_registry_cache(file, "id 1").entries().size() == 1);
}

TEST_CASE("entries of plugin files that are gone are dropped") {
  libreyolo::test::TempDir dir;
  std::ofstream(dir / "libhere.so") << "x";
  PluginRegistryCache cache("id");
  cache.record(dir / "libhere.so", data::stamp_file(dir / "libhere.so"), {ScanOutcome::approved, ""});
  cache.record(dir / "libgone.so", stamp(1, 2), {ScanOutcome::crashed, "it crashed"});
  CHECK(cache.forget_missing_files());
  CHECK(cache.entries().size() == 1);
  CHECK_FALSE(cache.forget_missing_files());
}
