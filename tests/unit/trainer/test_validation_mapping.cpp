#include "../torch_doctest.hpp"

#include "libreyolo/core/trainer/validator.hpp"

using namespace libreyolo::core;
namespace sdk = libreyolo::sdk;

TEST_CASE("validation mapping: a letterbox scales both axes alike, a stretch each its own way") {
  const data::ImageSize original{1280, 320};
  const auto letterbox = trainer::input_to_original(original, 640, sdk::EvalResize::letterbox);
  CHECK(letterbox.scale_x == doctest::Approx(0.5));
  CHECK(letterbox.scale_y == doctest::Approx(0.5));
  CHECK(letterbox.pad_x == 0.0);
  const auto stretch = trainer::input_to_original(original, 640, sdk::EvalResize::stretch);
  CHECK(stretch.scale_x == doctest::Approx(0.5));
  CHECK(stretch.scale_y == doctest::Approx(2.0));
  CHECK(stretch.pad_x == 0.0);
  CHECK(stretch.pad_y == 0.0);
  CHECK(stretch.original_width == 1280);
  CHECK(stretch.original_height == 320);
}

TEST_CASE("validation options follow the family's declared post-processing") {
  sdk::FamilyInfo detr;
  detr.suppression = sdk::Suppression::none;
  detr.eval_resize = sdk::EvalResize::stretch;
  detr.multi_label_nms = true;
  trainer::ValidationOptions base;
  base.nms.conf = 0.25f;
  const auto options = trainer::with_family_postprocess(base, detr);
  CHECK_FALSE(options.nms.suppress);
  CHECK(options.resize == sdk::EvalResize::stretch);
  CHECK(options.nms.multi_label);
  CHECK(options.nms.conf == doctest::Approx(0.25f));  // the user's options are kept
  const auto yolo = trainer::with_family_postprocess(base, sdk::FamilyInfo{});
  CHECK(yolo.nms.suppress);
  CHECK(yolo.resize == sdk::EvalResize::letterbox);
}
