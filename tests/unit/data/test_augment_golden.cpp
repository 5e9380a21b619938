// Golden outputs of the YOLOv9 and YOLOX training augmentation. The expected digests were
// computed by the composition as it stood before augmentation became a declared pipeline
// (commit "golden augmentation digests"), so any change to a single byte or box of either
// family's samples, in either phase, fails here.

#include "../torch_doctest.hpp"

#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "libreyolo/core/data/augment/pipeline.hpp"
#include "libreyolo/core/plugins/plugin_loader.hpp"
#include "test_augment_support.hpp"
#include "support/test_paths.hpp"

namespace aug = libreyolo::core::data;
namespace tsupport = libreyolo::core::data::test;

namespace {

// Images of several shapes and sizes (long side imgsz as cached, and a few that are not), with
// one to three boxes each, and one without labels.
tsupport::VectorSource golden_dataset(int imgsz) {
  tsupport::VectorSource src;
  std::mt19937_64 rng(2024);
  const int shapes[][2] = {{imgsz, imgsz * 3 / 4}, {imgsz / 2, imgsz}, {imgsz, imgsz},
                           {imgsz * 2 / 3, imgsz / 3}, {imgsz + 40, imgsz / 2}, {imgsz, imgsz / 5}};
  for (int i = 0; i < 6; ++i) {
    aug::Image img = tsupport::make_noise_image(shapes[i][0], shapes[i][1], 77 + static_cast<std::uint64_t>(i));
    std::vector<aug::PixelBox> boxes;
    for (int k = 0; k <= i % 3; ++k) {
      const int w = 4 + static_cast<int>(rng() % static_cast<unsigned>(img.width / 2));
      const int h = 4 + static_cast<int>(rng() % static_cast<unsigned>(img.height / 2));
      const int x1 = static_cast<int>(rng() % static_cast<unsigned>(img.width - w));
      const int y1 = static_cast<int>(rng() % static_cast<unsigned>(img.height - h));
      boxes.push_back(tsupport::fill_rect(img, x1, y1, x1 + w, y1 + h, tsupport::class_colour(i + k), i + k));
    }
    src.images.push_back(std::move(img));
    src.labels.push_back(std::move(boxes));
  }
  src.images.push_back(tsupport::make_noise_image(imgsz, imgsz / 2, 5));
  src.labels.push_back({});
  return src;
}

struct Digest {
  std::uint64_t value = 1469598103934665603ull;  // FNV-1a 64
  void add(const void* data, std::size_t size) {
    const auto* bytes = static_cast<const unsigned char*>(data);
    for (std::size_t i = 0; i < size; ++i) value = (value ^ bytes[i]) * 1099511628211ull;
  }
};

void add_sample(Digest& digest, const aug::Image& out, const std::vector<aug::PixelBox>& boxes) {
  digest.add(out.pixels.data(), out.pixels.size());
  const std::uint64_t count = boxes.size();
  digest.add(&count, sizeof count);
  for (const auto& b : boxes) {
    const float coordinates[4] = {b.x1, b.y1, b.x2, b.y2};
    digest.add(coordinates, sizeof coordinates);
    digest.add(&b.class_id, sizeof b.class_id);
  }
}

// Every image of the dataset, 3 seeds each, through `pipeline`. `skipped_draws` draws are
// thrown away before each sample.
std::uint64_t digest_of(const aug::PreparedPipeline& pipeline, int skipped_draws = 0) {
  tsupport::VectorSource src = golden_dataset(pipeline.imgsz);
  aug::AugmentScratch scratch;
  aug::Image out = tsupport::make_image(pipeline.imgsz, pipeline.imgsz, {0, 0, 0});
  Digest digest;
  for (std::uint64_t seed = 1; seed <= 3; ++seed) {
    for (std::size_t index = 0; index < src.size(); ++index) {
      std::mt19937_64 rng(seed * 1000 + index);
      rng.discard(static_cast<unsigned long long>(skipped_draws));
      std::vector<aug::PixelBox> boxes;
      aug::run_pipeline(src, index, pipeline, rng, scratch, tsupport::mview(out), boxes);
      add_sample(digest, out, boxes);
    }
  }
  return digest.value;
}

// The digests of the composition before pipelines existed (AugmentParams::yolox / yolo9 with
// mixup_prob 0.5, and their without_mosaic(), at imgsz 160).
constexpr std::uint64_t kYolox = 5230362953601274851ull;
constexpr std::uint64_t kYolo9 = 12361874352952205213ull;
constexpr std::uint64_t kClosed = 8050047498156846110ull;  // the plain path, the same for both

}  // namespace

TEST_CASE("augmentation golden digests: the old YOLOX and YOLOv9 compositions, written as pipelines") {
  namespace A = libreyolo::sdk::augment;
  const int imgsz = 160;
  A::Mosaic yolox_mosaic;
  const A::Pipeline yolox{"mosaic", {yolox_mosaic, A::Mixup{}, A::Letterbox{}, A::Hsv{}, A::Flip{}, A::FilterBoxes{1.0}}};
  A::Mosaic yolo9_mosaic;
  yolo9_mosaic.warp = A::Mosaic::Warp::half_resize;
  yolo9_mosaic.upscale_tiles = false;
  yolo9_mosaic.min_box_side = 2.0;
  A::Mixup yolo9_mixup;
  yolo9_mixup.style = A::Mixup::Style::beta_blend;
  yolo9_mixup.prob = 0.5;
  const A::Pipeline yolo9{"mosaic", {yolo9_mosaic, yolo9_mixup, A::Letterbox{}, A::Hsv{}, A::Flip{}, A::FilterBoxes{1.0}}};
  const A::Pipeline closed{"no_mosaic", {A::Letterbox{}, A::Hsv{}, A::Flip{}, A::FilterBoxes{1.0}}};

  CHECK(digest_of(aug::prepare_pipeline(yolox, imgsz)) == kYolox);
  CHECK(digest_of(aug::prepare_pipeline(yolo9, imgsz)) == kYolo9);
  // The old closed phase kept mosaic with probability 0, whose coin cost one draw per sample:
  // without a Mosaic transform the same bytes come one draw earlier.
  CHECK(digest_of(aug::prepare_pipeline(closed, imgsz), 1) == kClosed);
  aug::AugmentOverrides no_mosaic;
  no_mosaic.mosaic_prob = 0.0;
  CHECK(digest_of(aug::prepare_pipeline(yolox, imgsz, no_mosaic)) == kClosed);
}

TEST_CASE("augmentation golden digests: the yolo9 and yolox plugins declare the same bytes") {
  const int imgsz = 160;
  const auto registry = libreyolo::core::plugins::load_plugins({libreyolo::test_paths::family_dir()});
  const auto yolox = registry.require("yolox").family->recipe("s");
  const auto yolo9 = registry.require("yolo9").family->recipe("t");
  REQUIRE(yolox.augmentation.size() == 2);
  REQUIRE(yolo9.augmentation.size() == 2);
  CHECK(digest_of(aug::prepare_pipeline(yolox.augmentation[0], imgsz)) == kYolox);
  aug::AugmentOverrides mixup;
  mixup.mixup_prob = 0.5;  // as the golden composition (LibreYOLO's yolo9 default is 0)
  CHECK(digest_of(aug::prepare_pipeline(yolo9.augmentation[0], imgsz, mixup)) == kYolo9);
  CHECK(digest_of(aug::prepare_pipeline(yolox.augmentation[1], imgsz), 1) == kClosed);
  CHECK(digest_of(aug::prepare_pipeline(yolo9.augmentation[1], imgsz), 1) == kClosed);
}
