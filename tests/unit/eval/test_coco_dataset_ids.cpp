// The COCO JSON's ids: COCO's own for COCO's images, the evaluator's otherwise.
#include <doctest/doctest.h>

#include "libreyolo/core/eval/coco_category_ids.hpp"
#include "libreyolo/core/eval/coco_dataset_ids.hpp"

using namespace libreyolo::core::eval;

namespace {

std::vector<ImageGroundTruth> images_named(const std::vector<std::string>& names) {
  std::vector<ImageGroundTruth> images;
  for (std::size_t i = 0; i < names.size(); ++i) {
    ImageGroundTruth image;
    image.image.id = static_cast<std::int64_t>(i);
    image.image.file_name = names[i];
    images.push_back(image);
  }
  return images;
}

}  // namespace

TEST_CASE("COCO ids: COCO's file names give COCO's image ids and the 80 -> 91 category ids") {
  const auto images = images_named({"000000000139.jpg", "000000000285.jpg"});
  const auto ids = coco_ids_for(images, 80);
  CHECK(ids.official);
  CHECK((ids.image_ids == std::vector<std::int64_t>{139, 285}));
  CHECK(ids.category_ids == coco80_to_coco91_category_ids());
  CHECK(ids.category_ids.at(0) == 1);
  CHECK(ids.category_ids.at(79) == 90);
  const auto renamed = with_ids(images, ids);
  CHECK(renamed[1].image.id == 285);
  CHECK(renamed[1].image.file_name == "000000000285.jpg");
  std::vector<ImageDetections> detections(2);
  CHECK(with_ids(detections, ids)[0].image_id == 139);
}

TEST_CASE("COCO ids: other datasets keep the evaluator's ids") {
  CHECK_FALSE(coco_ids_for(images_named({"000000000139.jpg"}), 3).official);    // not 80 classes
  CHECK_FALSE(coco_ids_for(images_named({"dog_1.jpg", "000000000285.jpg"}), 80).official);  // a name is not a number
  CHECK_FALSE(coco_ids_for(images_named({"a/0001.jpg", "b/001.jpg"}), 80).official);  // the same id twice
  const auto ids = coco_ids_for(images_named({"dog_1.jpg", "cat.png"}), 80);
  CHECK((ids.image_ids == std::vector<std::int64_t>{0, 1}));
  CHECK(ids.category_ids.empty());
}
