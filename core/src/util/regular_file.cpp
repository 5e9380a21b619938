#include "libreyolo/core/util/regular_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace libreyolo::core::util {
namespace {

const char* type_name(mode_t mode) {
  if (S_ISDIR(mode)) return "a folder";
  if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a plain file";
}

std::string reason_for(mode_t mode) {
  return std::string("it is ") + type_name(mode) + ", not a regular file";
}

}  // namespace

std::string not_regular_file_reason(const std::filesystem::path& path) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0 || S_ISREG(info.st_mode)) return {};
  return reason_for(info.st_mode);
}

int open_regular_file(const std::filesystem::path& path, std::string* why) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) {
    *why = std::strerror(errno);
    return -1;
  }
  if (!S_ISREG(info.st_mode)) {
    *why = reason_for(info.st_mode);
    return -1;
  }
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) {
    *why = std::strerror(errno);
    return -1;
  }
  if (::fstat(fd, &info) != 0 || !S_ISREG(info.st_mode)) {
    *why = S_ISREG(info.st_mode) ? std::strerror(errno) : reason_for(info.st_mode);
    ::close(fd);
    return -1;
  }
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  return fd;
}

}  // namespace libreyolo::core::util
