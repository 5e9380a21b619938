// A checkpoint's size read from its tensors by the family's declared SizeSignature, against
// what its metadata says.
#include "../torch_doctest.hpp"

#include <libreyolo/sdk/family.hpp>

#include "libreyolo/core/plugins/size_from_weights.hpp"

using namespace libreyolo;

namespace {

sdk::FamilyInfo family_with_signature() {
  sdk::FamilyInfo info;
  info.name = "demo";
  info.sizes = {"t", "s"};
  info.tasks = {"detect"};
  info.size_signature = {"stem.weight", {{12, "t"}, {16, "s"}}};
  return info;
}

core::checkpoint::Checkpoint checkpoint_with(int64_t stem_channels, const std::string& named_size) {
  core::checkpoint::Checkpoint checkpoint;
  checkpoint.metadata.size = named_size;
  checkpoint.model.insert("stem.weight", torch::zeros({stem_channels, 3, 3, 3}));
  return checkpoint;
}

}  // namespace

TEST_CASE("size from weights: the weights decide when the metadata is missing or disagrees") {
  const auto info = family_with_signature();
  CHECK(core::plugins::size_from_weights(info, checkpoint_with(12, "t"), "a.pt") == "t");
  CHECK(core::plugins::size_from_weights(info, checkpoint_with(12, ""), "a.pt") == "t");
  CHECK(core::plugins::size_from_weights(info, checkpoint_with(16, "t"), "a.pt") == "s");
  // A channel count the signature does not know, or no signature: the metadata's size.
  CHECK(core::plugins::size_from_weights(info, checkpoint_with(20, "t"), "a.pt") == "t");
  sdk::FamilyInfo plain = info;
  plain.size_signature = {};
  CHECK(core::plugins::size_from_weights(plain, checkpoint_with(16, "t"), "a.pt") == "t");
}

TEST_CASE("size from weights: a signature naming an undeclared size is refused by validate()") {
  auto info = family_with_signature();
  CHECK(sdk::validate(info).empty());
  info.size_signature.sizes[24] = "m";
  CHECK(sdk::validate(info).find("undeclared size 'm'") != std::string::npos);
  info = family_with_signature();
  info.nms_candidates = 0;
  CHECK(sdk::validate(info).find("candidates into NMS") != std::string::npos);
}
