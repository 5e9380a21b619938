#include "libreyolo/core/data/image/file_bytes.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>

#include "libreyolo/core/error.hpp"

namespace libreyolo::core::data {

std::vector<std::uint8_t> read_file_bytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) {
    const int saved_errno = errno;
    throw Error("Cannot open " + path.string(),
                saved_errno != 0 ? std::strerror(saved_errno) : "the file could not be opened",
                "Check that the file exists and is readable");
  }
  const std::streamoff size = in.tellg();
  if (size < 0) {
    throw Error("Cannot read " + path.string(), "its size could not be determined",
                "Check that it is a regular file");
  }
  std::vector<std::uint8_t> bytes(static_cast<std::size_t>(size));
  in.seekg(0);
  if (size > 0 && !in.read(reinterpret_cast<char*>(bytes.data()), size)) {
    throw Error("Cannot read " + path.string(), "the read stopped before the end of the file",
                "Check the disk and the file");
  }
  return bytes;
}

}  // namespace libreyolo::core::data
