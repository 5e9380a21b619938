#pragma once
// Replaces a file so that readers (and a crash or a full disk) only ever see the old or the
// new contents, never half a file: write <path>.tmp-<pid>, fsync it, rename it over <path>,
// fsync the folder. On any failure the temp file is removed and <path> is left as it was.
// Losing last.pt to a full disk after 3 days of training is the failure this prevents.

#include <sys/types.h>

#include <cstddef>
#include <filesystem>
#include <functional>
#include <string>

namespace libreyolo::core::checkpoint {

// System calls the writer makes, replaceable so tests can fail them on purpose (a full disk,
// an I/O error) without a full disk. Unset members mean the real ::write / ::fsync.
struct FileHooks {
  std::function<ssize_t(int fd, const void* data, std::size_t size)> write;
  std::function<int(int fd)> fsync;
};

// Receives the new contents. write() never throws and never reports failure to the producer:
// after the first failed write it drops the rest and remembers errno, and
// write_file_atomically throws once the producer returns. (LibTorch's zip writer must not see
// a failed write: in 1.13 its destructor would then throw again and terminate the program.)
class AtomicFileWriter {
 public:
  void write(const void* data, std::size_t size) noexcept;
  bool failed() const { return error_ != 0; }
  int error() const { return error_; }
  std::size_t bytes_written() const { return written_; }

 private:
  friend void write_file_atomically(const std::filesystem::path&,
                                    const std::function<void(AtomicFileWriter&)>&,
                                    const FileHooks&);
  AtomicFileWriter(int fd, const FileHooks& hooks) : fd_(fd), hooks_(hooks) {}
  int fd_;
  const FileHooks& hooks_;
  int error_ = 0;
  std::size_t written_ = 0;
};

// The temp file's name for `path` in this process.
std::filesystem::path temp_path_for(const std::filesystem::path& path);

// Throws core::Error naming the file and the OS error when anything fails; an exception from
// `produce` is passed on after the temp file is removed.
void write_file_atomically(const std::filesystem::path& path,
                           const std::function<void(AtomicFileWriter&)>& produce,
                           const FileHooks& hooks = {});

}  // namespace libreyolo::core::checkpoint
