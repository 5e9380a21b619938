#include "libreyolo/core/data/dataset/image_scan.hpp"

#include <sys/stat.h>

#include <exception>
#include <system_error>

#include "libreyolo/core/data/image/image_header.hpp"
#include "libreyolo/core/error.hpp"

namespace libreyolo::core::data {

FileStamp stamp_file(const std::filesystem::path& path) {
  FileStamp stamp;
  struct stat info {};
  // A folder, FIFO or device at the path exists too: reading it then fails with what it is,
  // where treating it as missing made a label folder or FIFO pass for an empty label.
  if (::stat(path.c_str(), &info) != 0) return stamp;
  const auto nanoseconds = [](const timespec& t) { return static_cast<std::int64_t>(t.tv_sec) * 1000000000 + t.tv_nsec; };
  stamp.size = static_cast<std::int64_t>(info.st_size);
  stamp.mtime = nanoseconds(info.st_mtim);
  stamp.ctime = nanoseconds(info.st_ctim);
  stamp.inode = static_cast<std::uint64_t>(info.st_ino);
  return stamp;
}

ImageScanRecord scan_image(const std::filesystem::path& image, const std::filesystem::path& label,
                           const FileStamp& image_stamp, const FileStamp& label_stamp, int nc) {
  ImageScanRecord record;
  record.image = image.string();
  record.image_stamp = image_stamp;
  record.label_stamp = label_stamp;
  if (!image_stamp.exists()) {
    record.status = ImageScanRecord::Status::kImageUnreadable;
    record.reason = "the file does not exist";
    return record;
  }
  try {
    const ImageSize size = read_image_size(image);
    record.width = size.width;
    record.height = size.height;
  } catch (const Error& e) {
    record.status = ImageScanRecord::Status::kImageUnreadable;
    record.reason = e.why();
    return record;
  } catch (const std::exception& e) {  // e.g. bad_alloc: still one bad image, not a dead scan
    record.status = ImageScanRecord::Status::kImageUnreadable;
    record.reason = e.what();
    return record;
  }
  if (!label_stamp.exists()) return record;  // background image
  try {
    LabelFile parsed = read_label_file(label, nc);
    record.boxes = std::move(parsed.boxes);
    record.findings = std::move(parsed.findings);
  } catch (const Error& e) {
    // The report shows only this reason, so it carries what to do as well.
    record.status = ImageScanRecord::Status::kLabelUnreadable;
    record.reason = e.what_to_do().empty() ? e.why() : e.why() + ". " + e.what_to_do();
  } catch (const std::exception& e) {
    record.status = ImageScanRecord::Status::kLabelUnreadable;
    record.reason = e.what();
  }
  return record;
}

}  // namespace libreyolo::core::data
