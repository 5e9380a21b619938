#include "config.hpp"

#include <stdexcept>

namespace libreyolo::families::rtmdet {

namespace {

// clang-format off
const SizeConfig kSizes[] = {
    // size deepen widen  base  stage_blocks   neck_in            neck_out csp exp_on_reg
    {"t", 0.167, 0.375, 24, {1, 1, 1, 1}, {96, 192, 384},   96,  1, false},
    {"s", 0.33,  0.5,   32, {1, 2, 2, 1}, {128, 256, 512},  128, 1, false},
    {"m", 0.67,  0.75,  48, {2, 4, 4, 2}, {192, 384, 768},  192, 2, true},
    {"l", 1.0,   1.0,   64, {3, 6, 6, 3}, {256, 512, 1024}, 256, 3, true},
    {"x", 1.33,  1.25,  80, {4, 8, 8, 4}, {320, 640, 1280}, 320, 4, true},
};
// clang-format on

}  // namespace

const SizeConfig& size_config(const std::string& size) {
  for (const auto& config : kSizes)
    if (size == config.size) return config;
  throw std::invalid_argument("RTMDet has no size '" + size + "': choose one of t, s, m, l, x");
}

std::string size_from_stem_channels(int64_t channels) {
  for (const auto& config : kSizes)
    if (config.stem_channels() == channels) return config.size;
  return "";
}

}  // namespace libreyolo::families::rtmdet
