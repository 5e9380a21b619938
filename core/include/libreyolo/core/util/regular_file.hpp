#pragma once
// Opening only regular files. open() of a FIFO blocks until a writer comes (`val model=` a
// FIFO hung forever), and a device reads as something it is not (/dev/null as an empty label
// file, /dev/zero as an endless one). Every file the host reads as input goes through here,
// so that such a path is refused with what it is instead.

#include <cstdint>
#include <filesystem>
#include <string>

namespace libreyolo::core::util {

// Empty when `path` is a regular file (symbolic links followed) or does not exist; otherwise
// why it cannot be read as one, e.g. "it is a FIFO (named pipe), not a regular file".
std::string not_regular_file_reason(const std::filesystem::path& path);

// Opens `path` read-only: stat first (a device is never opened), then open with O_NONBLOCK
// and fstat again (the path may have been swapped in between), then back to blocking reads.
// Returns the descriptor, or -1 with `why` set (the errno text, or the reason above).
int open_regular_file(const std::filesystem::path& path, std::string* why);

}  // namespace libreyolo::core::util
