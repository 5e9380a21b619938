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
