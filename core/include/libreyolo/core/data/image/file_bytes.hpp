#pragma once
// Whole-file reads with an Error that names the file, for decoders that work from memory.
// Only regular files are read (util/regular_file.hpp): a FIFO, a folder or a device is refused
// with what it is.

#include <cstdint>
#include <filesystem>
#include <limits>
#include <string>
#include <vector>

namespace libreyolo::core::data {

// Throws libreyolo::core::Error when the file cannot be opened or read, is not a regular file,
// or is larger than `max_bytes` (`kind` names what the file should be, for that message).
std::vector<std::uint8_t> read_file_bytes(
    const std::filesystem::path& path,
    std::uint64_t max_bytes = std::numeric_limits<std::uint64_t>::max(),
    const std::string& kind = "file");

}  // namespace libreyolo::core::data
