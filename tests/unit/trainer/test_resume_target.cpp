#include <doctest/doctest.h>

#include <chrono>
#include <fstream>

#include "../temp_dir.hpp"
#include "libreyolo/core/error.hpp"
#include "libreyolo/core/trainer/resume_target.hpp"

using namespace libreyolo::core;
using namespace libreyolo::core::trainer;
namespace fs = std::filesystem;

namespace {
// A run folder as training leaves it: args.yaml and weights/last.pt (its bytes do not matter here).
fs::path make_run(const fs::path& project, const std::string& name, const std::string& args = "epochs: 3\n") {
  const auto root = project / name;
  fs::create_directories(root / "weights");
  std::ofstream(root / "weights" / "last.pt") << "x";
  std::ofstream(root / "args.yaml") << args;
  return root;
}
}  // namespace

TEST_CASE("resume=: false, False, 0 and empty are off; true and paths are on") {
  for (const char* off : {"false", "False", "0", ""}) CHECK_FALSE(resume_requested(off));
  for (const char* on : {"true", "True", "1", "runs/train/exp/weights/last.pt"}) CHECK(resume_requested(on));
}

TEST_CASE("resume=true: the named run, else the run whose last.pt is newest") {
  const libreyolo::test::TempDir dir;
  const auto old_run = make_run(dir.path(), "exp");
  const auto new_run = make_run(dir.path(), "exp2");
  fs::last_write_time(old_run / "weights" / "last.pt", fs::file_time_type::clock::now() - std::chrono::hours(1));
  fs::create_directories(dir / "empty");  // a folder without last.pt is never a candidate
  CHECK(resume_run_root("true", dir.path(), std::nullopt) == new_run);
  CHECK(resume_run_root("true", dir.path(), std::string("exp")) == old_run);
  CHECK_THROWS_WITH_AS(resume_run_root("true", dir.path(), std::string("empty")), doctest::Contains("no weights/last.pt"),
                       Error);
  CHECK_THROWS_WITH_AS(resume_run_root("true", dir / "none", std::nullopt),
                       doctest::Contains(("no run in " + (dir / "none").string() + " has weights/last.pt").c_str()), Error);
}

TEST_CASE("resume=path: a run's weights/last.pt or its folder; a loose .pt is refused with what to do") {
  const libreyolo::test::TempDir dir;
  const auto run = make_run(dir.path(), "exp");
  CHECK(resume_run_root((run / "weights" / "last.pt").string(), "unused", std::nullopt) == run);
  CHECK(resume_run_root(run.string(), "unused", std::nullopt) == run);
  std::ofstream(dir / "loose.pt") << "x";
  CHECK_THROWS_WITH_AS(resume_run_root((dir / "loose.pt").string(), "unused", std::nullopt),
                       doctest::Contains(("start a new run with model=" + (dir / "loose.pt").string()).c_str()), Error);
  CHECK_THROWS_WITH_AS(resume_run_root((dir / "missing.pt").string(), "unused", std::nullopt),
                       doctest::Contains("no such file"), Error);
}

TEST_CASE("a run's args.yaml: its options in file order; a run without one is refused") {
  const libreyolo::test::TempDir dir;
  const auto run = make_run(dir.path(), "exp", "model: yolo9t  # from command line\nepochs: 3\nlr0: 1e-02\n");
  const auto options = read_run_arguments(run);
  REQUIRE(options.size() == 3);
  CHECK(options[0] == std::pair<std::string, std::string>{"model", "yolo9t"});
  CHECK(options[2] == std::pair<std::string, std::string>{"lr0", "1e-02"});
  fs::remove(run / "args.yaml");
  CHECK_THROWS_WITH_AS(read_run_arguments(run), doctest::Contains("it has no args.yaml"), Error);
  std::ofstream(run / "args.yaml") << "[1, 2]\n";
  CHECK_THROWS_WITH_AS(read_run_arguments(run), doctest::Contains("not a map"), Error);
}
