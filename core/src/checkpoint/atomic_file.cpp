#include "libreyolo/core/checkpoint/atomic_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "libreyolo/core/error.hpp"

namespace libreyolo::core::checkpoint {
namespace {

std::string os_error(int code) { return std::strerror(code); }

std::string advice(int code, const std::filesystem::path& folder) {
  switch (code) {
    case ENOSPC:
    case EDQUOT:
    case EFBIG: return "Free disk space (or raise the quota / file size limit) on " + folder.string() + " and save again";
    case EACCES:
    case EPERM:
    case EROFS: return "Make " + folder.string() + " writable, or save somewhere else";
    case ENOENT: return "Create the folder " + folder.string() + " first, or save somewhere else";
    default: return "Check the disk holding " + folder.string();
  }
}

// Removes the temp file we created; the original error is what the user needs to see, so a
// failure here is not reported over it.
void discard(const std::filesystem::path& temp) { ::unlink(temp.c_str()); }

[[noreturn]] void fail(const std::filesystem::path& path, const std::string& step, int code) {
  const auto folder = path.has_parent_path() ? path.parent_path() : std::filesystem::path(".");
  throw Error("Could not write " + path.string(),
              step + ": " + os_error(code) + "; the previous " + path.filename().string() +
                  " (if any) is unchanged",
              advice(code, folder));
}

int call_fsync(const FileHooks& hooks, int fd) { return hooks.fsync ? hooks.fsync(fd) : ::fsync(fd); }

}  // namespace

void AtomicFileWriter::write(const void* data, std::size_t size) noexcept {
  const char* bytes = static_cast<const char*>(data);
  while (size > 0 && error_ == 0) {
    const ssize_t n = hooks_.write ? hooks_.write(fd_, bytes, size) : ::write(fd_, bytes, size);
    if (n < 0) {
      if (errno == EINTR) continue;
      error_ = errno != 0 ? errno : EIO;
    } else if (n == 0) {
      error_ = ENOSPC;  // write() returning 0 for a regular file means no room was left
    } else {
      bytes += n;
      size -= static_cast<std::size_t>(n);
      written_ += static_cast<std::size_t>(n);
    }
  }
}

std::filesystem::path temp_path_for(const std::filesystem::path& path) {
  return std::filesystem::path(path.string() + ".tmp-" + std::to_string(::getpid()));
}

void write_file_atomically(const std::filesystem::path& path,
                           const std::function<void(AtomicFileWriter&)>& produce,
                           const FileHooks& hooks) {
  const std::filesystem::path temp = temp_path_for(path);
  // O_NOFOLLOW: never write through a symlink someone left at our temp name.
  const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (fd < 0) fail(path, "creating the temporary file " + temp.string() + " failed", errno);

  AtomicFileWriter writer(fd, hooks);
  try {
    produce(writer);
  } catch (...) {
    ::close(fd);
    discard(temp);
    if (writer.failed()) fail(path, "writing " + temp.string() + " failed", writer.error());
    throw;
  }
  if (writer.failed()) {
    ::close(fd);
    discard(temp);
    fail(path, "writing " + temp.string() + " failed", writer.error());
  }
  // fsync before rename: otherwise a crash can leave the new name pointing at empty blocks.
  if (call_fsync(hooks, fd) != 0) {
    const int code = errno;
    ::close(fd);
    discard(temp);
    fail(path, "flushing " + temp.string() + " to disk failed", code);
  }
  if (::close(fd) != 0) {
    const int code = errno;
    discard(temp);
    fail(path, "closing " + temp.string() + " failed", code);
  }
  if (::rename(temp.c_str(), path.c_str()) != 0) {
    const int code = errno;
    discard(temp);
    fail(path, "renaming " + temp.string() + " over it failed", code);
  }
  // fsync the folder so the rename itself survives a power cut. Some file systems cannot
  // fsync a folder (EINVAL); the file is in place then, so that is not an error.
  const auto folder = path.has_parent_path() ? path.parent_path() : std::filesystem::path(".");
  const int dir = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir >= 0) {
    const int result = call_fsync(hooks, dir);
    const int code = errno;
    ::close(dir);
    if (result != 0 && code != EINVAL && code != ENOTSUP) {
      throw Error("Wrote " + path.string() + " but could not flush its folder",
                  "fsync of " + folder.string() + " failed: " + os_error(code),
                  "The new file is in place but may not survive a power loss; check the disk");
    }
  }
}

}  // namespace libreyolo::core::checkpoint
