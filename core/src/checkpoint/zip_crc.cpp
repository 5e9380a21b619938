#include "libreyolo/core/checkpoint/zip_crc.hpp"

#include <array>
#include <fstream>
#include <vector>

namespace libreyolo::core::checkpoint {
namespace {

constexpr std::uint32_t kEndOfCentralDirectory = 0x06054b50;
constexpr std::uint32_t kZip64Locator = 0x07064b50;
constexpr std::uint32_t kZip64End = 0x06064b50;
constexpr std::uint32_t kCentralEntry = 0x02014b50;

std::uint64_t little(const std::vector<char>& bytes, std::size_t at, int size) {
  std::uint64_t value = 0;
  for (int i = size - 1; i >= 0; --i) value = value << 8 | static_cast<unsigned char>(bytes[at + static_cast<std::size_t>(i)]);
  return value;
}

std::vector<char> read_at(std::ifstream& in, std::uint64_t offset, std::uint64_t size) {
  std::vector<char> bytes(size);
  in.seekg(static_cast<std::streamoff>(offset));
  in.read(bytes.data(), static_cast<std::streamsize>(size));
  if (static_cast<std::uint64_t>(in.gcount()) != size) bytes.clear();
  return bytes;
}

struct Directory {
  std::uint64_t offset = 0, size = 0;
  bool found = false;
};

// The end-of-central-directory record sits in the last 22 + 65535 bytes (after a comment);
// a zip64 archive points on to its zip64 record.
Directory find_directory(std::ifstream& in, std::uint64_t file_size) {
  const std::uint64_t tail = std::min<std::uint64_t>(file_size, 22 + 65535);
  const auto bytes = read_at(in, file_size - tail, tail);
  if (bytes.size() < 22) return {};
  for (std::size_t at = bytes.size() - 22 + 1; at-- > 0;) {
    if (little(bytes, at, 4) != kEndOfCentralDirectory) continue;
    Directory d{little(bytes, at + 16, 4), little(bytes, at + 12, 4), true};
    if ((d.offset == 0xFFFFFFFF || d.size == 0xFFFFFFFF) && at >= 20 && little(bytes, at - 20, 4) == kZip64Locator) {
      const auto end64 = read_at(in, little(bytes, at - 20 + 8, 8), 56);
      if (end64.size() == 56 && little(end64, 0, 4) == kZip64End) d = {little(end64, 48, 8), little(end64, 40, 8), true};
    }
    return d;
  }
  return {};
}

}  // namespace

std::uint32_t crc32(const void* data, std::size_t size) {
  static const auto table = [] {
    std::array<std::uint32_t, 256> t{};
    for (std::uint32_t i = 0; i < 256; ++i) {
      std::uint32_t c = i;
      for (int k = 0; k < 8; ++k) c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
      t[i] = c;
    }
    return t;
  }();
  std::uint32_t crc = 0xFFFFFFFFu;
  const auto* bytes = static_cast<const unsigned char*>(data);
  for (std::size_t i = 0; i < size; ++i) crc = table[(crc ^ bytes[i]) & 0xFF] ^ (crc >> 8);
  return crc ^ 0xFFFFFFFFu;
}

std::map<std::string, std::uint32_t> stored_crcs(const std::filesystem::path& path) {
  std::map<std::string, std::uint32_t> crcs;
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) return crcs;
  const auto file_size = static_cast<std::uint64_t>(in.tellg());
  const auto directory = find_directory(in, file_size);
  if (!directory.found || directory.offset + directory.size > file_size) return crcs;
  const auto bytes = read_at(in, directory.offset, directory.size);
  for (std::size_t at = 0; at + 46 <= bytes.size() && little(bytes, at, 4) == kCentralEntry;) {
    const auto name_size = little(bytes, at + 28, 2), extra = little(bytes, at + 30, 2), comment = little(bytes, at + 32, 2);
    if (at + 46 + name_size > bytes.size()) break;
    const std::string name(bytes.data() + at + 46, name_size);
    const auto slash = name.find('/');
    crcs[slash == std::string::npos ? name : name.substr(slash + 1)] = static_cast<std::uint32_t>(little(bytes, at + 16, 4));
    at += 46 + name_size + extra + comment;
  }
  return crcs;
}

}  // namespace libreyolo::core::checkpoint
