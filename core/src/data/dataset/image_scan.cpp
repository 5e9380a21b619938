#include "libreyolo/core/data/dataset/image_scan.hpp"

#include <exception>
#include <system_error>

#include "libreyolo/core/data/image/image_header.hpp"
#include "libreyolo/core/error.hpp"

namespace libreyolo::core::data {

FileStamp stamp_file(const std::filesystem::path& path) {
  std::error_code ec;
  FileStamp stamp;
  const auto size = std::filesystem::file_size(path, ec);
  if (ec) return stamp;
  const auto mtime = std::filesystem::last_write_time(path, ec);
  if (ec) return stamp;
  stamp.size = static_cast<std::int64_t>(size);
  stamp.mtime = static_cast<std::int64_t>(mtime.time_since_epoch().count());
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
    record.status = ImageScanRecord::Status::kLabelUnreadable;
    record.reason = e.why();
  } catch (const std::exception& e) {
    record.status = ImageScanRecord::Status::kLabelUnreadable;
    record.reason = e.what();
  }
  return record;
}

}  // namespace libreyolo::core::data
