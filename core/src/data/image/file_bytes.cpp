#include "libreyolo/core/data/image/file_bytes.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "libreyolo/core/error.hpp"
#include "libreyolo/core/util/regular_file.hpp"

namespace libreyolo::core::data {
namespace {

class Descriptor {
 public:
  explicit Descriptor(int fd) : fd_(fd) {}
  ~Descriptor() {
    if (fd_ >= 0) ::close(fd_);
  }
  Descriptor(const Descriptor&) = delete;
  Descriptor& operator=(const Descriptor&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

std::string megabytes(std::uint64_t bytes) {
  return std::to_string((bytes + (1u << 20) - 1) >> 20) + " MiB";
}

}  // namespace

std::vector<std::uint8_t> read_file_bytes(const std::filesystem::path& path,
                                          std::uint64_t max_bytes, const std::string& kind) {
  std::string why;
  const Descriptor fd(util::open_regular_file(path, &why));
  if (fd.get() < 0) {
    throw Error("Cannot open " + path.string(), why,
                "Check that it is a readable regular " + kind + " (not a pipe, folder or device)");
  }
  struct stat info {};
  if (::fstat(fd.get(), &info) != 0) {
    throw Error("Cannot read " + path.string(), std::strerror(errno), "Check the disk and the file");
  }
  const auto size = static_cast<std::uint64_t>(info.st_size);
  if (size > max_bytes) {
    throw Error("Cannot read " + path.string(),
                "it is " + megabytes(size) + ", more than any " + kind + " (at most " +
                    megabytes(max_bytes) + "); reading it would stall the run",
                "Check that the path names the right file");
  }
  std::vector<std::uint8_t> bytes(static_cast<std::size_t>(size));
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t got = ::read(fd.get(), bytes.data() + done, bytes.size() - done);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) {
      throw Error("Cannot read " + path.string(),
                  got < 0 ? std::strerror(errno) : "the read stopped before the end of the file",
                  "Check the disk and the file");
    }
    done += static_cast<std::size_t>(got);
  }
  return bytes;
}

}  // namespace libreyolo::core::data
