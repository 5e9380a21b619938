// What predict prints and writes per image: counts, YOLO label lines, predictions.json.
#include <doctest/doctest.h>

#include <fstream>
#include <sstream>

#include "libreyolo/core/predict/prediction_output.hpp"
#include "temp_dir.hpp"

using namespace libreyolo::core;

namespace {
const std::vector<std::string> kNames = {"person", "bicycle", "dog"};
}

TEST_CASE("describe_counts: by class id, plural with an s, 'no detections' when empty") {
  std::vector<eval::Detection> detections = {{{}, 0.9, 2}, {{}, 0.8, 0}, {{}, 0.7, 0}};
  CHECK(predict::describe_counts(detections, kNames) == "2 persons, 1 dog");
  CHECK(predict::describe_counts({}, kNames) == "no detections");
  const std::vector<std::string> coco = {"bus", "bench", "skis", "box"};
  CHECK(predict::describe_counts({{{}, 0.5, 0}, {{}, 0.5, 0}, {{}, 0.5, 1}, {{}, 0.5, 1}, {{}, 0.5, 2}, {{}, 0.5, 2},
                                  {{}, 0.5, 3}, {{}, 0.5, 3}},
                                 coco) == "2 buses, 2 benches, 2 skis, 2 boxes");
  CHECK(predict::describe_counts({{{}, 0.5, 7}}, kNames) == "1 class7");
}

TEST_CASE("yolo_label_lines: class cx cy w h conf, normalised by the image size") {
  const std::vector<eval::Detection> detections = {{{10, 20, 110, 70}, 0.875, 1}};
  CHECK(predict::yolo_label_lines(detections, 200, 100) == "1 0.3 0.45 0.5 0.5 0.875\n");
  CHECK(predict::yolo_label_lines({}, 200, 100).empty());
}

TEST_CASE("predictions.json holds file, size and detections in pixels") {
  libreyolo::test::TempDir dir;
  const std::vector<predict::ImagePrediction> images = {
      {"images/a.jpg", 200, 100, {{{10.25, 20, 110, 70.5}, 0.875, 2}}}, {"images/b.png", 64, 48, {}}};
  predict::write_predictions_json(dir / "p.json", images, kNames);
  std::ifstream in(dir / "p.json");
  std::stringstream text;
  text << in.rdbuf();
  const auto json = text.str();
  CHECK(json.find("\"file\": \"images/a.jpg\"") != std::string::npos);
  CHECK(json.find("\"width\": 200") != std::string::npos);
  CHECK(json.find("\"class_id\": 2, \"class_name\": \"dog\", \"confidence\": 0.87500, "
                  "\"box\": [10.250, 20.000, 110.000, 70.500]") != std::string::npos);
  CHECK(json.find("\"detections\": []") != std::string::npos);
}
