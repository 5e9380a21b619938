#include <doctest/doctest.h>

#include <sys/stat.h>

#include "../temp_dir.hpp"
#include "libreyolo/core/util/writable_folder.hpp"

using libreyolo::core::util::may_write_into;

TEST_CASE("folders without write permission bits are read-only, even for root") {
  const libreyolo::test::TempDir dir;
  CHECK(may_write_into(dir.path()));
  CHECK(may_write_into(dir / "not" / "yet" / "created"));  // asks the existing ancestor
  std::filesystem::create_directories(dir / "shared");
  ::chmod((dir / "shared").c_str(), 0555);
  CHECK_FALSE(may_write_into(dir / "shared"));
  CHECK_FALSE(may_write_into(dir / "shared" / ".libreyolo-cache"));
  ::chmod((dir / "shared").c_str(), 0755);  // so the temp dir can be removed
}

TEST_CASE("a relative path none of whose parts exist asks the working folder (train's runs/train/exp, first run)") {
  const libreyolo::test::TempDir dir;
  const auto before = std::filesystem::current_path();
  std::filesystem::current_path(dir.path());
  const bool fresh = may_write_into("runs/train/exp");
  ::chmod(dir.path().c_str(), 0555);
  const bool read_only = may_write_into("runs/train/exp");
  ::chmod(dir.path().c_str(), 0755);
  std::filesystem::current_path(before);
  CHECK(fresh);
  CHECK_FALSE(read_only);
}
