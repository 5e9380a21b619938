#pragma once
// A checkpoint whose weights hold NaN or infinity (a diverged run, a damaged file) would
// validate to mAP 0 or train into NaN without a word: load_checkpoint refuses it, naming the
// first such tensor.

#include <string>

#include "libreyolo/core/checkpoint/checkpoint.hpp"

namespace libreyolo::core::checkpoint {

// Throws core::Error naming `source` and the first floating-point tensor of the model, the
// training weights or the EMA weights with a non-finite value (and how many it has).
void refuse_non_finite(const Checkpoint& checkpoint, const std::string& source);

}  // namespace libreyolo::core::checkpoint
