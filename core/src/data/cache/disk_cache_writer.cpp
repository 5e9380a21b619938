#include "libreyolo/core/data/cache/disk_cache_writer.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <exception>
#include <mutex>
#include <optional>
#include <string>
#include <system_error>
#include <unordered_map>
#include <utility>

#include "libreyolo/core/data/cache/cache_text.hpp"
#include "libreyolo/core/data/cache/decode_failures.hpp"
#include "libreyolo/core/data/cache/parallel_for.hpp"
#include "libreyolo/core/data/cache/pixel_hash.hpp"
#include "libreyolo/core/data/cache/resized_image.hpp"
#include "libreyolo/core/log/log.hpp"

namespace libreyolo::core::data {
namespace fs = std::filesystem;
namespace {

bool same_size(ImageSize a, ImageSize b) { return a.width == b.width && a.height == b.height; }

bool pwrite_all(int fd, const std::uint8_t* data, std::uint64_t size, std::uint64_t offset,
                std::string* error) {
  while (size > 0) {
    const ssize_t written = ::pwrite(fd, data, size, static_cast<off_t>(offset));
    if (written < 0 && errno == EINTR) continue;
    if (written <= 0) {
      *error = written < 0 ? std::strerror(errno) : "nothing was written";
      return false;
    }
    data += written;
    size -= static_cast<std::uint64_t>(written);
    offset += static_cast<std::uint64_t>(written);
  }
  return true;
}

// An unchanged image's pixels in the previous cache file, and the hash they had when written.
struct Reusable {
  const std::uint8_t* pixels = nullptr;  // nullptr: decode
  std::uint64_t hash = 0;
};

// Where an unchanged image's pixels already are in the previous cache file.
std::vector<Reusable> reusable_pixels(const ImagePlan& plan, const std::vector<FileStamp>& stamps,
                                      const PreviousDiskCache& previous) {
  std::vector<Reusable> found(plan.images.size());
  if (previous.contents == nullptr || previous.contents->imgsz != plan.imgsz) return found;
  const DiskCacheContents& old = *previous.contents;
  std::unordered_map<std::string, std::size_t> by_path;
  for (std::size_t i = 0; i < old.images.size(); ++i) by_path.emplace(old.images[i].path.string(), i);
  for (std::size_t i = 0; i < plan.images.size(); ++i) {
    const PlannedImage& now = plan.images[i];
    const auto hit = by_path.find(now.path.string());
    if (!now.usable() || hit == by_path.end()) continue;
    const PlannedImage& then = old.images[hit->second];
    if (then.usable() && old.stamps[hit->second] == stamps[i] &&
        same_size(then.original, now.original) && same_size(then.resized, now.resized)) {
      found[i] = {previous.pixels + then.offset, old.pixel_hashes[hit->second]};
    }
  }
  return found;
}

class FileDescriptor {
 public:
  explicit FileDescriptor(int fd) : fd_(fd) {}
  ~FileDescriptor() {
    if (fd_ >= 0) ::close(fd_);
  }
  FileDescriptor(const FileDescriptor&) = delete;
  FileDescriptor& operator=(const FileDescriptor&) = delete;
  int get() const { return fd_; }
  int release() { return std::exchange(fd_, -1); }

