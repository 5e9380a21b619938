#pragma once
// 2x3 affine matrices for augmentation, and the random one YOLOX draws for its mosaic.
//
// Coordinates are continuous pixel coordinates: pixel (i, j) covers [i, i+1) x [j, j+1), so
// boxes map through the matrix unchanged and the warp samples each output pixel at its centre
// (see warp_affine.hpp). OpenCV's warpAffine maps pixel centres instead; the difference is a
// sub-pixel shift of (1 - scale) / 2 that made YOLOX's boxes disagree with its pixels by that
// much. Ours agree exactly.

#include <random>

#include "libreyolo/core/data/image/sample.hpp"

namespace libreyolo::core::data {

// x' = a * x + b * y + c
// y' = d * x + e * y + f
struct Affine2x3 {
  double a = 1, b = 0, c = 0;
  double d = 0, e = 1, f = 0;

  static Affine2x3 identity() { return {}; }
  static Affine2x3 scale_translate(double sx, double sy, double tx, double ty) {
    return {sx, 0, tx, 0, sy, ty};
  }

  double determinant() const { return a * e - b * d; }
  // Throws libreyolo::core::Error for a singular matrix.
  Affine2x3 inverse() const;
  void apply(double x, double y, double& out_x, double& out_y) const {
    out_x = a * x + b * y + c;
    out_y = d * x + e * y + f;
  }
};

// `second` after `first`: (second * first)(p) = second(first(p)).
Affine2x3 compose(const Affine2x3& second, const Affine2x3& first);

// The box that bounds the four transformed corners (not clipped). Keeps the class id.
PixelBox transform_box(const Affine2x3& m, const PixelBox& box);

// YOLOX's random affine ranges. Angles in degrees; translate as a fraction of the output size;
// scale drawn uniformly from [scale_min, scale_max].
struct AffineRange {
  double degrees = 10.0;
  double translate = 0.1;
  double scale_min = 0.1;
  double scale_max = 2.0;
  double shear = 2.0;
};

// YOLOX's get_affine_matrix: rotation by U(-degrees, degrees) and scale U(scale_min, scale_max)
// about the origin (the canvas's top-left corner, not its centre: that is what YOLOX does, so
// its mosaic output shows the canvas region around the origin scaled by 1/scale), shears
// tan(U(-shear, shear)) mixed into the rows, then a translation of U(-translate, translate)
// times the output width / height. Draw order: angle, scale, shear x, shear y, tx, ty.
// Throws libreyolo::core::Error when scale_min <= 0 or scale_max < scale_min.
Affine2x3 random_affine_matrix(const AffineRange& range, int out_width, int out_height,
                               std::mt19937_64& rng);

}  // namespace libreyolo::core::data
