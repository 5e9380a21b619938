#include "libreyolo/core/util/writable_folder.hpp"

#include <sys/stat.h>
#include <unistd.h>

namespace libreyolo::core::util {

bool may_write_into(const std::filesystem::path& folder) {
  // Absolute first: a relative path none of whose parts exist yet ("runs/train/exp" in a fresh
  // folder) must end its walk up at the working directory, not at "runs".
  std::error_code ec;
  std::filesystem::path probe = std::filesystem::absolute(folder.empty() ? std::filesystem::path(".") : folder, ec);
  if (ec) return false;
  struct stat info {};
  while (::stat(probe.c_str(), &info) != 0) {
    if (!probe.has_parent_path() || probe.parent_path() == probe) return false;
    probe = probe.parent_path();
  }
  if (!S_ISDIR(info.st_mode)) return false;
  if ((info.st_mode & (S_IWUSR | S_IWGRP | S_IWOTH)) == 0) return false;
  return ::access(probe.c_str(), W_OK) == 0;
}

}  // namespace libreyolo::core::util
