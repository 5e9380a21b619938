// Where model=NAME.pt is looked for, in which order, what is downloaded and what every failure
// says. The downloader is a fake that records its calls: no network here.
#include <doctest/doctest.h>

#include <fstream>
#include <map>
#include <vector>

#include "libreyolo/core/error.hpp"
#include "libreyolo/core/weights/resolve_weights.hpp"
#include "libreyolo/core/weights/weight_names.hpp"
#include "quiet_log.hpp"
#include "temp_dir.hpp"

using namespace libreyolo::core::weights;
namespace fs = std::filesystem;

namespace {

void touch(const fs::path& file) {
  fs::create_directories(file.parent_path());
  std::ofstream(file) << "weights";
}

struct FakeDownloader {
  std::vector<std::pair<std::string, fs::path>> calls;
  DownloadOutcome answer{true, "", false, std::nullopt};
  Downloader downloader(bool available = true) {
    return {available, [this](const std::string& url, const fs::path& destination) {
              calls.emplace_back(url, destination);
              if (answer.ok) touch(destination);
              return answer;
            }};
  }
};

struct Folders {
  libreyolo::test::QuietLog quiet;  // the "downloading ..." lines
  libreyolo::test::TempDir root;
  WeightsEnvironment env;
  Folders() {
    env.working_folder = root / "work";
    env.weights_folder = root / "mine";
    env.cache_folder = root / "cache/libreyolo";
    env.base_url = "http://mirror.test/LibreYOLO";
    fs::create_directories(env.working_folder);
  }
};

// The error resolve_weights throws, as text (fails the test when it throws nothing).
std::string failure_of(const std::string& model, const WeightsEnvironment& env, const Downloader& downloader) {
  try {
    resolve_weights(model, env, downloader);
  } catch (const libreyolo::core::Error& e) {
    return e.what();
  }
  FAIL("resolve_weights did not fail for " << model);
  return "";
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace

TEST_SUITE("weights") {

TEST_CASE("weights: the environment names the folders, the mirror and offline mode") {
  std::map<std::string, std::string> vars{{"HOME", "/home/u"}};
  auto getenv = [&vars](const char* name) -> const char* {
    const auto it = vars.find(name);
    return it == vars.end() ? nullptr : it->second.c_str();
  };
  auto env = read_weights_environment(getenv, "/work");
  CHECK(env.cache_folder == "/home/u/.cache/libreyolo");
  CHECK(env.weights_folder.empty());
  CHECK(env.base_url == kDefaultWeightsBaseUrl);
  CHECK_FALSE(env.offline);
  vars = {{"HOME", "/home/u"}, {"XDG_CACHE_HOME", "/x"}, {"LIBREYOLO_WEIGHTS", "/w"},
          {"LIBREYOLO_WEIGHTS_URL", "http://m/"}, {"LIBREYOLO_OFFLINE", "1"}};
  env = read_weights_environment(getenv, "/work");
  CHECK(env.cache_folder == "/x/libreyolo");
  CHECK(env.weights_folder == "/w");
  CHECK(env.base_url == "http://m/");
  CHECK(env.offline);
  for (const char* off : {"0", "false", "No", "off", ""}) {
    vars["LIBREYOLO_OFFLINE"] = off;
    CHECK_FALSE(read_weights_environment(getenv, "/work").offline);
  }
  vars = {};
  CHECK(read_weights_environment(getenv, "/work").cache_folder.empty());
}

TEST_CASE("weights: the working folder, its weights/, $LIBREYOLO_WEIGHTS, then the cache") {
  Folders f;
  FakeDownloader fake;
  const std::vector<fs::path> places{f.env.working_folder, f.env.working_folder / "weights", f.env.weights_folder,
                                     f.env.cache_folder};
  for (const auto& place : places) touch(place / "LibreYOLO9s.pt");
  for (const auto& place : places) {
    CAPTURE(place);
    const auto found = resolve_weights("LibreYOLO9s.pt", f.env, fake.downloader());
    CHECK(found.file == place / "LibreYOLO9s.pt");
    CHECK(has(found.how, "found in"));
    CHECK(has(found.how, place.string()));
    fs::remove(place / "LibreYOLO9s.pt");  // the next place is found once this one has no file
  }
  CHECK(fake.calls.empty());
}

TEST_CASE("weights: a name in another case is found under LibreYOLO's spelling too") {
  Folders f;
  FakeDownloader fake;
  touch(f.env.weights_folder / "LibreYOLOXs.pt");
  CHECK(resolve_weights("libreyoloxs.pt", f.env, fake.downloader()).file == f.env.weights_folder / "LibreYOLOXs.pt");
}

TEST_CASE("weights: an existing path is used as given, without a search") {
  Folders f;
  FakeDownloader fake;
  touch(f.root / "runs/best.pt");
  const auto given = (f.root / "runs/best.pt").string();
  const auto found = resolve_weights(given, f.env, fake.downloader());
  CHECK(found.file == given);
  CHECK(found.how.empty());
}

TEST_CASE("weights: a known name found nowhere is downloaded from LibreYOLO's URL into the cache") {
  Folders f;
  FakeDownloader fake;
  const auto found = resolve_weights("LibreYOLO9t.pt", f.env, fake.downloader());
  REQUIRE(fake.calls.size() == 1);
  CHECK(fake.calls[0].first == "http://mirror.test/LibreYOLO/LibreYOLO9t/resolve/main/LibreYOLO9t.pt");
  CHECK(fake.calls[0].second == f.env.cache_folder / "LibreYOLO9t.pt");
  CHECK(found.file == f.env.cache_folder / "LibreYOLO9t.pt");
  CHECK(has(found.how, "downloaded from http://mirror.test/LibreYOLO/LibreYOLO9t/resolve/main/LibreYOLO9t.pt"));
  // The second time it is in the cache.
  CHECK(has(resolve_weights("LibreYOLO9t.pt", f.env, fake.downloader()).how, "found in the cache"));
  CHECK(fake.calls.size() == 1);
}

TEST_CASE("weights: an unknown name is never downloaded; the error names every place looked in") {
  Folders f;
  FakeDownloader fake;
  const auto message = failure_of("best.pt", f.env, fake.downloader());
  CHECK(fake.calls.empty());
  CHECK(has(message, "weights 'best.pt' not found"));
  CHECK(has(message, "looked in the working folder (" + f.env.working_folder.string() + ")"));
  CHECK(has(message, "$LIBREYOLO_WEIGHTS (" + f.env.weights_folder.string() + ")"));
  CHECK(has(message, "the cache (" + f.env.cache_folder.string() + ")"));
  CHECK(has(message, "not a name LibreYOLO publishes"));
}

TEST_CASE("weights: a missing path with a folder is not searched elsewhere") {
  Folders f;
  FakeDownloader fake;
  touch(f.env.cache_folder / "LibreYOLO9s.pt");
  const auto message = failure_of((f.root / "nowhere/LibreYOLO9s.pt").string(), f.env, fake.downloader());
  CHECK(has(message, "no such file"));
  CHECK(has(message, "model=LibreYOLO9s.pt without a folder"));
  CHECK(fake.calls.empty());
}

TEST_CASE("weights: offline, no downloader or no cache folder: the URL and where to put the file") {
  Folders f;
  FakeDownloader fake;
  const std::string url = "http://mirror.test/LibreYOLO/LibreYOLO9s/resolve/main/LibreYOLO9s.pt";
  auto offline = f.env;
  offline.offline = true;
  auto message = failure_of("LibreYOLO9s.pt", offline, fake.downloader());
  CHECK(has(message, "LIBREYOLO_OFFLINE"));
  CHECK(has(message, "download it yourself from " + url + " and put it in " + f.env.cache_folder.string()));
  message = failure_of("LibreYOLO9s.pt", f.env, fake.downloader(/*available=*/false));
  CHECK(has(message, "this build has no downloader"));
  CHECK(has(message, url));
  auto homeless = f.env;
  homeless.cache_folder.clear();
  CHECK(has(failure_of("LibreYOLO9s.pt", homeless, fake.downloader()), "no cache folder"));
  CHECK(fake.calls.empty());
  CHECK_FALSE(fs::exists(f.env.cache_folder / "LibreYOLO9s.pt"));
}

TEST_CASE("weights: a failed download says what, from where, why and what to do") {
  Folders f;
  FakeDownloader fake;
  fake.answer = {false, "the server answered HTTP 404 (Not Found)", false, 404L};
  auto message = failure_of("LibreDFINEn.pt", f.env, fake.downloader());
  CHECK(has(message, "could not download LibreDFINEn.pt from http://mirror.test/LibreYOLO/LibreDFINEn/resolve/main/LibreDFINEn.pt"));
  CHECK(has(message, "HTTP 404 (Not Found)"));
  CHECK(has(message, "download it yourself from"));
  CHECK(has(message, "or set LIBREYOLO_WEIGHTS"));
  fake.answer = {false, "the connection closed after 5 B of 10 B", true, 200L};
  message = failure_of("LibreDFINEn.pt", f.env, fake.downloader());
  CHECK(has(message, "kept in " + (f.env.cache_folder / "LibreDFINEn.pt.part").string() + " and resumed next time"));
}

TEST_CASE("weights: checkpoint names end in .pt or .pth; family names do not") {
  CHECK(looks_like_checkpoint("LibreYOLO9s.pt"));
  CHECK(looks_like_checkpoint("runs/x/best.pth"));
  CHECK_FALSE(looks_like_checkpoint("yolo9s"));
  CHECK_FALSE(looks_like_checkpoint(".pt"));
  CHECK_FALSE(looks_like_checkpoint("model.ptx"));
}

}  // TEST_SUITE
