// predict source=: a file, a folder, a glob, and the errors for each way it can name nothing.
#include <doctest/doctest.h>

#include <fstream>

#include "libreyolo/core/error.hpp"
#include "libreyolo/core/predict/prediction_sources.hpp"
#include "temp_dir.hpp"

using namespace libreyolo::core;
using predict::list_prediction_sources;

namespace {
void touch(const std::filesystem::path& path) {
  std::filesystem::create_directories(path.parent_path());
  std::ofstream(path) << "x";
}
}  // namespace

TEST_CASE("a file, a folder (sorted, subfolders included) and a glob") {
  libreyolo::test::TempDir dir;
  touch(dir / "b.jpg");
  touch(dir / "a.PNG");
  touch(dir / "notes.txt");
  touch(dir / "sub/c.jpeg");
  CHECK(list_prediction_sources((dir / "notes.txt").string()) == std::vector<std::filesystem::path>{dir / "notes.txt"});
  const auto folder = list_prediction_sources(dir.path().string());
  CHECK(folder == std::vector<std::filesystem::path>{dir / "a.PNG", dir / "b.jpg", dir / "sub/c.jpeg"});
  const auto glob = list_prediction_sources((dir / "*").string());  // the folder sub/ and notes.txt drop out
  CHECK(glob == std::vector<std::filesystem::path>{dir / "a.PNG", dir / "b.jpg"});
  CHECK(predict::looks_like_glob("x/*.jpg"));
  CHECK_FALSE(predict::looks_like_glob("x/a.jpg"));
}

TEST_CASE("missing, empty and unmatched sources are errors that say what to do") {
  libreyolo::test::TempDir dir;
  CHECK_THROWS_WITH_AS(list_prediction_sources(""), doctest::Contains("predict needs a source: source= is not set"),
                       Error);
  CHECK_THROWS_WITH_AS(list_prediction_sources((dir / "nothing.jpg").string()), doctest::Contains("does not exist"),
                       Error);
  CHECK_THROWS_WITH_AS(list_prediction_sources(dir.path().string()), doctest::Contains("holds no image"), Error);
  CHECK_THROWS_WITH_AS(list_prediction_sources((dir / "*.jpg").string()),
                       doctest::Contains("matches no image: no file matches the pattern"), Error);
  touch(dir / "a.txt");
  CHECK_THROWS_WITH_AS(list_prediction_sources((dir / "*").string()),
                       doctest::Contains("1 paths match, none a .jpg, .jpeg or .png file"), Error);
}
