#pragma once
// The size a checkpoint's tensors have, by the family's declared SizeSignature (family.hpp),
// checked against the size its metadata names.

#include <libreyolo/sdk/family.hpp>

#include <string>

#include "libreyolo/core/checkpoint/checkpoint.hpp"

namespace libreyolo::core::plugins {

// The size to build for `checkpoint`: its metadata's size, unless the family's signature
// reads another (or the metadata has none): then the weights' size, with a warning naming
// both. Without a signature, or when the signature does not recognise the tensor, the
// metadata's size. Empty when neither says.
std::string size_from_weights(const sdk::FamilyInfo& family, const checkpoint::Checkpoint& checkpoint,
                              const std::string& source);

}  // namespace libreyolo::core::plugins
