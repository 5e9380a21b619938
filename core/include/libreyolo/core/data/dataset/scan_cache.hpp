#pragma once
// The scan cache: every ImageScanRecord of a split in one small binary file, so a second run on
// unchanged files stats them instead of reopening 100k images. Each record carries the size and
// mtime of its image and label file; a record whose files changed is rescanned on its own.
//
// Format (version 3, native byte order; the file is a cache, rebuilt whenever it does not read
// back exactly): "LYSCAN\0\0", u32 version, i32 nc, u64 record count, then per record:
// string image, image stamp, label stamp (each i64 size, mtime, ctime, u64 inode), u8 status,
// i32 width, i32 height, u32 box count + (i32 class, f32 cx cy w h) each, u32 finding count +
// (u8 kind, u32 line) each, string reason; strings are u32 length + bytes.

#include <filesystem>
#include <vector>

#include "libreyolo/core/data/dataset/image_scan.hpp"

namespace libreyolo::core::data {

// Records of a cache written for the same nc; empty when the file is missing, unreadable, of
// another version or nc, or corrupt in any way (the caller then rescans).
std::vector<ImageScanRecord> read_scan_cache(const std::filesystem::path& cache, int nc);

// Writes atomically (temporary file + rename). Returns false instead of throwing when the
// folder is not writable: caching is an optimisation, never a reason to stop a run.
bool write_scan_cache(const std::filesystem::path& cache, int nc,
                      const std::vector<ImageScanRecord>& records);

}  // namespace libreyolo::core::data
