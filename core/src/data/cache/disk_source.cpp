#include "libreyolo/core/data/cache/disk_source.hpp"

#include <optional>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "libreyolo/core/data/cache/cache_text.hpp"
#include "libreyolo/core/data/cache/decode_failures.hpp"
#include "libreyolo/core/data/cache/disk_cache_format.hpp"
#include "libreyolo/core/data/cache/disk_cache_writer.hpp"
#include "libreyolo/core/data/cache/disk_pixel_checks.hpp"
#include "libreyolo/core/data/cache/file_lock.hpp"
#include "libreyolo/core/data/cache/mapped_file.hpp"
#include "libreyolo/core/data/cache/parallel_for.hpp"
#include "libreyolo/core/data/cache/resized_image.hpp"
#include "libreyolo/core/data/dataset/image_scan.hpp"
#include "libreyolo/core/util/writable_folder.hpp"
#include "libreyolo/core/log/log.hpp"

namespace libreyolo::core::data {
namespace fs = std::filesystem;
namespace {

class DiskSource final : public ImageSource {
 public:
  DiskSource(MappedFile file, DiskCacheContents contents, const fs::path& path)
      : file_(std::move(file)),
        contents_(std::move(contents)),
        checks_(path, file_.inode(), contents_.images.size()) {}

  std::size_t size() const override { return contents_.images.size(); }

  // The mapped pixels once they passed their checksum; else the image decoded from its source
  // into `scratch` (and written back into the cache for the next reads).
  ImageView get(std::size_t index, Image& scratch) const override {
    const PlannedImage& image = contents_.images.at(index);
    if (!image.usable()) throw_unloadable_image(image);
    const std::uint8_t* pixels = file_.data() + kDiskCachePixelOffset + image.offset;
    const std::uint64_t expected = contents_.pixel_hashes[index];
    if (checks_.trusted(index, image, pixels, expected)) {
      return {image.resized.width, image.resized.height, pixels};
    }
    scratch = load_resized_image(image.path, image.original, contents_.imgsz);
    checks_.repair(index, image, scratch.pixels.data(), expected);
    return ImageView::of(scratch);
  }

  ImageSize original_size(std::size_t index) const override {
    return contents_.images.at(index).original;
  }

  CacheMode mode() const override { return CacheMode::disk; }

 private:
  MappedFile file_;
  DiskCacheContents contents_;
  DiskPixelChecks checks_;
};

// A cache file as found on disk: mapped and parsed, or why it cannot be used.
struct OpenCache {
  MappedFile file;
  std::optional<DiskCacheContents> contents;
  std::string problem;
};

OpenCache open_cache(const fs::path& path) {
  OpenCache cache;
  std::error_code ec;
  if (!fs::exists(path, ec)) {
    cache.problem = "there is none yet";
    return cache;
  }
  std::string error;
  cache.file = MappedFile::open(path, &error);
  if (!cache.file.is_open()) {
    cache.problem = "it cannot be mapped (" + error + ")";
    return cache;
  }
  cache.contents = decode_disk_cache(cache.file.data(), cache.file.size());
  if (!cache.contents) cache.problem = "it is corrupt or truncated";
  return cache;
}

bool same_size(ImageSize a, ImageSize b) { return a.width == b.width && a.height == b.height; }

// Empty when `cached` holds exactly the images of `plan` as they are now; otherwise why not.
std::string why_stale(const DiskCacheContents& cached, const ImagePlan& plan,
                      const std::vector<FileStamp>& stamps) {
  if (cached.imgsz != plan.imgsz) {
    return "it was built for imgsz=" + std::to_string(cached.imgsz) + ", this run uses " +
           std::to_string(plan.imgsz);
  }
  if (cached.images.size() != plan.images.size()) {
    return "it holds " + std::to_string(cached.images.size()) + " images, the split has " +
           std::to_string(plan.images.size());
  }
  std::size_t changed = 0;
  std::string first;
  for (std::size_t i = 0; i < plan.images.size(); ++i) {
    const PlannedImage& now = plan.images[i];
    const PlannedImage& then = cached.images[i];
    if (now.path != then.path) return "the image list changed (" + now.path.string() + ")";
    const bool same = stamps[i] == cached.stamps[i] && same_size(now.original, then.original) &&
                      (now.usable() || !then.usable());
    if (!same && changed++ == 0) first = now.path.string();
  }
  if (changed == 0) return {};
  return std::to_string(changed) + (changed == 1 ? " image" : " images") + " changed (" + first +
         (changed > 1 ? ", ..." : "") + ")";
}

std::unique_ptr<ImageSource> use_cache(OpenCache cache, const fs::path& path) {
  DiskCacheContents& contents = *cache.contents;
  std::size_t usable = 0;
  for (const PlannedImage& image : contents.images) usable += image.usable() ? 1 : 0;
  log::info("using the disk image cache ", path.string(), " (", usable, " images, ",
            format_bytes(contents.pixel_bytes), ")");
  ImagePlan failures;  // for the summary line only
  for (const PlannedImage& image : contents.images) {
    if (!image.usable()) failures.images.push_back(image);
  }
  log_decode_failures(failures);
  return std::make_unique<DiskSource>(std::move(cache.file), std::move(contents), path);
}

}  // namespace

std::unique_ptr<ImageSource> make_disk_source(ImagePlan plan, const fs::path& cache_file,
                                              int threads) {
  std::vector<FileStamp> stamps(plan.images.size());
  parallel_for(plan.images.size(), threads,
               [&](std::size_t i) { stamps[i] = stamp_file(plan.images[i].path); });

  OpenCache found = open_cache(cache_file);
  std::string stale = found.contents ? why_stale(*found.contents, plan, stamps) : found.problem;
  if (stale.empty()) return use_cache(std::move(found), cache_file);
  found = OpenCache{};  // unmap before waiting: another process may replace it

  if (!util::may_write_into(cache_file.parent_path())) {
    log::warn("cache=disk: ", cache_file.parent_path().string(),
              " is read-only (no write permission bits), so no disk cache is written there");
    return nullptr;
  }
  std::error_code ec;
  fs::create_directories(cache_file.parent_path(), ec);
  if (ec) {
    log::warn("cache=disk: cannot create ", cache_file.parent_path().string(), " (",
              ec.message(), ")");
    return nullptr;
  }
  FileLock lock(cache_file.string() + ".lock");
  // Whoever held the lock before us may have just built exactly this cache.
  OpenCache previous = open_cache(cache_file);
  if (previous.contents && why_stale(*previous.contents, plan, stamps).empty()) {
    return use_cache(std::move(previous), cache_file);
  }
  if (lock.held()) remove_stale_temporaries(cache_file);
  log::info("building the disk image cache ", cache_file.string(), ": ", stale);
  PreviousDiskCache reusable;
  if (previous.contents) {
    reusable.contents = &*previous.contents;
    reusable.pixels = previous.file.data() + kDiskCachePixelOffset;
  }
  if (!write_disk_cache(plan, stamps, cache_file, threads, reusable)) return nullptr;
  previous = OpenCache{};

  OpenCache built = open_cache(cache_file);
  if (!built.contents) {
    log::warn("cache=disk: the cache just written to ", cache_file.string(),
              " does not read back (", built.problem, ")");
    return nullptr;
  }
  log_decode_failures(plan);
  return std::make_unique<DiskSource>(std::move(built.file), std::move(*built.contents), cache_file);
}

}  // namespace libreyolo::core::data
