#include "libreyolo/core/trainer/multi_scale_sizes.hpp"

#include <algorithm>

#include "libreyolo/core/error.hpp"

namespace libreyolo::core::trainer {
namespace {

std::vector<int> yolo_range(int imgsz) {
  std::vector<int> sizes;
  const int low = std::max(1, imgsz / 2 / 32), high = imgsz * 3 / 2 / 32;
  for (int k = low; k <= high; ++k) sizes.push_back(32 * k);
  return sizes;
}

// D-FINE's rule, with its integer arithmetic: the low and high ends are floored to multiples of
// 32 and as many steps are taken from each as lie between the low end and imgsz.
std::vector<int> dfine_scales(int imgsz, int base_repeat) {
  const int low = static_cast<int>(imgsz * 0.75 / 32) * 32;
  const int high = static_cast<int>(imgsz * 1.25 / 32) * 32;
  const int steps = (imgsz - low) / 32;
  std::vector<int> sizes;
  for (int i = 0; i < steps; ++i) sizes.push_back(low + 32 * i);
  for (int i = 0; i < base_repeat; ++i) sizes.push_back(imgsz);
  for (int i = 0; i < steps; ++i) sizes.push_back(high - 32 * i);
  return sizes;
}

// A derived list with a size under 32 means imgsz itself is too small for the rule: the user's
// to change. A declared list with a bad size is the family's.
void check_sizes(const sdk::MultiScale& declared, const std::vector<int>& sizes, int imgsz) {
  for (const int size : sizes) {
    if (size > 0 && size % 32 == 0) continue;
    if (declared.sizes.empty()) {
      const int smallest = declared.around == sdk::MultiScale::Around::dfine_scales ? 64 : 32;
      throw Error("imgsz=" + std::to_string(imgsz) + " is too small for this family's multi-scale training",
                  "its smallest scale (" + describe_multi_scale(declared) + ") comes to " + std::to_string(size) +
                      ", and every network input must be a positive multiple of the stride 32",
                  "use imgsz=" + std::to_string(smallest) + " or more, or multi_scale=false");
    }
    throw Error("the multi-scale size " + std::to_string(size) + " (imgsz " + std::to_string(imgsz) +
                    ") is not a positive multiple of 32",
                "every network input must be a multiple of the stride 32",
                "fix the family's multi_scale_sizes (a plugin's recipe), or train with multi_scale=false");
  }
}

}  // namespace

std::vector<int> multi_scale_sizes(const sdk::MultiScale& declared, int imgsz) {
  auto sizes = declared.sizes;
  if (sizes.empty()) {
    sizes = declared.around == sdk::MultiScale::Around::dfine_scales
                ? dfine_scales(imgsz, std::max(1, declared.base_repeat))
                : yolo_range(imgsz);
  }
  check_sizes(declared, sizes, imgsz);
  return sizes;
}

std::string describe_multi_scale(const sdk::MultiScale& declared) {
  if (!declared.sizes.empty()) {
    std::string sizes;
    for (const int s : declared.sizes) sizes += (sizes.empty() ? "" : ",") + std::to_string(s);
    return sizes;
  }
  if (declared.around == sdk::MultiScale::Around::dfine_scales) {
    return "0.75-1.25 x imgsz in steps of 32, imgsz " + std::to_string(declared.base_repeat) +
           " times (D-FINE's scales)";
  }
  return "0.5-1.5 x imgsz in steps of 32";
}

}  // namespace libreyolo::core::trainer
