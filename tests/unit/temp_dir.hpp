#pragma once
// A fresh folder under the system temp folder, deleted with everything in it when the test
// ends (pass or fail).

#include <unistd.h>

#include <filesystem>
#include <stdexcept>
#include <string>

#include "libreyolo/core/util/remove_tree.hpp"

namespace libreyolo::test {

class TempDir {
 public:
  TempDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "libreyolo-test-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ignored;
    core::util::remove_tree(path_, ignored);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path operator/(const std::string& relative) const { return path_ / relative; }

 private:
  std::filesystem::path path_;
};

}  // namespace libreyolo::test
