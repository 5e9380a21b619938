#pragma once
// Scanning one image and its label file: the unit of work of a dataset scan and the unit the
// scan cache stores, keyed on both files' size and modification time.

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "libreyolo/core/data/dataset/label_file.hpp"

namespace libreyolo::core::data {

// Identity of a file's contents as cheaply as the filesystem can give it (one stat, no open).
// Size and mtime alone miss an edit that keeps both (mtime can be set back, clocks are coarse):
// the status-change time moves on every write and cannot be set by the user, and an editor
// that saves by replacing the file gives it a new inode.
struct FileStamp {
  std::int64_t size = -1;  // -1: the file does not exist
  std::int64_t mtime = 0;  // modification time, nanoseconds since the epoch
  std::int64_t ctime = 0;  // status-change time, nanoseconds since the epoch
  std::uint64_t inode = 0;

  bool exists() const { return size >= 0; }
  friend bool operator==(const FileStamp& a, const FileStamp& b) {
    return a.size == b.size && a.mtime == b.mtime && a.ctime == b.ctime && a.inode == b.inode;
  }
  friend bool operator!=(const FileStamp& a, const FileStamp& b) { return !(a == b); }
};

FileStamp stamp_file(const std::filesystem::path& path);

struct ImageScanRecord {
  enum class Status : std::uint8_t { kUsable = 0, kImageUnreadable = 1, kLabelUnreadable = 2 };

  std::string image;  // the image path as listed (the cache key)
  FileStamp image_stamp;
  FileStamp label_stamp;
  Status status = Status::kUsable;
  int width = 0;  // upright size, valid when the image was readable
  int height = 0;
  std::vector<LabelBox> boxes;
  std::vector<RowFinding> findings;
  std::string reason;  // why the image or label could not be read
};

// Reads the image header and parses the label. Never throws for bad input: problems are
// recorded in the status, the findings and the reason.
ImageScanRecord scan_image(const std::filesystem::path& image, const std::filesystem::path& label,
                           const FileStamp& image_stamp, const FileStamp& label_stamp, int nc);

}  // namespace libreyolo::core::data
