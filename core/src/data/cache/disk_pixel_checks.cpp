#include "libreyolo/core/data/cache/disk_pixel_checks.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <utility>

#include "libreyolo/core/data/cache/disk_cache_format.hpp"
#include "libreyolo/core/data/cache/pixel_hash.hpp"
#include "libreyolo/core/log/log.hpp"

namespace libreyolo::core::data {
namespace {

bool pwrite_all(int fd, const std::uint8_t* data, std::uint64_t size, std::uint64_t offset) {
  while (size > 0) {
    const ssize_t written = ::pwrite(fd, data, size, static_cast<off_t>(offset));
    if (written < 0 && errno == EINTR) continue;
    if (written <= 0) return false;
    data += written;
    size -= static_cast<std::uint64_t>(written);
    offset += static_cast<std::uint64_t>(written);
  }
  return true;
}

}  // namespace

DiskPixelChecks::DiskPixelChecks(std::filesystem::path cache_file, std::uint64_t inode,
                                 std::size_t images)
    : file_(std::move(cache_file)),
      inode_(inode),
      states_(new std::atomic<std::uint8_t>[images]),
      warned_(new std::atomic<bool>[images]) {
  for (std::size_t i = 0; i < images; ++i) {
    states_[i].store(kUnchecked, std::memory_order_relaxed);
    warned_[i].store(false, std::memory_order_relaxed);
  }
}

bool DiskPixelChecks::trusted(std::size_t index, const PlannedImage& image,
                              const std::uint8_t* pixels, std::uint64_t expected) const {
  const std::uint8_t state = states_[index].load(std::memory_order_acquire);
  if (state == kGood) return true;
  if (state == kBad) return false;
  if (hash_pixels(pixels, image.bytes()) == expected) {
    states_[index].store(kGood, std::memory_order_release);
    return true;
  }
  states_[index].store(kBad, std::memory_order_release);
  if (!warned_[index].exchange(true)) {
    log::warn("cache=disk: the cached pixels of ", image.path.string(), " in ", file_.string(),
              " do not match their checksum (the cache file changed on disk); the image is "
              "decoded from its source file instead and written back into the cache");
  }
  return false;
}

void DiskPixelChecks::repair(std::size_t index, const PlannedImage& image,
                             const std::uint8_t* decoded, std::uint64_t expected) const {
  // Another decode than the cache's (the source changed) must not be written under its hash.
  if (hash_pixels(decoded, image.bytes()) != expected) return;
  const int fd = ::open(file_.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  if (fd < 0) return;  // a read-only cache: this run keeps decoding the image
  struct stat info {};
  const bool same_file = ::fstat(fd, &info) == 0 && S_ISREG(info.st_mode) &&
                         static_cast<std::uint64_t>(info.st_ino) == inode_;
  const bool written =
      same_file && pwrite_all(fd, decoded, image.bytes(), kDiskCachePixelOffset + image.offset);
  ::close(fd);
  // The mapping shares the page cache with the file: the next read sees the repaired bytes
  // and checks them again.
  if (written) states_[index].store(kUnchecked, std::memory_order_release);
}

}  // namespace libreyolo::core::data
