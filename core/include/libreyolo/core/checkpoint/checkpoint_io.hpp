#pragma once
// Saving and loading checkpoint files. The files are torch.save-compatible: Python's
// torch.load(path) (also with weights_only=True) reads what save_checkpoint writes, and
// load_checkpoint reads what LibreYOLO's torch.save writes.

#include <filesystem>

#include "libreyolo/core/checkpoint/atomic_file.hpp"
#include "libreyolo/core/checkpoint/checkpoint.hpp"
#include "libreyolo/core/checkpoint/checkpoint_schema.hpp"

namespace libreyolo::core::checkpoint {

// Writes atomically (see atomic_file.hpp): on any failure the previous file at `path` is left
// byte for byte as it was, and a core::Error names the file and the OS error. Tensors may be
// on any device and in any layout; the file holds contiguous CPU copies. `hooks` exists for
// tests that simulate a full disk.
void save_checkpoint(const std::filesystem::path& path, const Checkpoint& checkpoint,
                     const FileHooks& hooks = {});

// Tensors come back on the CPU. Throws core::Error for a missing or unreadable file and for
// metadata that breaks the schema; Checkpoint::warnings lists what the caller should log.
Checkpoint load_checkpoint(const std::filesystem::path& path, const LoadOptions& options = {});

}  // namespace libreyolo::core::checkpoint
