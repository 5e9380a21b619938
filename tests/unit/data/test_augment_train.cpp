// The whole train-time augmentation through the declared pipeline: boxes still bound their
// rectangles after mosaic, random affine and flip; the seed decides everything; bad pipelines
// and parameters are refused; user overrides reach the transforms.

#include <doctest/doctest.h>

#include <string>
#include <random>
#include <vector>

#include "libreyolo/core/data/augment/pipeline.hpp"
#include "libreyolo/core/error.hpp"
#include "test_augment_support.hpp"

namespace aug = libreyolo::core::data;
namespace at = libreyolo::core::data::test;

namespace {

// Six images at long side imgsz (as the cache stores them), each with one rectangle whose
// colour names its class, plus one image without labels.
at::VectorSource rectangle_dataset(int imgsz) {
  at::VectorSource src;
  std::mt19937_64 rng(99);
  for (int i = 0; i < 6; ++i) {
    const bool wide = i % 2 == 0;
    const int shorter = imgsz * (3 + i % 3) / 6;
    aug::Image img = at::make_image(wide ? imgsz : shorter, wide ? shorter : imgsz);
    const int w = imgsz / 5 + 10 * i, h = imgsz / 6 + 7 * i;
    const int x1 = static_cast<int>(rng() % static_cast<unsigned>(img.width - w - 8)) + 4;
    const int y1 = static_cast<int>(rng() % static_cast<unsigned>(img.height - h - 8)) + 4;
    src.labels.push_back({at::fill_rect(img, x1, y1, x1 + w, y1 + h, at::class_colour(i), i)});
    src.images.push_back(std::move(img));
  }
  src.images.push_back(at::make_image(imgsz, imgsz / 2));
  src.labels.push_back({});
  return src;
}

// Every output box bounds its rectangle's pixels; every rectangle pixel lies in a box of its
// class (up to pixels of boxes filtered for being under 1 px, next to the border).
void check_boxes_bound_rectangles(const aug::Image& out, const std::vector<aug::PixelBox>& boxes,
                                  bool rotated) {
  const float size = static_cast<float>(out.width);
  for (const aug::PixelBox& b : boxes) {
    const at::Rgb c = at::class_colour(b.class_id);
    const at::Found found =
        at::find_colour(at::view(out), c, static_cast<int>(b.x1) - 3, static_cast<int>(b.y1) - 3,
                        static_cast<int>(b.x2) + 4, static_cast<int>(b.y2) + 4);
    INFO("box " << b.x1 << "," << b.y1 << "," << b.x2 << "," << b.y2 << " class " << b.class_id);
    // Clipping a rotated rectangle at the image border leaves a box larger than the visible
    // part (the corners' box is clipped, not the shape; YOLOX does the same), even a box
    // around none of it; check tightness away from the border.
    const bool touches_border = b.x1 < 1 || b.y1 < 1 || b.x2 > size - 1 || b.y2 > size - 1;
    if (found.count == 0) {
      // Otherwise only possible for slivers whose pixels are all under half covered.
      if (!(rotated && touches_border)) CHECK(std::min(b.x2 - b.x1, b.y2 - b.y1) < 3.0f);
      continue;
    }
    CHECK(at::contains(b, found.box, 1.0f));
    if (!rotated || !touches_border) {
      CHECK(at::max_edge_difference(found.box, b) <= (rotated ? 2.5f : 1.5f));
    }
  }
  for (int cls = 0; cls < 6; ++cls) {
    const at::Rgb c = at::class_colour(cls);
    for (int y = 0; y < out.height; ++y) {
      for (int x = 0; x < out.width; ++x) {
        if (!at::near_colour(out.pixel(x, y), c)) continue;
        bool inside = false;
        for (const aug::PixelBox& b : boxes) {
          inside = inside || (b.class_id == cls && x + 1 >= b.x1 - 1 && x <= b.x2 + 1 &&
                              y + 1 >= b.y1 - 1 && y <= b.y2 + 1);
        }
        const bool at_border = x < 2 || y < 2 || x >= out.width - 2 || y >= out.height - 2;
        if (!inside && !at_border) {
          FAIL_CHECK("pixel " << x << "," << y << " of class " << cls << " is in no box");
          return;
        }
      }
    }
  }
}

}  // namespace

