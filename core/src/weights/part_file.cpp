#include "part_file.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace libreyolo::core::weights {

PartFile::PartFile(const std::filesystem::path& destination, std::string& error)
    : path_(destination.string() + ".part") {
  fd_ = ::open(path_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0) {
    error = "cannot open " + path_.string() + ": " + std::strerror(errno);
    return;
  }
  int locked;
  do locked = ::flock(fd_, LOCK_EX); while (locked != 0 && errno == EINTR);
  // A file system without locks (some network mounts) still downloads, just unguarded.
  ::lseek(fd_, 0, SEEK_END);
}

PartFile::~PartFile() {
  if (fd_ >= 0) ::close(fd_);  // also releases the lock
}

std::uint64_t PartFile::size() const {
  struct stat info{};
  if (fd_ < 0 || ::fstat(fd_, &info) != 0) return 0;
  return static_cast<std::uint64_t>(info.st_size);
}

bool PartFile::restart() { return ::ftruncate(fd_, 0) == 0 && ::lseek(fd_, 0, SEEK_SET) == 0; }

bool PartFile::append(const char* bytes, std::size_t count, std::string& error) {
  while (count > 0) {
    const auto written = ::write(fd_, bytes, count);
    if (written < 0) {
      if (errno == EINTR) continue;
      error = "writing " + path_.string() + " failed: " + std::strerror(errno);
      return false;
    }
    bytes += written;
    count -= static_cast<std::size_t>(written);
  }
  return true;
}

bool PartFile::publish(const std::filesystem::path& destination, std::string& error) {
  if (::fsync(fd_) != 0) {
    error = "writing " + path_.string() + " failed: " + std::strerror(errno);
    return false;
  }
  std::error_code ec;
  std::filesystem::rename(path_, destination, ec);
  if (ec) {
    error = "renaming " + path_.string() + " to " + destination.string() + " failed: " + ec.message();
    return false;
  }
  return true;
}

bool PartFile::keep_if_useful() {
  if (size() > 0) return true;
  std::error_code ec;
  std::filesystem::remove(path_, ec);
  return false;
}

void PartFile::discard_if_other_finished(const std::filesystem::path& destination) {
  struct stat mine{};
  struct stat finished{};
  if (::fstat(fd_, &mine) != 0 || ::stat(destination.c_str(), &finished) != 0) return;
  if (mine.st_ino == finished.st_ino && mine.st_dev == finished.st_dev) return;  // the lock was on the file now published
  struct stat at_path{};
  // Only the .part this process opened, never one a third process has started since.
  if (::stat(path_.c_str(), &at_path) == 0 && at_path.st_ino == mine.st_ino && mine.st_size == 0) {
    std::error_code ec;
    std::filesystem::remove(path_, ec);
  }
}

}  // namespace libreyolo::core::weights
