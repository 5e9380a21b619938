#pragma once
// Deletes a file or a folder with everything in it. Use this instead of
// std::filesystem::remove_all: PyTorch's pip LibTorch (2.11, the GPU machine's) exports its
// own copy of libstdc++'s std::filesystem symbols from libtorch_cpu.so, and a program linked
// against it crashes inside remove_all (seen: a call through a null pointer).

#include <filesystem>
#include <system_error>

namespace libreyolo::core::util {

// Returns false (and sets `error`) when something could not be removed; a missing path is
// not an error.
bool remove_tree(const std::filesystem::path& path, std::error_code& error);

}  // namespace libreyolo::core::util