TEST_CASE("pipeline: boxes bound their rectangles through mosaic, affine and flip") {
  const int imgsz = 320;
  at::VectorSource src = rectangle_dataset(imgsz);
  aug::AugmentScratch scratch;
  aug::Image out = at::make_image(imgsz, imgsz);

  SUBCASE("YOLOX recipe without colour changes (rotation, scale, shear, translate, flip)") {
    at::YoloRecipe p = at::yolox_recipe(imgsz);
    p.hsv.prob = 0.0;   // keep the colours findable
    p.mixup.prob = 0.0; // mixup is checked on its own
    p.mosaic.degrees = 20.0;
    p.mosaic.shear = 5.0;
    p.mosaic.scale.low = 0.3;
    p.mosaic.scale.high = 1.5;
    int total_boxes = 0;
    for (std::uint64_t seed = 0; seed < 40; ++seed) {
      std::mt19937_64 rng(seed);
      const std::vector<aug::PixelBox> boxes =
          at::augment(src, seed % src.size(), p, rng, scratch, at::mview(out));
      INFO("seed " << seed);
      check_boxes_bound_rectangles(out, boxes, true);
      total_boxes += static_cast<int>(boxes.size());
    }
    CHECK(total_boxes > 40);  // the checks above did see boxes
  }
  SUBCASE("axis-aligned YOLOX mosaic: boxes tight within 1.5 px") {
    at::YoloRecipe p = at::yolox_recipe(imgsz);
    p.hsv.prob = 0.0;
    p.mixup.prob = 0.0;
    p.mosaic.degrees = 0.0;
    p.mosaic.shear = 0.0;
    for (std::uint64_t seed = 100; seed < 130; ++seed) {
      std::mt19937_64 rng(seed);
      const auto boxes = at::augment(src, seed % src.size(), p, rng, scratch, at::mview(out));
      INFO("seed " << seed);
      check_boxes_bound_rectangles(out, boxes, false);
    }
  }
  SUBCASE("yolo9 recipe: half-resized mosaic") {
    at::YoloRecipe p = at::yolo9_recipe(imgsz);
    p.hsv.prob = 0.0;
    for (std::uint64_t seed = 200; seed < 230; ++seed) {
      std::mt19937_64 rng(seed);
      const auto boxes = at::augment(src, seed % src.size(), p, rng, scratch, at::mview(out));
      INFO("seed " << seed);
      check_boxes_bound_rectangles(out, boxes, false);
      for (const auto& b : boxes) CHECK(b.x2 - b.x1 > 2.0f);
    }
  }
  SUBCASE("plain path (no mosaic): letterbox and flip, padding stays 114 even with HSV") {
    at::YoloRecipe p = at::yolox_recipe(imgsz);
    p.mosaic.prob = 0.0;
    p.hsv.prob = 1.0;
    p.hsv.hue_gain = 5;
    p.hsv.saturation_gain = 30;
    p.hsv.value_gain = 30;
    for (std::uint64_t seed = 0; seed < 12; ++seed) {
      std::mt19937_64 rng(seed);
      const std::size_t index = 0;  // wide: 320 x 160, padding below
      const auto boxes = at::augment(src, index, p, rng, scratch, at::mview(out));
      REQUIRE(boxes.size() == 1);
      for (int x = 0; x < imgsz; x += 7) {
        CHECK_EQ(int(out.pixel(x, 200)[1]), 114);
        CHECK_EQ(int(out.pixel(x, imgsz - 1)[0]), 114);
      }
    }
    p.hsv.prob = 0.0;
    for (std::uint64_t seed = 0; seed < 12; ++seed) {
      std::mt19937_64 rng(seed);
      const auto boxes = at::augment(src, 1 + seed % 5, p, rng, scratch, at::mview(out));
      check_boxes_bound_rectangles(out, boxes, false);
    }
  }
}

