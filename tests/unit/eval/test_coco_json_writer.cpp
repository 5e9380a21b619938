#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <sstream>
#include <string>

#include "libreyolo/core/error.hpp"
#include "libreyolo/core/eval/coco_category_ids.hpp"
#include "libreyolo/core/eval/coco_json_writer.hpp"
#include "../temp_dir.hpp"

using namespace libreyolo::core::eval;
using libreyolo::core::Error;

namespace {

std::vector<ImageDetections> sample_detections() {
  return {
      {7, {Detection{{1.5, 2.25, 11.5, 22.25}, 0.87654321, 2}, Detection{{0, 0, 4, 3}, 0.5, 0}}},
      {9, {}},
      {3, {Detection{{10, 20, 30, 60}, 0.1, 1}}},
  };
}

std::vector<ImageGroundTruth> sample_ground_truth() {
  ImageGroundTruth first;
  first.image = {7, "dir/a \"quoted\" name.jpg", 640, 480};
  GroundTruthObject person;
  person.box = {1.5, 2.25, 11.5, 22.25};
  person.class_id = 0;
  GroundTruthObject crowd;
  crowd.box = {0, 0, 100, 50};
  crowd.class_id = 1;
  crowd.iscrowd = true;
  crowd.area = 1234.5;
  first.objects = {person, crowd};
  ImageGroundTruth second;
  second.image = {9, "b.jpg", 320, 240};
  return {first, second};
}

std::string slurp(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

}  // namespace

TEST_CASE("results json: one object per detection, bbox as x,y,w,h, input order kept") {
  std::ostringstream out;
  write_coco_results_json(out, sample_detections());
  CHECK(out.str() ==
        "[\n"
        "{\"image_id\": 7, \"category_id\": 2, \"bbox\": [1.500, 2.250, 10.000, 20.000], "
        "\"score\": 0.87654},\n"
        "{\"image_id\": 7, \"category_id\": 0, \"bbox\": [0.000, 0.000, 4.000, 3.000], "
        "\"score\": 0.50000},\n"
        "{\"image_id\": 3, \"category_id\": 1, \"bbox\": [10.000, 20.000, 20.000, 40.000], "
        "\"score\": 0.10000}\n"
        "]\n");
}

TEST_CASE("results json: empty list and custom precision and category ids") {
  std::ostringstream empty;
  write_coco_results_json(empty, {});
  CHECK(empty.str() == "[]\n");

  CocoJsonOptions options;
  options.category_ids = coco80_to_coco91_category_ids();
  options.box_decimals = 1;
  options.score_decimals = 2;
  std::ostringstream out;
  write_coco_results_json(out, {{5, {Detection{{1, 2, 3, 4}, 0.456, 79}}}}, options);
  CHECK(out.str() ==
        "[\n{\"image_id\": 5, \"category_id\": 90, \"bbox\": [1.0, 2.0, 2.0, 2.0], "
        "\"score\": 0.46}\n]\n");
}

TEST_CASE("results json: invalid input throws before anything is written") {
  std::ostringstream out;
  auto detections = sample_detections();
  detections[2].detections[0].score = std::numeric_limits<double>::quiet_NaN();
  CHECK_THROWS_AS(write_coco_results_json(out, detections), Error);
  CHECK(out.str().empty());

  CocoJsonOptions options;
  options.category_ids = {1, 2};  // class 2 has no category id
  CHECK_THROWS_AS(write_coco_results_json(out, sample_detections(), options), Error);
  CHECK(out.str().empty());
}

TEST_CASE("ground-truth json: images, annotations numbered from 1, categories") {
  std::ostringstream out;
  write_coco_ground_truth_json(out, sample_ground_truth(), {"person", "crowd \\ group"});
  CHECK(out.str() ==
        "{\n"
        "\"info\": {\"description\": \"LibreYOLO Host ground truth\", \"version\": \"1.0\"},\n"
        "\"licenses\": [],\n"
        "\"images\": [\n"
        "{\"id\": 7, \"file_name\": \"dir/a \\\"quoted\\\" name.jpg\", \"width\": 640, "
        "\"height\": 480},\n"
        "{\"id\": 9, \"file_name\": \"b.jpg\", \"width\": 320, \"height\": 240}\n"
        "],\n"
        "\"annotations\": [\n"
        // area defaults to the box area: 10 x 20 = 200
        "{\"id\": 1, \"image_id\": 7, \"category_id\": 0, \"bbox\": [1.500, 2.250, 10.000, "
        "20.000], \"area\": 200.000, \"iscrowd\": 0},\n"
        // an explicit area is written as given
        "{\"id\": 2, \"image_id\": 7, \"category_id\": 1, \"bbox\": [0.000, 0.000, 100.000, "
        "50.000], \"area\": 1234.500, \"iscrowd\": 1}\n"
        "],\n"
        "\"categories\": [\n"
        "{\"id\": 0, \"name\": \"person\", \"supercategory\": \"\"},\n"
        "{\"id\": 1, \"name\": \"crowd \\\\ group\", \"supercategory\": \"\"}\n"
        "]\n"
        "}\n");
}

TEST_CASE("ground-truth json: empty dataset is still a valid document") {
  std::ostringstream out;
  write_coco_ground_truth_json(out, {}, {"a"});
  CHECK(out.str() ==
        "{\n"
        "\"info\": {\"description\": \"LibreYOLO Host ground truth\", \"version\": \"1.0\"},\n"
        "\"licenses\": [],\n"
        "\"images\": [],\n"
        "\"annotations\": [],\n"
        "\"categories\": [\n"
        "{\"id\": 0, \"name\": \"a\", \"supercategory\": \"\"}\n"
        "]\n"
        "}\n");
}

TEST_CASE("ground-truth json: category ids must cover every class") {
  std::ostringstream out;
  CocoJsonOptions options;
  options.category_ids = {1};
  CHECK_THROWS_AS(write_coco_ground_truth_json(out, sample_ground_truth(), {"a", "b"}, options),
                  Error);
  // A label whose class has no name would reference a category the file does not list.
  CHECK_THROWS_AS(write_coco_ground_truth_json(out, sample_ground_truth(), {"only one"}), Error);
  CHECK(out.str().empty());
}

TEST_CASE("coco80 to coco91 mapping") {
  const auto& ids = coco80_to_coco91_category_ids();
  REQUIRE(ids.size() == 80);
  CHECK(ids.front() == 1);
  CHECK(ids[11] == 13);  // stop sign: 12 is one of COCO's unused ids
  CHECK(ids.back() == 90);
  for (std::size_t i = 1; i < ids.size(); ++i) CHECK(ids[i] > ids[i - 1]);
}

TEST_CASE("json files are written, and unwritable paths raise core::Error") {
  const libreyolo::test::TempDir temp;
  const auto& folder = temp.path();
  const auto results = folder / "results.json";
  const auto ground_truth = folder / "gt.json";
  write_coco_results_json(results, sample_detections());
  write_coco_ground_truth_json(ground_truth, sample_ground_truth(), {"person", "crowd"});
  std::ostringstream expected;
  write_coco_results_json(expected, sample_detections());
  CHECK(slurp(results) == expected.str());
  CHECK(slurp(ground_truth).find("\"annotations\"") != std::string::npos);

  CHECK_THROWS_AS(write_coco_results_json(folder / "missing" / "r.json", sample_detections()),
                  Error);
}
