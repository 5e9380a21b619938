// Golden outputs of the YOLOv9 and YOLOX training augmentation. The expected digests were
// computed by the composition as it stood before augmentation became a declared pipeline
// (commit "golden augmentation digests"), so any change to a single byte or box of either
// family's samples, in either phase, fails here.

#include <doctest/doctest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "libreyolo/core/data/augment/train_augment.hpp"
#include "test_augment_support.hpp"

namespace aug = libreyolo::core::data;
namespace at = libreyolo::core::data::test;

namespace {

// Images of several shapes and sizes (long side imgsz as cached, and a few that are not), with
// one to three boxes each, and one without labels.
at::VectorSource golden_dataset(int imgsz) {
  at::VectorSource src;
  std::mt19937_64 rng(2024);
  const int shapes[][2] = {{imgsz, imgsz * 3 / 4}, {imgsz / 2, imgsz}, {imgsz, imgsz},
                           {imgsz * 2 / 3, imgsz / 3}, {imgsz + 40, imgsz / 2}, {imgsz, imgsz / 5}};
  for (int i = 0; i < 6; ++i) {
    aug::Image img = at::make_noise_image(shapes[i][0], shapes[i][1], 77 + static_cast<std::uint64_t>(i));
    std::vector<aug::PixelBox> boxes;
    for (int k = 0; k <= i % 3; ++k) {
      const int w = 4 + static_cast<int>(rng() % static_cast<unsigned>(img.width / 2));
      const int h = 4 + static_cast<int>(rng() % static_cast<unsigned>(img.height / 2));
      const int x1 = static_cast<int>(rng() % static_cast<unsigned>(img.width - w));
      const int y1 = static_cast<int>(rng() % static_cast<unsigned>(img.height - h));
      boxes.push_back(at::fill_rect(img, x1, y1, x1 + w, y1 + h, at::class_colour(i + k), i + k));
    }
    src.images.push_back(std::move(img));
    src.labels.push_back(std::move(boxes));
  }
  src.images.push_back(at::make_noise_image(imgsz, imgsz / 2, 5));
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

// Every image of the dataset, 3 seeds each, through `params`.
std::uint64_t digest_of(const aug::AugmentParams& params) {
  at::VectorSource src = golden_dataset(params.imgsz);
  aug::AugmentScratch scratch;
  aug::Image out = at::make_image(params.imgsz, params.imgsz, {0, 0, 0});
  Digest digest;
  for (std::uint64_t seed = 1; seed <= 3; ++seed) {
    for (std::size_t index = 0; index < src.size(); ++index) {
      std::mt19937_64 rng(seed * 1000 + index);
      std::vector<aug::PixelBox> boxes;
      aug::train_augment(src, index, params, rng, scratch, at::mview(out), boxes);
      add_sample(digest, out, boxes);
    }
  }
  return digest.value;
}

aug::AugmentParams yolox_params(int imgsz) { return aug::AugmentParams::yolox(imgsz); }

aug::AugmentParams yolo9_params(int imgsz) {
  auto p = aug::AugmentParams::yolo9(imgsz);
  p.mixup_prob = 0.5f;  // LibreYOLO's yolo9 default is 0: turned on so its blend is covered too
  return p;
}

}  // namespace

TEST_CASE("augmentation golden digests: YOLOX and YOLOv9, mosaic and no-mosaic phases") {
  const int imgsz = 160;
  const std::uint64_t yolox = digest_of(yolox_params(imgsz));
  const std::uint64_t yolox_closed = digest_of(yolox_params(imgsz).without_mosaic());
  const std::uint64_t yolo9 = digest_of(yolo9_params(imgsz));
  const std::uint64_t yolo9_closed = digest_of(yolo9_params(imgsz).without_mosaic());
  MESSAGE("digests: yolox " << yolox << " closed " << yolox_closed << ", yolo9 " << yolo9 << " closed "
                            << yolo9_closed);
  CHECK(yolox == 5230362953601274851ull);
  CHECK(yolox_closed == 8050047498156846110ull);
  CHECK(yolo9 == 12361874352952205213ull);
  CHECK(yolo9_closed == 8050047498156846110ull);  // the plain path is the same for both
}
