#pragma once
// Helpers shared by the augmentation tests: synthetic images with solid rectangles, finding a
// colour's pixels again after a transform, and an in-memory AugmentSource.

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

#include "libreyolo/core/data/augment/augment_source.hpp"
#include "libreyolo/core/data/augment/pipeline.hpp"
#include "libreyolo/core/data/image/image.hpp"
#include "libreyolo/core/data/image/sample.hpp"

namespace libreyolo::core::data::test {

struct Rgb {
  std::uint8_t r = 0, g = 0, b = 0;
};

inline Image make_image(int w, int h, Rgb fill = {114, 114, 114}) {
  Image img;
  img.width = w;
  img.height = h;
  img.pixels.resize(static_cast<std::size_t>(w) * h * 3);
  for (std::size_t i = 0; i < img.pixels.size(); i += 3) {
    img.pixels[i] = fill.r;
    img.pixels[i + 1] = fill.g;
    img.pixels[i + 2] = fill.b;
  }
  return img;
}

// Noise with some structure (so HSV and warps do real work in timings).
inline Image make_noise_image(int w, int h, std::uint64_t seed) {
  Image img = make_image(w, h);
  std::mt19937_64 rng(seed);
  for (int y = 0; y < h; ++y) {
    for (int x = 0; x < w; ++x) {
      std::uint8_t* p = img.pixel(x, y);
      const auto n = rng();
      p[0] = static_cast<std::uint8_t>((x + (n & 31)) & 255);
      p[1] = static_cast<std::uint8_t>((y + ((n >> 8) & 31)) & 255);
      p[2] = static_cast<std::uint8_t>((x + y + ((n >> 16) & 63)) & 255);
    }
  }
  return img;
}

// Fills pixels [x1, x2) x [y1, y2); the matching label box is exactly (x1, y1, x2, y2).
inline PixelBox fill_rect(Image& img, int x1, int y1, int x2, int y2, Rgb c, int class_id = 0) {
  for (int y = y1; y < y2; ++y) {
    for (int x = x1; x < x2; ++x) {
      std::uint8_t* p = img.pixel(x, y);
      p[0] = c.r;
      p[1] = c.g;
      p[2] = c.b;
    }
  }
  PixelBox b;
  b.x1 = static_cast<float>(x1);
  b.y1 = static_cast<float>(y1);
  b.x2 = static_cast<float>(x2);
  b.y2 = static_cast<float>(y2);
  b.class_id = class_id;
  return b;
}

inline ImageView view(const Image& img) { return ImageView::of(img); }
inline MutableImageView mview(Image& img) { return {img.width, img.height, img.pixels.data()}; }

// True when the pixel is at least half-way from grey 114 to `c` in every channel: a pixel
// covered by at least half by the rectangle after bilinear resampling.
inline bool near_colour(const std::uint8_t* p, Rgb c) {
  const int want[3] = {c.r, c.g, c.b};
  for (int ch = 0; ch < 3; ++ch) {
    const int tolerance = std::abs(want[ch] - 114) / 2 + 1;
    if (std::abs(p[ch] - want[ch]) > tolerance) return false;
  }
  return true;
}

struct Found {
  int count = 0;
  PixelBox box;  // pixel edges: (min x, min y, max x + 1, max y + 1)
};

// The bounding box of pixels close to `c` inside [x1, x2) x [y1, y2) (clamped to the image).
inline Found find_colour(ImageView img, Rgb c, int x1 = 0, int y1 = 0, int x2 = 1 << 30,
                         int y2 = 1 << 30) {
  Found f;
  x1 = std::max(x1, 0);
  y1 = std::max(y1, 0);
  x2 = std::min(x2, img.width);
  y2 = std::min(y2, img.height);
  int min_x = 1 << 30, min_y = 1 << 30, max_x = -1, max_y = -1;
  for (int y = y1; y < y2; ++y) {
    for (int x = x1; x < x2; ++x) {
      const std::uint8_t* p = img.pixels + (static_cast<std::size_t>(y) * img.width + x) * 3;
      if (!near_colour(p, c)) continue;
      ++f.count;
      min_x = std::min(min_x, x);
      min_y = std::min(min_y, y);
      max_x = std::max(max_x, x);
      max_y = std::max(max_y, y);
    }
  }
  if (f.count > 0) {
    f.box.x1 = static_cast<float>(min_x);
    f.box.y1 = static_cast<float>(min_y);
    f.box.x2 = static_cast<float>(max_x + 1);
    f.box.y2 = static_cast<float>(max_y + 1);
  }
  return f;
}

inline float max_edge_difference(const PixelBox& a, const PixelBox& b) {
  return std::max({std::abs(a.x1 - b.x1), std::abs(a.y1 - b.y1), std::abs(a.x2 - b.x2),
                   std::abs(a.y2 - b.y2)});
}

// `outer` contains `inner` up to `slack` pixels per side.
inline bool contains(const PixelBox& outer, const PixelBox& inner, float slack) {
  return inner.x1 >= outer.x1 - slack && inner.y1 >= outer.y1 - slack &&
         inner.x2 <= outer.x2 + slack && inner.y2 <= outer.y2 + slack;
}

inline bool same_bytes(const Image& a, const Image& b) {
  return a.width == b.width && a.height == b.height && a.pixels == b.pixels;
}

// An in-memory dataset.
class VectorSource : public AugmentSource {
 public:
  std::vector<Image> images;
  std::vector<std::vector<PixelBox>> labels;

  std::size_t size() const override { return images.size(); }
  SampleView sample(std::size_t index, int /*slot*/) override {
    return {ImageView::of(images.at(index)), labels.at(index)};
  }
};

// LibreYOLO's two YOLO compositions as pipelines whose knobs a test can turn (the families
// declare the same in their recipes).
struct YoloRecipe {
  int imgsz = 640;
  sdk::augment::Mosaic mosaic;
  sdk::augment::Mixup mixup;
  sdk::augment::Hsv hsv;
  sdk::augment::Flip flip{0.5};

  sdk::augment::Pipeline pipeline() const {
    return {"test", {mosaic, mixup, sdk::augment::Letterbox{}, hsv, flip, sdk::augment::FilterBoxes{1.0}}};
  }
};

inline YoloRecipe yolox_recipe(int imgsz) {
  YoloRecipe r;  // the SDK's transform defaults are YOLOX's
  r.imgsz = imgsz;
  return r;
}

inline YoloRecipe yolo9_recipe(int imgsz) {
  YoloRecipe r;
  r.imgsz = imgsz;
  r.mosaic.warp = sdk::augment::Mosaic::Warp::half_resize;
  r.mosaic.upscale_tiles = false;
  r.mosaic.min_box_side = 2.0;
  r.mixup.style = sdk::augment::Mixup::Style::beta_blend;
  r.mixup.prob = 0.0;
  return r;
}

inline std::vector<PixelBox> augment(AugmentSource& source, std::size_t index, const YoloRecipe& recipe,
                                     std::mt19937_64& rng, AugmentScratch& scratch, MutableImageView out) {
  std::vector<PixelBox> boxes;
  run_pipeline(source, index, prepare_pipeline(recipe.pipeline(), recipe.imgsz), rng, scratch, out, boxes);
  return boxes;
}

// Distinct saturated colours, one per class.
inline Rgb class_colour(int class_id) {
  static const Rgb colours[] = {{230, 20, 20},  {20, 220, 30},  {30, 40, 235},
                                {235, 225, 20}, {225, 30, 220}, {20, 225, 230}};
  return colours[class_id % 6];
}

}  // namespace libreyolo::core::data::test
