#include "libreyolo/core/util/writable_folder.hpp"

#include <sys/stat.h>
#include <unistd.h>

namespace libreyolo::core::util {

bool may_write_into(const std::filesystem::path& folder) {
  std::filesystem::path probe = folder.empty() ? std::filesystem::path(".") : folder;
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
