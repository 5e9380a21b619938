#pragma once
// Checkpoint <-> the dictionary inside the file. Encoding validates like LibreYOLO's strict
// writer (wrap_libreyolo_checkpoint): what we write, LibreYOLO accepts. Decoding validates like
// its reader: out-of-range class names are an error, missing ones are padded with class_i.

#include <string>

#include "libreyolo/core/checkpoint/checkpoint.hpp"
#include "libreyolo/core/checkpoint/pickle_value.hpp"

namespace libreyolo::core::checkpoint {

// The extra top-level key for what only the host resumes (LibreYOLO ignores unknown keys).
inline constexpr const char* kHostTrainStateKey = "host_train_state";
// Layout version of host_train_state; bump when its layout changes incompatibly.
inline constexpr int64_t kHostTrainStateFormat = 1;

struct LoadOptions {
  // true: a file without full v1.0 metadata is an error that names the missing keys.
  // false: a bare state dict (or a legacy file with partial metadata) loads; the caller fills
  // Checkpoint::metadata from the command line (model=<family><size>) and reads
  // Checkpoint::missing_metadata for what it must supply.
  bool require_metadata = true;
  // false: weights holding NaN or infinity are refused, naming the tensor (finite_weights.hpp).
  // true only for tests of the codec itself.
  bool allow_non_finite = false;
};

// Throws core::Error when the checkpoint would not satisfy LibreYOLO's schema (empty family,
// nc <= 0, names.size() != nc, ...). `target` names the file in messages.
PickleRef encode_checkpoint(const Checkpoint& checkpoint, const std::string& target);

// `source` names the file in messages.
Checkpoint decode_checkpoint(const PickleValue& root, const std::string& source,
                             const LoadOptions& options = {});

}  // namespace libreyolo::core::checkpoint
