#include "libreyolo/core/data/cache/disk_cache_format.hpp"

#include <cstring>
#include <type_traits>

#include "libreyolo/core/data/cache/fnv1a.hpp"

namespace libreyolo::core::data {
namespace {

constexpr char kMagic[8] = {'L', 'Y', 'I', 'M', 'G', 'C', 'H', 0};
constexpr std::uint32_t kVersion = 3;  // 2: stamps carry ctime and inode; 3: pixel hashes
constexpr std::size_t kPreambleFields = 8 + 4 + 4 + 8 + 8 + 8 + 8;  // before its own checksum
// Bounds no real cache reaches; a corrupt field fails fast instead of allocating.
constexpr std::uint32_t kMaxStringBytes = 1u << 16;
constexpr std::uint64_t kMaxImages = 1ull << 28;

class Writer {
 public:
  template <typename T>
  void put(T value) {
    static_assert(std::is_trivially_copyable_v<T>);
    bytes_.append(reinterpret_cast<const char*>(&value), sizeof value);
  }
  void put_string(const std::string& text) {
    put(static_cast<std::uint32_t>(text.size()));
    bytes_ += text;
  }
  std::string& bytes() { return bytes_; }

 private:
  std::string bytes_;
};

class Reader {
 public:
  Reader(const std::uint8_t* data, std::uint64_t size) : data_(data), size_(size) {}
  template <typename T>
  bool get(T* value) {
    if (size_ - position_ < sizeof(T)) return false;
    std::memcpy(value, data_ + position_, sizeof(T));
    position_ += sizeof(T);
    return true;
  }
  bool get_string(std::string* text) {
    std::uint32_t length = 0;
    if (!get(&length) || length > kMaxStringBytes || size_ - position_ < length) return false;
    text->assign(reinterpret_cast<const char*>(data_ + position_), length);
    position_ += length;
    return true;
  }
  bool at_end() const { return position_ == size_; }

 private:
  const std::uint8_t* data_;
  std::uint64_t size_;
  std::uint64_t position_ = 0;
};

bool same_size(ImageSize a, ImageSize b) { return a.width == b.width && a.height == b.height; }

// Every usable image lies inside the pixel block at the size imgsz implies.
bool entry_is_consistent(const PlannedImage& image, int imgsz, std::uint64_t pixel_bytes) {
  if (!image.usable()) return image.resized.width == 0 && image.resized.height == 0;
  if (!same_size(image.resized, resized_size(image.original, imgsz))) return false;
  const std::uint64_t bytes = image.bytes();
  return bytes > 0 && image.offset <= pixel_bytes && bytes <= pixel_bytes - image.offset;
}

}  // namespace

std::string encode_disk_cache_index(const DiskCacheContents& contents) {
  Writer out;
  for (std::size_t i = 0; i < contents.images.size(); ++i) {
    const PlannedImage& image = contents.images[i];
    out.put_string(image.path.string());
    out.put(contents.stamps[i].size);
    out.put(contents.stamps[i].mtime);
    out.put(contents.stamps[i].ctime);
    out.put(contents.stamps[i].inode);
    out.put(static_cast<std::int32_t>(image.original.width));
    out.put(static_cast<std::int32_t>(image.original.height));
    out.put(static_cast<std::int32_t>(image.resized.width));
    out.put(static_cast<std::int32_t>(image.resized.height));
    out.put(image.offset);
    out.put(contents.pixel_hashes.at(i));
    // A failure longer than a path would be is cut: it only needs to explain, not be whole.
    out.put_string(image.failure.substr(0, 4096));
  }
  return std::move(out.bytes());
}

std::string encode_disk_cache_preamble(const DiskCacheContents& contents, const std::string& index) {
  Writer out;
  for (char c : kMagic) out.put(c);
  out.put(kVersion);
  out.put(static_cast<std::int32_t>(contents.imgsz));
  out.put(static_cast<std::uint64_t>(contents.images.size()));
  out.put(contents.pixel_bytes);
  out.put(static_cast<std::uint64_t>(index.size()));
  out.put(fnv1a64(index.data(), index.size()));
  std::string& bytes = out.bytes();
  const std::uint64_t checksum = fnv1a64(bytes.data(), bytes.size());
  bytes.append(reinterpret_cast<const char*>(&checksum), sizeof checksum);
  bytes.resize(kDiskCachePixelOffset, '\0');
  return std::move(bytes);
}

std::optional<DiskCacheContents> decode_disk_cache(const std::uint8_t* data, std::uint64_t size) {
  if (data == nullptr || size < kDiskCachePixelOffset) return std::nullopt;
  Reader preamble(data, kDiskCachePixelOffset);
  char magic[8] = {};
  std::uint32_t version = 0;
  std::int32_t imgsz = 0;
  std::uint64_t count = 0, pixel_bytes = 0, index_bytes = 0, index_checksum = 0, checksum = 0;
  for (char& c : magic) preamble.get(&c);
  if (std::memcmp(magic, kMagic, sizeof magic) != 0 || !preamble.get(&version) ||
      version != kVersion || !preamble.get(&imgsz) || !preamble.get(&count) ||
      !preamble.get(&pixel_bytes) || !preamble.get(&index_bytes) ||
      !preamble.get(&index_checksum) || !preamble.get(&checksum) ||
      checksum != fnv1a64(data, kPreambleFields) || imgsz <= 0 || count > kMaxImages) {
    return std::nullopt;
  }
  // Exactly preamble + pixels + index: catches truncation and anything appended.
  const std::uint64_t body = size - kDiskCachePixelOffset;
  if (pixel_bytes > body || index_bytes != body - pixel_bytes) return std::nullopt;
  const std::uint8_t* index = data + kDiskCachePixelOffset + pixel_bytes;
  if (fnv1a64(index, index_bytes) != index_checksum) return std::nullopt;

  DiskCacheContents contents;
  contents.imgsz = imgsz;
  contents.pixel_bytes = pixel_bytes;
  contents.images.resize(count);
  contents.stamps.resize(count);
  contents.pixel_hashes.resize(count);
  Reader in(index, index_bytes);
  for (std::size_t i = 0; i < count; ++i) {
    PlannedImage& image = contents.images[i];
    std::string path;
    std::int32_t ow = 0, oh = 0, rw = 0, rh = 0;
    if (!in.get_string(&path) || !in.get(&contents.stamps[i].size) ||
        !in.get(&contents.stamps[i].mtime) || !in.get(&contents.stamps[i].ctime) ||
        !in.get(&contents.stamps[i].inode) || !in.get(&ow) || !in.get(&oh) || !in.get(&rw) ||
        !in.get(&rh) || !in.get(&image.offset) || !in.get(&contents.pixel_hashes[i]) ||
        !in.get_string(&image.failure)) {
      return std::nullopt;
    }
    image.path = path;
    image.original = {ow, oh};
    image.resized = {rw, rh};
    if (!entry_is_consistent(image, imgsz, pixel_bytes)) return std::nullopt;
  }
  if (!in.at_end()) return std::nullopt;
  return contents;
}

}  // namespace libreyolo::core::data
