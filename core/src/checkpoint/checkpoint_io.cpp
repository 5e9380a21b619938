#include "libreyolo/core/checkpoint/checkpoint_io.hpp"

#include <stdexcept>

#include "libreyolo/core/checkpoint/finite_weights.hpp"
#include "libreyolo/core/checkpoint/torch_archive.hpp"
#include "libreyolo/core/error.hpp"

namespace libreyolo::core::checkpoint {

void save_checkpoint(const std::filesystem::path& path, const Checkpoint& checkpoint, const FileHooks& hooks) {
  // Encode (and validate) before touching the disk: a bad checkpoint must not replace a good one.
  const PickleRef root = encode_checkpoint(checkpoint, path.string());
  try {
    write_file_atomically(
        path,
        [&](AtomicFileWriter& out) {
          write_torch_archive(*root, [&](const void* data, std::size_t size) { out.write(data, size); });
        },
        hooks);
  } catch (const Error&) {
    throw;
  } catch (const std::exception& e) {
    // The pickler refused a value (an unsupported dtype) or LibTorch failed copying a tensor.
    throw Error("Could not write " + path.string(), e.what(),
                "The previous file (if any) is unchanged; this is a bug, please report it");
  }
}

Checkpoint load_checkpoint(const std::filesystem::path& path, const LoadOptions& options) {
  const PickleRef root = read_torch_archive(path);
  auto checkpoint = decode_checkpoint(*root, path.string(), options);
  if (!options.allow_non_finite) refuse_non_finite(checkpoint, path.string());
  return checkpoint;
}

}  // namespace libreyolo::core::checkpoint
