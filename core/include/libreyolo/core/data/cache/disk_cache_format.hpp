#pragma once
// The disk image cache file (version 3, native byte order; a cache, rebuilt whenever it does
// not read back exactly):
//
//   [0, 4096)           preamble: "LYIMGCH\0", u32 version, i32 imgsz, u64 image count,
//                       u64 pixel_bytes, u64 index_bytes, u64 index checksum,
//                       u64 checksum of the preamble before it; zero padding
//   [4096, +pixel_bytes) pixels: RGB HWC uint8 of every decoded image at its offset
//   [.., +index_bytes)  index, per image: string path, i64 file size, i64 mtime, i64 ctime, u64 inode,
//                       i32 original w, h, i32 resized w, h, u64 offset (into the pixels),
//                       u64 hash_pixels() of its pixels (0 for a failure),
//                       string failure (empty: decoded fine)
//
// Version 3 added the per-image pixel hash: the preamble and index were checksummed, but
// random bytes written into the pixel block were used as they were. The pixel block is too
// big to check at every start, so each image is checked when it is first read (disk_source).
//
// Strings are u32 length + bytes. The index comes last because decode failures (and so the
// index length) are known only after every image was decoded, while pixels are written as
// they are decoded; the fixed preamble is written last of all. Pixels start page aligned so
// the mapping hands out aligned views. The file size must be exactly
// 4096 + pixel_bytes + index_bytes: a truncated file never reads back.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "libreyolo/core/data/cache/image_plan.hpp"
#include "libreyolo/core/data/dataset/image_scan.hpp"

namespace libreyolo::core::data {

inline constexpr std::uint64_t kDiskCachePixelOffset = 4096;

struct DiskCacheContents {
  int imgsz = 0;
  std::uint64_t pixel_bytes = 0;
  std::vector<PlannedImage> images;  // offsets are into the pixel block
  std::vector<FileStamp> stamps;      // one per image: its size and mtime when decoded
  std::vector<std::uint64_t> pixel_hashes;  // one per image: hash_pixels() of its pixels
};

std::string encode_disk_cache_index(const DiskCacheContents& contents);

// The kDiskCachePixelOffset-byte preamble for `contents` and its encoded index.
std::string encode_disk_cache_preamble(const DiskCacheContents& contents, const std::string& index);

// Parses a whole cache file (e.g. its mapping). nullopt for anything that does not read back
// exactly: wrong magic/version, bad checksums, offsets or sizes outside the pixel block or not
// matching imgsz, or a file size other than the one the preamble implies.
std::optional<DiskCacheContents> decode_disk_cache(const std::uint8_t* data, std::uint64_t size);

}  // namespace libreyolo::core::data
