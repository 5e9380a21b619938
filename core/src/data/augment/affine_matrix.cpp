#include "libreyolo/core/data/augment/affine_matrix.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "libreyolo/core/data/augment/random.hpp"
#include "libreyolo/core/error.hpp"

namespace libreyolo::core::data {

Affine2x3 Affine2x3::inverse() const {
  const double det = determinant();
  if (!(std::fabs(det) > 1e-12)) {
    throw Error("cannot invert an augmentation affine matrix",
                "its determinant is " + std::to_string(det) + " (the matrix squashes the image)",
                "use a positive scale range and shear well below 90 degrees");
  }
  Affine2x3 inv;
  inv.a = e / det;
  inv.b = -b / det;
  inv.d = -d / det;
  inv.e = a / det;
  inv.c = -(inv.a * c + inv.b * f);
  inv.f = -(inv.d * c + inv.e * f);
  return inv;
}

Affine2x3 compose(const Affine2x3& s, const Affine2x3& t) {
  Affine2x3 m;
  m.a = s.a * t.a + s.b * t.d;
  m.b = s.a * t.b + s.b * t.e;
  m.c = s.a * t.c + s.b * t.f + s.c;
  m.d = s.d * t.a + s.e * t.d;
  m.e = s.d * t.b + s.e * t.e;
  m.f = s.d * t.c + s.e * t.f + s.f;
  return m;
}

PixelBox transform_box(const Affine2x3& m, const PixelBox& box) {
  const double xs[4] = {box.x1, box.x2, box.x1, box.x2};
  const double ys[4] = {box.y1, box.y2, box.y2, box.y1};
  double min_x = 0, min_y = 0, max_x = 0, max_y = 0;
  for (int i = 0; i < 4; ++i) {
    double x = 0, y = 0;
    m.apply(xs[i], ys[i], x, y);
    if (i == 0) {
      min_x = max_x = x;
      min_y = max_y = y;
    } else {
      min_x = std::min(min_x, x);
      max_x = std::max(max_x, x);
      min_y = std::min(min_y, y);
      max_y = std::max(max_y, y);
    }
  }
  PixelBox out;
  out.x1 = static_cast<float>(min_x);
  out.y1 = static_cast<float>(min_y);
  out.x2 = static_cast<float>(max_x);
  out.y2 = static_cast<float>(max_y);
  out.class_id = box.class_id;
  return out;
}

Affine2x3 random_affine_matrix(const AffineRange& range, int out_width, int out_height,
                               std::mt19937_64& rng) {
  if (!(range.scale_min > 0.0) || !(range.scale_max >= range.scale_min)) {
    throw Error("invalid mosaic scale range [" + std::to_string(range.scale_min) + ", " +
                    std::to_string(range.scale_max) + "]",
                "the random affine needs 0 < scale_min <= scale_max",
                "set mosaic_scale to two positive numbers, the smaller first (e.g. 0.1 2.0)");
  }
  constexpr double kDegToRad = 3.14159265358979323846 / 180.0;
  const double angle = uniform(rng, -range.degrees, range.degrees) * kDegToRad;
  const double scale = uniform(rng, range.scale_min, range.scale_max);
  const double shear_x = std::tan(uniform(rng, -range.shear, range.shear) * kDegToRad);
  const double shear_y = std::tan(uniform(rng, -range.shear, range.shear) * kDegToRad);

  // Rotation + uniform scale about the origin (OpenCV's getRotationMatrix2D with centre 0):
  // rows (alpha, beta) and (-beta, alpha). A positive angle turns the image counter-clockwise
  // as displayed (y down).
  const double alpha = scale * std::cos(angle);
  const double beta = scale * std::sin(angle);
  Affine2x3 m;
  // YOLOX mixes each row with a shear times the other row.
  m.a = alpha + shear_y * -beta;
  m.b = beta + shear_y * alpha;
  m.d = -beta + shear_x * alpha;
  m.e = alpha + shear_x * beta;
  m.c = uniform(rng, -range.translate, range.translate) * out_width;
  m.f = uniform(rng, -range.translate, range.translate) * out_height;
  return m;
}

}  // namespace libreyolo::core::data
