#pragma once
// Whether we may write derived files (label-scan cache, disk image cache) into a folder.
// A folder whose permission bits grant no write to anyone is read-only by intent; processes
// running as root (containers, CI) would otherwise write into shared, read-only datasets.

#include <filesystem>

namespace libreyolo::core::util {

// For a folder that does not exist yet, asks about its nearest existing ancestor.
bool may_write_into(const std::filesystem::path& folder);

}  // namespace libreyolo::core::util