TEST_CASE("pipeline: mixup keeps both images' boxes on their pixels") {
  const int imgsz = 320;
  at::VectorSource src = rectangle_dataset(imgsz);
  at::YoloRecipe p = at::yolox_recipe(imgsz);
  p.hsv.prob = 0.0;
  p.mosaic.degrees = 0;
  p.mosaic.shear = 0;
  aug::AugmentScratch scratch;
  aug::Image out = at::make_image(imgsz, imgsz);
  int mixed_boxes = 0;
  for (std::uint64_t seed = 0; seed < 20; ++seed) {
    std::mt19937_64 rng(seed);
    const auto boxes = at::augment(src, seed % 6, p, rng, scratch, at::mview(out));
    // After a 50/50 blend colours shift, so check only that every box still holds pixels that
    // differ from the plain background mix and that boxes are inside the image.
    for (const auto& b : boxes) {
      CHECK(b.x1 >= 0.0f);
      CHECK(b.x2 <= imgsz);
      CHECK(b.x2 - b.x1 > 1.0f);
      CHECK(b.y2 - b.y1 > 1.0f);
    }
    mixed_boxes += static_cast<int>(boxes.size());
  }
  CHECK(mixed_boxes > 20);
}

TEST_CASE("pipeline: the seed decides every byte") {
  const int imgsz = 256;
  at::VectorSource src;
  for (int i = 0; i < 5; ++i) {
    src.images.push_back(at::make_noise_image(imgsz, imgsz - 40 * i, static_cast<std::uint64_t>(i)));
    src.labels.push_back({{10.0f, 20.0f, 100.0f, 150.0f - 20 * i, i}});
  }
  for (const at::YoloRecipe& p : {at::yolox_recipe(imgsz), [&] {
         auto q = at::yolo9_recipe(imgsz);
         q.mixup.prob = 1.0;
         return q;
       }()}) {
    aug::AugmentScratch s1, s2;
    aug::Image a = at::make_image(imgsz, imgsz), b = at::make_image(imgsz, imgsz, {0, 0, 0}),
               c = at::make_image(imgsz, imgsz);
    std::mt19937_64 r1(1234), r2(1234), r3(1235);
    const auto boxes_a = at::augment(src, 2, p, r1, s1, at::mview(a));
    // A reused scratch must not change the result either.
    const auto boxes_b = at::augment(src, 2, p, r2, s1, at::mview(b));
    const auto boxes_c = at::augment(src, 2, p, r3, s2, at::mview(c));
    CHECK(at::same_bytes(a, b));
    REQUIRE(boxes_a.size() == boxes_b.size());
    for (std::size_t i = 0; i < boxes_a.size(); ++i) {
      CHECK(boxes_a[i].x1 == boxes_b[i].x1);
      CHECK(boxes_a[i].y2 == boxes_b[i].y2);
      CHECK(boxes_a[i].class_id == boxes_b[i].class_id);
    }
    CHECK_FALSE(at::same_bytes(a, c));
  }
}

TEST_CASE("pipeline: bad input is refused with a clear error") {
  namespace A = libreyolo::sdk::augment;
  at::VectorSource src = rectangle_dataset(160);
  aug::AugmentScratch scratch;
  std::mt19937_64 rng(0);
  aug::Image wrong = at::make_image(160, 32);
  CHECK_THROWS_AS(at::augment(src, 0, at::yolox_recipe(160), rng, scratch, at::mview(wrong)), libreyolo::core::Error);
  aug::Image out = at::make_image(160, 160);
  at::YoloRecipe bad = at::yolox_recipe(160);
  bad.flip.prob = 1.5;
  CHECK_THROWS_WITH_AS(at::augment(src, 0, bad, rng, scratch, at::mview(out)),
                       doctest::Contains("Flip prob=1.5 in pipeline 'test'"), libreyolo::core::Error);
  at::VectorSource empty;
  CHECK_THROWS_AS(at::augment(empty, 0, at::yolox_recipe(160), rng, scratch, at::mview(out)), libreyolo::core::Error);
  // A sample must end at imgsz x imgsz: a mosaic that may not apply needs a Letterbox after it.
  const A::Pipeline no_letterbox{"short", {A::Mosaic{}, A::Hsv{}}};
  CHECK_NOTHROW(aug::prepare_pipeline(no_letterbox, 160));
  aug::AugmentOverrides half;
  half.mosaic_prob = 0.5;
  CHECK_THROWS_WITH_AS(aug::prepare_pipeline(no_letterbox, 160, half), doctest::Contains("end the pipeline with a Letterbox"),
                       libreyolo::core::Error);
  CHECK_THROWS_AS(aug::prepare_pipeline({"crop", {A::Letterbox{}, A::IoUCrop{}}}, 160), libreyolo::core::Error);
  // beta_blend's second sample skips the Mosaic: without a Letterbox it would never be imgsz.
  A::Mixup blend;
  blend.style = A::Mixup::Style::beta_blend;
  CHECK_THROWS_WITH_AS(aug::prepare_pipeline({"blend", {A::Mosaic{}, blend, A::Hsv{}}}, 160),
                       doctest::Contains("blends mixup with a sample that does not end"), libreyolo::core::Error);
  CHECK_NOTHROW(aug::prepare_pipeline({"blend", {A::Mosaic{}, blend, A::Letterbox{}, A::Hsv{}}}, 160));
}