 private:
  int fd_;
};

// Unique per process and per build, in case the lock could not be taken.
fs::path temporary_file_for(const fs::path& cache_file) {
  static std::atomic<unsigned> builds{0};
  return cache_file.string() + ".tmp-" + std::to_string(::getpid()) + "-" +
         std::to_string(builds.fetch_add(1));
}

void log_build_start(const ImagePlan& plan, const fs::path& cache_file,
                     const std::vector<Reusable>& reuse, int workers) {
  std::size_t reused = 0;
  for (const Reusable& old : reuse) reused += old.pixels != nullptr ? 1 : 0;
  log::info("caching ", plan.images.size(), " images (", format_bytes(plan.pixel_bytes),
            ") on disk in ", cache_file.string(),
            reused > 0 ? " (" + std::to_string(reused) + " unchanged, copied)" : std::string(),
            " with ", workers, workers == 1 ? " thread" : " threads", " ...");
}

// One image into its slot of the file: copied from the previous cache when `reused` is set
// and its pixels still have their hash (a copy would otherwise carry changed bytes into the
// new file under a fresh hash), else decoded and resized. `hash` receives the pixels' hash. A
// decode failure is recorded in `image` and is not a write error; false means the write
// itself failed (`error` says why).
bool write_image(int fd, PlannedImage& image, const Reusable& reused, int imgsz,
                 std::uint64_t* hash, std::string* error) {
  const std::uint64_t offset = kDiskCachePixelOffset + image.offset;
  if (reused.pixels != nullptr) {
    *hash = hash_pixels(reused.pixels, image.bytes());
    if (*hash == reused.hash) return pwrite_all(fd, reused.pixels, image.bytes(), offset, error);
    log::warn("cache=disk: the previous cache's pixels of ", image.path.string(),
              " do not match their checksum (the file changed on disk); decoding the image again");
  }
  Image resized;
  try {
    resized = load_resized_image(image.path, image.original, imgsz);
  } catch (const std::exception& e) {
    image.failure = failure_reason(e);
    *hash = 0;
    return true;
  }
  *hash = hash_pixels(resized.pixels.data(), image.bytes());
  return pwrite_all(fd, resized.pixels.data(), image.bytes(), offset, error);
}

// Every usable image's pixels, `workers` threads at once, and their hashes into `hashes`.
// Returns the first write error; nothing when all writes succeeded. The other threads stop
// starting images after one fails.
std::optional<std::string> write_pixels(ImagePlan& plan, const std::vector<Reusable>& reuse,
                                        int fd, int workers, std::vector<std::uint64_t>* hashes) {
  std::atomic<bool> write_failed{false};
  std::mutex error_mutex;
  std::string write_error;
  parallel_for(plan.images.size(), workers, [&](std::size_t i) {
    PlannedImage& image = plan.images[i];  // each thread touches only its own images
    if (!image.usable() || write_failed.load()) return;
    std::string error;
    if (!write_image(fd, image, reuse[i], plan.imgsz, &(*hashes)[i], &error) &&
        !write_failed.exchange(true)) {
      std::lock_guard<std::mutex> lock(error_mutex);
      write_error = error;
    }
  });
  if (write_failed) return write_error;
  return std::nullopt;
}

// What the index records: the plan after decoding, with the images that failed left as holes.
DiskCacheContents cache_contents(const ImagePlan& plan, const std::vector<FileStamp>& stamps,
                                 std::vector<std::uint64_t> hashes) {
  DiskCacheContents contents;
  contents.imgsz = plan.imgsz;
  contents.pixel_bytes = plan.pixel_bytes;
  contents.images = plan.images;
  for (PlannedImage& image : contents.images) {
    if (!image.usable()) image.resized = {};  // its slot stays a hole in the file
  }
  contents.stamps = stamps;
  contents.pixel_hashes = std::move(hashes);
  return contents;
}

// The index after the pixel block, then the preamble at the start of the file. The preamble
// goes last: until it is written the file cannot pass for a cache.
bool write_index_and_preamble(int fd, const DiskCacheContents& contents, std::string* error) {
  const std::string index = encode_disk_cache_index(contents);
  const std::string preamble = encode_disk_cache_preamble(contents, index);
  return pwrite_all(fd, reinterpret_cast<const std::uint8_t*>(index.data()), index.size(),
                    kDiskCachePixelOffset + contents.pixel_bytes, error) &&
         pwrite_all(fd, reinterpret_cast<const std::uint8_t*>(preamble.data()), preamble.size(),
                    0, error);
}

}  // namespace

bool write_disk_cache(ImagePlan& plan, const std::vector<FileStamp>& stamps,
                      const fs::path& cache_file, int threads, const PreviousDiskCache& previous) {
  const fs::path temp = temporary_file_for(cache_file);
  FileDescriptor fd(::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
  if (fd.get() < 0) {
    log::warn("cache=disk: cannot write in ", cache_file.parent_path().string(), " (",
              std::strerror(errno), ")");
    return false;
  }
  auto give_up = [&](const std::string& why) {
    log::warn("cache=disk: could not write ", cache_file.string(), " (", why, ")");
    std::error_code ignored;
    fs::remove(temp, ignored);
    return false;
  };
  // Claim the space up front so a full disk is reported now, not after an hour of decoding.
  const std::uint64_t needed = kDiskCachePixelOffset + plan.pixel_bytes;
  if (::fallocate(fd.get(), 0, 0, static_cast<off_t>(needed)) != 0 && errno == ENOSPC) {
    return give_up("not enough free space for " + format_bytes(needed));
  }

  const std::vector<Reusable> reuse = reusable_pixels(plan, stamps, previous);
  const int workers = resolve_thread_count(threads, plan.images.size());
  log_build_start(plan, cache_file, reuse, workers);
  const auto start = std::chrono::steady_clock::now();
  std::vector<std::uint64_t> hashes(plan.images.size(), 0);
  if (const auto error = write_pixels(plan, reuse, fd.get(), workers, &hashes)) {
    return give_up(*error);
  }
  std::string error;
  if (!write_index_and_preamble(fd.get(), cache_contents(plan, stamps, std::move(hashes)), &error)) {
    return give_up(error);
  }
  if (::fsync(fd.get()) != 0 || ::close(fd.release()) != 0) return give_up(std::strerror(errno));
  std::error_code ec;
  fs::rename(temp, cache_file, ec);  // atomic: readers see the old file or the new, never half
  if (ec) return give_up(ec.message());
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  log::info("cached ", plan.images.size() - count_failures(plan), " images on disk in ",
            format_seconds(seconds));
  return true;
}

void remove_stale_temporaries(const fs::path& cache_file) {
  const std::string prefix = cache_file.filename().string() + ".tmp-";
  std::error_code ec;
  for (fs::directory_iterator it(cache_file.parent_path(), ec), end; !ec && it != end;
       it.increment(ec)) {
    if (it->path().filename().string().rfind(prefix, 0) == 0) {
      std::error_code ignored;
      fs::remove(it->path(), ignored);
    }
  }
}

}  // namespace libreyolo::core::data
