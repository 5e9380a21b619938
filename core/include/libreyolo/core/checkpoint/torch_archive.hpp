#pragma once
// The file format of torch.save since PyTorch 1.6: a zip archive holding data.pkl (the pickle),
// byteorder, and one record data/<key> per tensor storage. LibTorch's zip reader/writer
// (caffe2::serialize) does the container; the pickle inside is ours (pickle_reader/writer).

#include <cstddef>
#include <filesystem>
#include <functional>

#include "libreyolo/core/checkpoint/pickle_value.hpp"

namespace libreyolo::core::checkpoint {

// Streams the archive bytes for `root` to `sink` (called many times, in order).
void write_torch_archive(const PickleValue& root,
                         const std::function<void(const void* data, std::size_t size)>& sink);

// Reads a torch.save file into a PickleValue tree; tensors come back on the CPU. Throws
// core::Error naming the file when it is missing, not a zip archive (random bytes, a
// truncated download), a pre-1.6 torch.save file, or holds a malformed pickle.
PickleRef read_torch_archive(const std::filesystem::path& path);

}  // namespace libreyolo::core::checkpoint
