#pragma once
// An exclusive advisory lock (flock) on a lock file, so that several processes building the
// same disk cache (DDP ranks on one machine) do it once: the first builds, the others wait and
// then find a valid cache. The kernel drops the lock if the holder dies.

#include <filesystem>

namespace libreyolo::core::data {

class FileLock {
 public:
  // Blocks until the lock is held. When the lock file cannot be created (read-only folder),
  // the lock is simply not held: locking is an optimisation, never a reason to fail.
  explicit FileLock(const std::filesystem::path& lock_file);
  ~FileLock();
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;

  bool held() const { return fd_ >= 0; }

 private:
  int fd_ = -1;
};

}  // namespace libreyolo::core::data
