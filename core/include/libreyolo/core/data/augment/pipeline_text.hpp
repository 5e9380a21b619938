#pragma once
// Declared augmentation as text, for `libreyolo-host families NAME`, the training log and
// error messages.

#include <string>

#include "libreyolo/sdk/augmentation.hpp"

namespace libreyolo::core::data {

// "Mosaic", "PhotometricDistort", ...
std::string transform_name(const sdk::augment::Transform& transform);
// The name with every parameter: "Flip(prob 0.5)".
std::string describe_transform(const sdk::augment::Transform& transform);
// "name: T1(...) -> T2(...) -> ..."
std::string describe_pipeline(const sdk::augment::Pipeline& pipeline);
// A number as a person writes it: 0.5, 2, 1e-05 (no trailing zeros).
std::string format_number(double value);

}  // namespace libreyolo::core::data
