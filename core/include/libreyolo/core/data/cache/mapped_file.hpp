#pragma once
// A whole file memory-mapped read-only. The disk cache never changes a file in place (it
// writes a new one and renames it over), so a mapping stays valid for the process's life; the
// one exception writes back the very bytes an image's checksum says the file should hold
// (disk_pixel_checks.hpp).

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>

namespace libreyolo::core::data {

class MappedFile {
 public:
  MappedFile() = default;
  ~MappedFile();
  MappedFile(MappedFile&& other) noexcept;
  MappedFile& operator=(MappedFile&& other) noexcept;
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  // Maps `path`; on failure returns an empty MappedFile and sets `error`.
  static MappedFile open(const std::filesystem::path& path, std::string* error);

  const std::uint8_t* data() const { return data_; }
  std::size_t size() const { return size_; }
  bool is_open() const { return data_ != nullptr; }
  std::uint64_t inode() const { return inode_; }  // of the file that was mapped

 private:
  const std::uint8_t* data_ = nullptr;
  std::size_t size_ = 0;
  std::uint64_t inode_ = 0;
};

}  // namespace libreyolo::core::data
