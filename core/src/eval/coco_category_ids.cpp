#include "libreyolo/core/eval/coco_category_ids.hpp"

namespace libreyolo::core::eval {

const std::vector<std::int64_t>& coco80_to_coco91_category_ids() {
  // The 11 ids COCO reserved but never annotated (12, 26, 29, 30, 45, 66, 68, 69, 71, 83, 91)
  // are the gaps.
  static const std::vector<std::int64_t> ids = {
      1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 13, 14, 15, 16, 17, 18, 19, 20, 21,
      22, 23, 24, 25, 27, 28, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44,
      46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63, 64, 65,
      67, 70, 72, 73, 74, 75, 76, 77, 78, 79, 80, 81, 82, 84, 85, 86, 87, 88, 89, 90};
  return ids;
}

}  // namespace libreyolo::core::eval