TEST_CASE("pipeline: user overrides reach every transform of their kind and add none") {
  namespace A = libreyolo::sdk::augment;
  const A::Pipeline declared{"p", {A::Mosaic{}, A::Mixup{}, A::Letterbox{}, A::Hsv{}, A::Flip{0.5}}};
  aug::AugmentOverrides o;
  o.mosaic_prob = 0.25;
  o.degrees = 3.0;
  o.mosaic_scale = libreyolo::sdk::Range{0.6, 1.4};
  o.mixup_prob = 0.0;
  o.flip_prob = 1.0;
  o.hsv_prob = 0.5;
  const auto p = aug::prepare_pipeline(declared, 64, o);
  REQUIRE(p.transforms.size() == 5);
  const auto& mosaic = std::get<A::Mosaic>(p.transforms[0]);
  CHECK(mosaic.prob == 0.25);
  CHECK(mosaic.degrees == 3.0);
  CHECK(mosaic.scale.low == 0.6);
  CHECK(mosaic.shear == A::Mosaic{}.shear);  // not overridden: the declared value
  CHECK(std::get<A::Mixup>(p.transforms[1]).prob == 0.0);
  CHECK(std::get<A::Hsv>(p.transforms[3]).prob == 0.5);
  CHECK(std::get<A::Flip>(p.transforms[4]).prob == 1.0);
  const auto plain = aug::prepare_pipeline({"plain", {A::Letterbox{}, A::Flip{0.5}}}, 64, o);
  CHECK(plain.transforms.size() == 2);  // mosaic_prob did not add a Mosaic
}


TEST_CASE("pipeline: a D-FINE-style pipeline (torchvision transforms, then a stretch) ends at imgsz") {
  namespace A = libreyolo::sdk::augment;
  const int imgsz = 160;
  at::VectorSource src = rectangle_dataset(imgsz);  // 6 labelled images and one without labels
  A::PhotometricDistort distort;
  distort.skip_without_boxes = true;
  A::ZoomOut zoom;
  zoom.skip_without_boxes = true;
  A::IoUCrop crop;
  crop.prob = 0.8;
  crop.skip_without_boxes = true;
  const A::Pipeline dfine{"strong", {distort, zoom, crop, A::SanitizeBoxes{1.0}, A::Flip{0.5}, A::StretchResize{},
                                     A::SanitizeBoxes{1.0}, A::MaxLabels{120}}};
  const auto pipeline = aug::prepare_pipeline(dfine, imgsz);
  aug::AugmentScratch scratch;
  aug::Image out = at::make_image(imgsz, imgsz), again = at::make_image(imgsz, imgsz);
  int boxes_seen = 0;
  for (std::uint64_t seed = 0; seed < 30; ++seed) {
    const std::size_t index = seed % src.size();
    std::mt19937_64 rng(seed), same(seed);
    std::vector<aug::PixelBox> boxes, boxes_again;
    aug::run_pipeline(src, index, pipeline, rng, scratch, at::mview(out), boxes);
    aug::run_pipeline(src, index, pipeline, same, scratch, at::mview(again), boxes_again);
    CHECK(at::same_bytes(out, again));
    REQUIRE(boxes.size() == boxes_again.size());
    for (const auto& b : boxes) {
      CHECK(b.x1 >= 0.0f);
      CHECK(b.y2 <= static_cast<float>(imgsz));
      CHECK(b.x2 - b.x1 >= 1.0f);
    }
    boxes_seen += static_cast<int>(boxes.size());
    if (src.labels[index].empty()) {
      // Strong transforms skip an image without boxes: only flip and the stretch act on it, so
      // every output row is the stretched grey of the original (no zoom-out fill of 0).
      CHECK(boxes.empty());
      CHECK(int(out.pixel(0, 0)[0]) == 114);
      CHECK(int(out.pixel(imgsz - 1, imgsz - 1)[0]) == 114);
    }
  }
  CHECK(boxes_seen > 10);
}
