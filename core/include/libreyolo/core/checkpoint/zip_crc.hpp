#pragma once
// The CRC-32 checks LibTorch's zip reader skips (its miniz is built without them): a checkpoint
// whose bytes changed after it was written (a bad disk, a partial copy, an edit) must be
// refused, not loaded. The central directory's CRC of each record is compared with the bytes
// read (torch_archive.cpp).

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <string>

namespace libreyolo::core::checkpoint {

// CRC-32 (zip's, polynomial 0xEDB88320) of `size` bytes.
std::uint32_t crc32(const void* data, std::size_t size);

// Each member's CRC-32 as the archive's central directory records it, keyed by the name after
// the archive's top folder ("data.pkl", "data/3"), as caffe2::serialize names records. Empty
// when the central directory cannot be found (the zip reader then fails with its own message).
std::map<std::string, std::uint32_t> stored_crcs(const std::filesystem::path& path);

}  // namespace libreyolo::core::checkpoint
