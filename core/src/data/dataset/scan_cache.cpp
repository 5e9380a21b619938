#include "libreyolo/core/data/dataset/scan_cache.hpp"
#include "libreyolo/core/util/writable_folder.hpp"

#include <unistd.h>

#include <cstring>
#include <exception>
#include <fstream>
#include <string>
#include <system_error>
#include <type_traits>

namespace libreyolo::core::data {
namespace {

constexpr char kMagic[8] = {'L', 'Y', 'S', 'C', 'A', 'N', 0, 0};
// 2: stamps carry ctime and inode. 3: labels that are FIFOs, folders or devices, or over the row
// cap, are unreadable (version 2 cached a FIFO label as an empty one, under the same stamp).
constexpr std::uint32_t kVersion = 3;
// Bounds that no real record reaches; a corrupt length field fails fast instead of allocating.
constexpr std::uint32_t kMaxStringBytes = 1u << 16;
constexpr std::uint32_t kMaxItems = 1u << 24;

class Writer {
 public:
  template <typename T>
  void put(T value) {
    static_assert(std::is_trivially_copyable_v<T>);
    const auto* p = reinterpret_cast<const char*>(&value);
    bytes_.append(p, sizeof value);
  }
  void put_string(const std::string& text) {
    put(static_cast<std::uint32_t>(text.size()));
    bytes_ += text;
  }
  const std::string& bytes() const { return bytes_; }

 private:
  std::string bytes_;
};

class Reader {
 public:
  explicit Reader(const std::string& bytes) : bytes_(bytes) {}
  template <typename T>
  bool get(T* value) {
    if (bytes_.size() - position_ < sizeof(T)) return false;
    std::memcpy(value, bytes_.data() + position_, sizeof(T));
    position_ += sizeof(T);
    return true;
  }
  bool get_string(std::string* text) {
    std::uint32_t size = 0;
    if (!get(&size) || size > kMaxStringBytes || bytes_.size() - position_ < size) return false;
    text->assign(bytes_.data() + position_, size);
    position_ += size;
    return true;
  }
  bool at_end() const { return position_ == bytes_.size(); }

 private:
  const std::string& bytes_;
  std::size_t position_ = 0;
};

bool get_stamp(Reader& in, FileStamp* stamp) {
  return in.get(&stamp->size) && in.get(&stamp->mtime) && in.get(&stamp->ctime) && in.get(&stamp->inode);
}

void put_stamp(Writer& out, const FileStamp& stamp) {
  out.put(stamp.size);
  out.put(stamp.mtime);
  out.put(stamp.ctime);
  out.put(stamp.inode);
}

bool read_record(Reader& in, ImageScanRecord* r) {
  std::uint8_t status = 0;
  std::uint32_t boxes = 0, findings = 0;
  if (!in.get_string(&r->image) || !get_stamp(in, &r->image_stamp) || !get_stamp(in, &r->label_stamp) ||
      !in.get(&status) || status > 2 || !in.get(&r->width) ||
      !in.get(&r->height) || !in.get(&boxes) || boxes > kMaxItems) {
    return false;
  }
  r->status = static_cast<ImageScanRecord::Status>(status);
  r->boxes.resize(boxes);
  for (LabelBox& box : r->boxes) {
    if (!in.get(&box.class_id) || !in.get(&box.cx) || !in.get(&box.cy) || !in.get(&box.w) ||
        !in.get(&box.h)) {
      return false;
    }
  }
  if (!in.get(&findings) || findings > kMaxItems) return false;
  r->findings.resize(findings);
  for (RowFinding& finding : r->findings) {
    std::uint8_t kind = 0;
    if (!in.get(&kind) || kind >= kProblemKindCount || !in.get(&finding.line)) return false;
    finding.kind = static_cast<ProblemKind>(kind);
  }
  return in.get_string(&r->reason);
}

void write_record(Writer& out, const ImageScanRecord& r) {
  out.put_string(r.image);
  put_stamp(out, r.image_stamp);
  put_stamp(out, r.label_stamp);
  out.put(static_cast<std::uint8_t>(r.status));
  out.put(static_cast<std::int32_t>(r.width));
  out.put(static_cast<std::int32_t>(r.height));
  out.put(static_cast<std::uint32_t>(r.boxes.size()));
  for (const LabelBox& box : r.boxes) {
    out.put(static_cast<std::int32_t>(box.class_id));
    out.put(box.cx);
    out.put(box.cy);
    out.put(box.w);
    out.put(box.h);
  }
  out.put(static_cast<std::uint32_t>(r.findings.size()));
  for (const RowFinding& finding : r.findings) {
    out.put(static_cast<std::uint8_t>(finding.kind));
    out.put(finding.line);
  }
  out.put_string(r.reason);
}

}  // namespace

std::vector<ImageScanRecord> read_scan_cache(const std::filesystem::path& cache, int nc) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(cache, ec)) return {};
  std::string bytes;
  try {
    std::ifstream file(cache, std::ios::binary);
    if (!file) return {};
    bytes.assign(std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>());
  } catch (const std::exception&) {  // an I/O error while reading: treat as no cache
    return {};
  }
  Reader in(bytes);
  char magic[8] = {};
  std::uint32_t version = 0;
  std::int32_t cached_nc = 0;
  std::uint64_t count = 0;
  for (char& c : magic) {
    if (!in.get(&c)) return {};
  }
  if (std::memcmp(magic, kMagic, sizeof magic) != 0 || !in.get(&version) || version != kVersion ||
      !in.get(&cached_nc) || cached_nc != nc || !in.get(&count) || count > kMaxItems) {
    return {};
  }
  std::vector<ImageScanRecord> records(static_cast<std::size_t>(count));
  for (ImageScanRecord& record : records) {
    if (!read_record(in, &record)) return {};
  }
  if (!in.at_end()) return {};
  return records;
}

bool write_scan_cache(const std::filesystem::path& cache, int nc,
                      const std::vector<ImageScanRecord>& records) {
  if (!util::may_write_into(cache.parent_path())) return false;  // shared, read-only datasets
  std::error_code created;
  std::filesystem::create_directories(cache.parent_path(), created);  // the dataset's cache folder
  Writer out;
  for (char c : kMagic) out.put(c);
  out.put(kVersion);
  out.put(static_cast<std::int32_t>(nc));
  out.put(static_cast<std::uint64_t>(records.size()));
  for (const ImageScanRecord& record : records) write_record(out, record);

  // A per-process temporary name: two runs scanning the same dataset at once (multi-GPU ranks)
  // never interleave their bytes, and the rename makes the last complete file win.
  const std::filesystem::path temporary =
      cache.string() + ".tmp" + std::to_string(static_cast<long>(::getpid()));
  {
    std::ofstream file(temporary, std::ios::binary | std::ios::trunc);
    if (!file) return false;
    file.write(out.bytes().data(), static_cast<std::streamsize>(out.bytes().size()));
    if (!file.flush()) {
      file.close();
      std::error_code ignored;
      std::filesystem::remove(temporary, ignored);
      return false;
    }
  }
  std::error_code ec;
  std::filesystem::rename(temporary, cache, ec);
  if (ec) {
    std::filesystem::remove(temporary, ec);
    return false;
  }
  return true;
}

}  // namespace libreyolo::core::data
