#pragma once
// 64-bit FNV-1a: the disk cache's checksums and file-name hash. Not cryptographic; it only has
// to notice a corrupt or different header, and it needs no dependency.

#include <cstddef>
#include <cstdint>

namespace libreyolo::core::data {

inline constexpr std::uint64_t kFnv1aSeed = 0xcbf29ce484222325ull;

inline std::uint64_t fnv1a64(const void* data, std::size_t size, std::uint64_t hash = kFnv1aSeed) {
  const auto* bytes = static_cast<const unsigned char*>(data);
  for (std::size_t i = 0; i < size; ++i) {
    hash ^= bytes[i];
    hash *= 0x100000001b3ull;
  }
  return hash;
}

}  // namespace libreyolo::core::data
