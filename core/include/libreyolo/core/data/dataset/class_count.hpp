#pragma once
// The most classes a dataset or a checkpoint may declare. Class names missing from data.yaml
// (nc only) or from a checkpoint are made up as class_i, one string each: a typo or a damaged
// file saying nc: 999999999 must not loop for minutes and allocate tens of gigabytes. Real
// detection datasets have at most a few thousand (LVIS 1203, Objects365 365).

namespace libreyolo::core::data {

inline constexpr long long kMaxClasses = 100000;

}  // namespace libreyolo::core::data
