#include "libreyolo/core/plugins/size_from_weights.hpp"

#include "libreyolo/core/log/log.hpp"

namespace libreyolo::core::plugins {

namespace {

// What the signature reads from the weights; empty when it cannot tell.
std::string signature_size(const sdk::SizeSignature& signature, const checkpoint::StateDict& weights) {
  if (signature.key.empty()) return {};
  const auto* tensor = weights.find(signature.key);
  if (tensor == nullptr || !tensor->defined() || tensor->dim() == 0) return {};
  const auto it = signature.sizes.find(static_cast<long long>(tensor->size(0)));
  return it == signature.sizes.end() ? std::string() : it->second;
}

}  // namespace

std::string size_from_weights(const sdk::FamilyInfo& family, const checkpoint::Checkpoint& checkpoint,
                              const std::string& source) {
  const std::string& named = checkpoint.metadata.size;
  const std::string read = signature_size(family.size_signature, checkpoint.model);
  if (read.empty() || read == named) return named;
  if (!named.empty()) {
    log::warn(source, " says size '", named, "' but its weights are ", family.name, read, " (",
              family.size_signature.key, " has ", checkpoint.model.find(family.size_signature.key)->size(0),
              " channels): building ", family.name, read);
  }
  return read;
}

}  // namespace libreyolo::core::plugins
