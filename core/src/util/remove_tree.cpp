#include "libreyolo/core/util/remove_tree.hpp"

#include <ftw.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>

namespace libreyolo::core::util {
namespace {

int remove_entry(const char* path, const struct stat*, int type, struct FTW*) {
  // FTW_DEPTH visits children first, so folders are empty when we reach them.
  const int result = (type == FTW_DP) ? ::rmdir(path) : ::unlink(path);
  return result == 0 || errno == ENOENT ? 0 : errno;
}

}  // namespace

bool remove_tree(const std::filesystem::path& path, std::error_code& error) {
  error.clear();
  struct stat info {};
  if (::lstat(path.c_str(), &info) != 0) {
    if (errno == ENOENT) return true;
    error.assign(errno, std::generic_category());
    return false;
  }
  // FTW_PHYS: never follow symbolic links out of the tree being removed.
  const int result = ::nftw(path.c_str(), &remove_entry, 16, FTW_DEPTH | FTW_PHYS);
  if (result != 0) {
    error.assign(result > 0 ? result : errno, std::generic_category());
    return false;
  }
  return true;
}

}  // namespace libreyolo::core::util
