// A run folder is never made in a read-only project folder, even by root (issue #20, item 13).
#include <doctest/doctest.h>

#include <sys/stat.h>

#include "libreyolo/core/error.hpp"
#include "libreyolo/core/trainer/run_folder.hpp"
#include "temp_dir.hpp"

using namespace libreyolo::core;

TEST_CASE("a read-only project folder is a clear error and stays empty") {
  libreyolo::test::TempDir dir;
  const auto project = dir / "locked";
  std::filesystem::create_directory(project);
  ::chmod(project.c_str(), 0555);
  std::string message = "(no error)";
  try {
    trainer::create_run_folder(project / "runs", "exp", false);
  } catch (const Error& e) {
    message = e.what();
  }
  ::chmod(project.c_str(), 0755);
  CHECK(message.find("cannot create the run folder") != std::string::npos);
  CHECK(message.find("read-only") != std::string::npos);
  CHECK(message.find("choose another project=") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(project / "runs"));
}
