#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "libreyolo/core/error.hpp"
#include "libreyolo/core/log/log.hpp"
#include "libreyolo/core/trainer/run_folder.hpp"

namespace libreyolo::core::trainer {
namespace {

std::string read_holder(int fd) {
  char text[32] = {};
  const ssize_t n = ::pread(fd, text, sizeof text - 1, 0);
  std::string pid = n > 0 ? std::string(text, static_cast<std::size_t>(n)) : std::string();
  while (!pid.empty() && (pid.back() == '\n' || pid.back() == ' ')) pid.pop_back();
  return pid.empty() ? "unknown" : pid;
}

void write_owner(int fd) {
  const std::string pid = std::to_string(::getpid()) + "\n";
  if (::ftruncate(fd, 0) != 0 || ::pwrite(fd, pid.data(), pid.size(), 0) < 0) {
    // The lock itself is what protects the folder; the pid is only for the other run's message.
    log::warn("could not record this process in its run folder's .lock file: ", std::strerror(errno));
  }
}

}  // namespace

RunFolderLock::RunFolderLock(const std::filesystem::path& root) {
  const auto file = root / ".lock";
  fd_ = ::open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (fd_ < 0) {
    throw Error("cannot lock the run folder " + root.string(), "creating " + file.string() + " failed: " + std::strerror(errno),
                "make the folder writable, or choose another project=");
  }
  int result = 0;
  do {
    result = ::flock(fd_, LOCK_EX | LOCK_NB);
  } while (result != 0 && errno == EINTR);
  if (result == 0) {
    write_owner(fd_);
    return;
  }
  const int code = errno;
  if (code == EWOULDBLOCK) {
    const auto holder = read_holder(fd_);
    ::close(fd_);
    throw Error("the run folder " + root.string() + " is in use by another training run (pid " + holder + ")",
                "two runs writing one folder would interleave results.csv and overwrite each other's args.yaml and weights",
                "Wait for pid " + holder + " to finish, or choose another name= (or leave out exist_ok=true)");
  }
  // A file system without flock (some network mounts): train unprotected, but say so.
  log::warn("could not lock the run folder ", root.string(), " (", std::strerror(code),
            "): nothing stops a second run from writing into it at the same time");
  ::close(fd_);
  fd_ = -1;
}

RunFolderLock::~RunFolderLock() {
  if (fd_ >= 0) ::close(fd_);  // closing releases the lock; the file stays (removing it would race)
}

}  // namespace libreyolo::core::trainer
