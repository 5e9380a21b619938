#include "libreyolo/core/data/cache/mapped_file.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

namespace libreyolo::core::data {

MappedFile::~MappedFile() {
  if (data_ != nullptr) ::munmap(const_cast<std::uint8_t*>(data_), size_);
}

MappedFile::MappedFile(MappedFile&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)),
      size_(std::exchange(other.size_, 0)),
      inode_(std::exchange(other.inode_, 0)) {}

MappedFile& MappedFile::operator=(MappedFile&& other) noexcept {
  if (this != &other) {
    if (data_ != nullptr) ::munmap(const_cast<std::uint8_t*>(data_), size_);
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
    inode_ = std::exchange(other.inode_, 0);
  }
  return *this;
}

MappedFile MappedFile::open(const std::filesystem::path& path, std::string* error) {
  MappedFile mapped;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    *error = std::strerror(errno);
    return mapped;
  }
  struct stat info {};
  if (::fstat(fd, &info) != 0 || info.st_size <= 0) {
    *error = info.st_size <= 0 ? "the file is empty" : std::strerror(errno);
    ::close(fd);
    return mapped;
  }
  const auto size = static_cast<std::size_t>(info.st_size);
  void* data = ::mmap(nullptr, size, PROT_READ, MAP_SHARED, fd, 0);
  const int map_errno = errno;
  ::close(fd);  // the mapping keeps the file alive
  if (data == MAP_FAILED) {
    *error = std::strerror(map_errno);
    return mapped;
  }
  mapped.data_ = static_cast<const std::uint8_t*>(data);
  mapped.size_ = size;
  mapped.inode_ = static_cast<std::uint64_t>(info.st_ino);
  return mapped;
}

}  // namespace libreyolo::core::data
