#pragma once
// Whole-file reads with an Error that names the file, for decoders that work from memory.

#include <cstdint>
#include <filesystem>
#include <vector>

namespace libreyolo::core::data {

std::vector<std::uint8_t> read_file_bytes(const std::filesystem::path& path);

}  // namespace libreyolo::core::data
