#include "libreyolo/core/eval/coco_params.hpp"

#include <cstddef>

namespace libreyolo::core::eval {
namespace {

// Mirrors numpy.linspace(start, stop, count, endpoint=True): y[i] = i * step + start with
// step = (stop - start) / (count - 1), and the last element forced to `stop`. The product and
// the sum are separate statements so no compiler fuses them into one FMA (which rounds once
// instead of twice and would give a different last bit than numpy).
template <std::size_t Count>
std::array<double, Count> numpy_linspace(double start, double stop) {
  static_assert(Count > 1, "linspace needs at least two points");
  std::array<double, Count> values{};
  const double step = (stop - start) / static_cast<double>(Count - 1);
  for (std::size_t i = 0; i < Count; ++i) {
    const double offset = static_cast<double>(i) * step;
    values[i] = offset + start;
  }
  values[Count - 1] = stop;
  return values;
}

}  // namespace

const std::array<AreaBounds, kAreaRangeCount>& area_ranges() {
  static const std::array<AreaBounds, kAreaRangeCount> ranges = {{
      {0.0, 1e5 * 1e5, "all"},
      {0.0, 32.0 * 32.0, "small"},
      {32.0 * 32.0, 96.0 * 96.0, "medium"},
      {96.0 * 96.0, 1e5 * 1e5, "large"},
  }};
  return ranges;
}

const std::array<double, kIouThresholdCount>& iou_thresholds() {
  static const auto thresholds = numpy_linspace<kIouThresholdCount>(0.5, 0.95);
  return thresholds;
}

const std::array<double, kRecallThresholdCount>& recall_thresholds() {
  static const auto thresholds = numpy_linspace<kRecallThresholdCount>(0.0, 1.0);
  return thresholds;
}

}  // namespace libreyolo::core::eval
