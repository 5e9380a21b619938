// PR_curve.png, F1_curve.png, confusion_matrix_normalized.png and val_batch0_pred.jpg from a
// small hand-made validation: real pictures of their sizes, with what makes each of them what
// it is (the blue mean line, a full dark-blue cell, the predicted boxes); nothing at all in a
// build that cannot draw.
#include <doctest/doctest.h>

#include <fstream>
#include <set>

#include "../temp_dir.hpp"
#include "libreyolo/core/data/image/image_decode.hpp"
#include "libreyolo/core/draw/annotate.hpp"
#include "libreyolo/core/draw/colour_scale.hpp"
#include "libreyolo/core/error.hpp"
#include "libreyolo/core/trainer/validation_plots.hpp"

using namespace libreyolo::core;
namespace fs = std::filesystem;

namespace {

const std::vector<std::string> kNames = {"person", "bicycle", "car"};

eval::GroundTruthObject object(eval::Box box, int class_id) {
  eval::GroundTruthObject o;
  o.box = box;
  o.class_id = class_id;
  return o;
}

// Two images: a person found at 0.9 and a car mistaken for a bicycle at 0.8 (a confusion), a
// false person at 0.3, a missed car.
eval::CocoEvaluator small_validation() {
  eval::CocoEvaluator evaluator(kNames);
  eval::ImageGroundTruth first, second;
  first.image.id = 0;
  first.objects = {object({10, 10, 50, 60}, 0), object({60, 10, 100, 40}, 2)};
  second.image.id = 1;
  second.objects = {object({0, 0, 30, 30}, 2)};
  evaluator.add_image(first, {{{10, 10, 50, 60}, 0.9, 0}, {{60, 10, 100, 40}, 0.8, 1}, {{0, 70, 20, 90}, 0.3, 0}});
  evaluator.add_image(second, {});
  return evaluator;
}

std::size_t colours_in(const data::Image& image) {
  std::set<std::uint32_t> colours;
  for (std::size_t i = 0; i + 2 < image.pixels.size(); i += 3) {
    colours.insert((std::uint32_t{image.pixels[i]} << 16) | (image.pixels[i + 1] << 8) | image.pixels[i + 2]);
  }
  return colours.size();
}

std::size_t pixels_near(const data::Image& image, draw::Rgb colour, int tolerance) {
  std::size_t count = 0;
  for (std::size_t i = 0; i + 2 < image.pixels.size(); i += 3) {
    count += std::abs(image.pixels[i] - colour.r) <= tolerance && std::abs(image.pixels[i + 1] - colour.g) <= tolerance &&
             std::abs(image.pixels[i + 2] - colour.b) <= tolerance;
  }
  return count;
}

trainer::ValidationPictures pictures_of(const eval::CocoEvaluator& evaluator) {
  std::vector<trainer::PredictedImage> batch(2);
  for (auto& picture : batch) {
    picture.image.width = picture.image.height = 128;
    picture.image.pixels.assign(128 * 128 * 3, 180);
  }
  batch[0].detections = evaluator.detections()[0].detections;
  return {evaluator.evaluate(), eval::confusion_matrix(evaluator), batch};
}

}  // namespace

TEST_CASE("validation plots: four real pictures of their sizes") {
  const libreyolo::test::TempDir dir;
  const auto evaluator = small_validation();
  const auto pictures = pictures_of(evaluator);
  trainer::write_validation_plots(pictures, kNames, dir.path());
  if (!draw::drawing_available()) {  // one log line, no file, no failure
    for (const auto& name : trainer::validation_picture_names()) CHECK_FALSE(fs::exists(dir / name));
    CHECK_THROWS_AS(trainer::plot_pr_curve(pictures.evaluation, dir / "PR_curve.png"), Error);
    return;
  }
  const auto pr = data::decode_image(dir / "PR_curve.png");
  CHECK(pr.width == trainer::kCurveWidth);
  CHECK(pr.height == trainer::kCurveHeight);
  CHECK(colours_in(pr) > 50);
  CHECK(pixels_near(pr, {0, 0, 255}, 30) > 500);  // the thick mean line
  const auto f1 = data::decode_image(dir / "F1_curve.png");
  CHECK(f1.width == trainer::kCurveWidth);
  CHECK(f1.height == trainer::kCurveHeight);
  CHECK(pixels_near(f1, {0, 0, 255}, 30) > 500);
  const auto matrix = data::decode_image(dir / "confusion_matrix_normalized.png");
  CHECK(matrix.width == trainer::kMatrixWidth);
  CHECK(matrix.height == trainer::kMatrixHeight);
  CHECK(colours_in(matrix) > 50);
  // person found every time, the false person alone in the background column: full cells.
  CHECK(pixels_near(matrix, draw::blues(1.0), 0) > 10000);
  const auto batch = data::decode_image(dir / "val_batch0_pred.jpg");
  CHECK(batch.width == 256);  // two 128-pixel tiles side by side
  CHECK(batch.height == 128);
  CHECK(colours_in(batch) > 10);
}

TEST_CASE("validation plots: a split without objects has no curves to draw") {
  if (!draw::drawing_available()) return;
  const libreyolo::test::TempDir dir;
  eval::CocoEvaluator evaluator(kNames);
  eval::ImageGroundTruth empty;
  evaluator.add_image(empty, {{{0, 0, 10, 10}, 0.9, 0}});
  const auto evaluation = evaluator.evaluate();
  CHECK_THROWS_WITH_AS(trainer::plot_pr_curve(evaluation, dir / "PR_curve.png"),
                       doctest::Contains("no labelled objects"), Error);
  CHECK_THROWS_WITH_AS(trainer::plot_f1_curve(evaluation, dir / "F1_curve.png"),
                       doctest::Contains("no labelled objects"), Error);
  CHECK_FALSE(fs::exists(dir / "PR_curve.png"));
}

TEST_CASE("val_batch0_pred tiles: detections above 0.25 as name and score, the best on top") {
  trainer::PredictedImage picture;
  picture.image.width = picture.image.height = 8;
  picture.detections = {{{1, 2, 3, 4}, 0.9, 2}, {{0, 0, 5, 5}, 0.4, 0}, {{0, 0, 5, 5}, 0.25, 1}, {{0, 0, 1, 1}, 0.1, 0}};
  const auto tiles = trainer::prediction_tiles({picture}, kNames);
  REQUIRE(tiles.size() == 1);
  REQUIRE(tiles[0].boxes.size() == 2);
  CHECK(tiles[0].boxes[0].label == "person 0.40");
  CHECK(tiles[0].boxes[1].label == "car 0.90");  // drawn last
  CHECK(tiles[0].boxes[1].x1 == 1);
  CHECK(tiles[0].boxes[1].y2 == 4);
  CHECK(tiles[0].boxes[1].class_id == 2);
}
