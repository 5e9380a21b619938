#pragma once
// torch.nn.functional.interpolate(mode="bilinear", align_corners=False, antialias=...) on a
// uint8 RGB image, byte for byte as torch's uint8 CPU kernel computes it (the AVX2 one
// torchvision's Resize uses on x86-64, whose separable fallback gives the same bytes).
//
// Separable, width first then height, each pass rounding to uint8:
//   out = clamp((sum_k w_k * in_k + 2^(p-1)) >> p, 0, 255)
// with int16 weights w_k = round(weight * 2^p) and p the largest precision (<= 22) at which the
// largest weight of that axis still fits in int16. The float weights, per axis of size
// in -> out, scale = in / out:
//   antialias  PIL's triangle filter: support = max(scale, 1), centre = scale * (i + 0.5),
//              taps j in [int(centre - support + 0.5), int(centre + support + 0.5)) clipped
//              to the image, w_j = max(0, 1 - |(j - centre + 0.5) / max(scale, 1)|),
//              normalised to sum 1
//   no aa      plain bilinear: source x = max(scale * (i + 0.5) - 0.5, 0), the two pixels
//              around it (the last one clamped), weights 1 - frac and frac
// An axis whose size does not change is not resampled at all (torch skips that pass).

#include <cstdint>
#include <vector>

#include "libreyolo/core/data/image/sample.hpp"

namespace libreyolo::core::data {

// One axis: for output index i, taps [first[i], first[i] + count[i]) with weights
// weights[i * stride + k]. `taps` is torch's largest tap count for the axis; `stride` is it
// rounded up to even, the extra weights zero (for the two-tap vector steps).
struct InterpolationAxis {
  std::vector<int> first, count;
  std::vector<std::int16_t> weights;
  int taps = 0, stride = 0;
  int precision = 0;
  // Every output's weights sum to 2^p closely enough that a row of one colour resamples to
  // that colour (true but for extreme shrinking): such rows are then copied, not resampled.
  bool flat_stays_flat = false;
};

// torch's index ranges and int16 weights for one axis.
void interpolation_axis(int in, int out, bool antialias, InterpolationAxis& axis,
                        std::vector<double>& float_weights);

// Reused between calls: the axes, the float weights, a ring of width-resampled rows and the
// sums of a row.
struct InterpolateScratch {
  InterpolationAxis x, y;
  std::vector<double> float_weights;
  std::vector<std::uint8_t> rows;
  std::vector<std::int32_t> sums;
};

// `src` resampled to dst.width x dst.height. Throws libreyolo::core::Error for an empty image.
void interpolate_bilinear(ImageView src, MutableImageView dst, bool antialias,
                          InterpolateScratch& scratch);

}  // namespace libreyolo::core::data
