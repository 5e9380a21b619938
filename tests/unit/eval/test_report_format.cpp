#include <doctest/doctest.h>

#include <sstream>
#include <string>
#include <vector>

#include "libreyolo/core/eval/coco_evaluator.hpp"
#include "libreyolo/core/eval/report_format.hpp"

using namespace libreyolo::core::eval;

namespace {

// person: 2 objects in 2 images, both found (AP 1). dog: 2 objects in 1 image, one found
// (AP 51/101 = 0.505). cat: no objects (AP undefined).
CocoEvaluation sample_evaluation() {
  CocoEvaluator evaluator({"person", "dog", "cat"});
  GroundTruthObject person;
  person.box = {0, 0, 100, 100};
  GroundTruthObject dog_a;
  dog_a.box = {0, 0, 50, 50};
  dog_a.class_id = 1;
  GroundTruthObject dog_b = dog_a;
  dog_b.box = {200, 200, 250, 250};
  ImageGroundTruth first;
  first.image.id = 1;
  first.objects = {person, dog_a, dog_b};
  evaluator.add_image(first, {Detection{person.box, 0.9, 0}, Detection{dog_a.box, 0.8, 1}});
  ImageGroundTruth second;
  second.image.id = 2;
  second.objects = {person};
  evaluator.add_image(second, {Detection{person.box, 0.7, 0}});
  return evaluator.evaluate();
}

}  // namespace

TEST_CASE("class table: Ultralytics' columns, overall row first, classes without objects left out") {
  const CocoEvaluation evaluation = sample_evaluation();
  // all: AP50 = AP = (1 + 51/101) / 2 = 0.752. P and R at the best mean F1 (the lowest
  // confidence here): person finds both (P 1, R 1), dog one of two (P 1, R 0.5).
  CHECK(format_class_table(evaluation) ==
        "Class      Images  Instances          P          R      mAP50   mAP50-95\n"
        "all             2          4      1.000      0.750      0.752      0.752\n"
        "person          2          2      1.000      1.000      1.000      1.000\n"
        "dog             1          2      1.000      0.500      0.505      0.505\n");
}

TEST_CASE("class table widens the name column for long and non-ASCII names") {
  CocoEvaluation evaluation;
  evaluation.stats.values.fill(-1.0);
  evaluation.per_class = {{0, "traffic light", 1, 1, -1.0, -1.0},
                          {1, "caf\xc3\xa9", 1, 1, -1.0, -1.0}};
  const std::string table = format_class_table(evaluation);
  std::istringstream lines(table);
  std::string header;
  std::string all;
  std::string light;
  std::string cafe;
  std::getline(lines, header);
  std::getline(lines, all);
  std::getline(lines, light);
  std::getline(lines, cafe);
  CHECK(header.rfind("Class        ", 0) == 0);  // padded to "traffic light" (13)
  CHECK(light.size() == header.size());
  CHECK(cafe.size() == header.size() + 1);  // é is 2 bytes but one column
}

TEST_CASE("summary: the 12 pycocotools lines, -1.000 where nothing was measured") {
  const std::string summary = format_coco_summary(sample_evaluation().stats);
  std::istringstream lines(summary);
  std::vector<std::string> all;
  for (std::string line; std::getline(lines, line);) all.push_back(line);
  REQUIRE(all.size() == 12);
  CHECK(all[0] ==
        " Average Precision  (AP) @[ IoU=0.50:0.95 | area=   all | maxDets=100 ] = 0.752");
  CHECK(all[1] ==
        " Average Precision  (AP) @[ IoU=0.50      | area=   all | maxDets=100 ] = 0.752");
  CHECK(all[2] ==
        " Average Precision  (AP) @[ IoU=0.75      | area=   all | maxDets=100 ] = 0.752");
  // dog objects are 2500 px (medium), persons 10000 px (large); nothing small.
  CHECK(all[3] ==
        " Average Precision  (AP) @[ IoU=0.50:0.95 | area= small | maxDets=100 ] = -1.000");
  CHECK(all[4] ==
        " Average Precision  (AP) @[ IoU=0.50:0.95 | area=medium | maxDets=100 ] = 0.505");
  CHECK(all[5] ==
        " Average Precision  (AP) @[ IoU=0.50:0.95 | area= large | maxDets=100 ] = 1.000");
  // AR1: person 1 (one per image), dog 1/2 -> 0.75
  CHECK(all[6] ==
        " Average Recall     (AR) @[ IoU=0.50:0.95 | area=   all | maxDets=  1 ] = 0.750");
  CHECK(all[7] ==
        " Average Recall     (AR) @[ IoU=0.50:0.95 | area=   all | maxDets= 10 ] = 0.750");
  CHECK(all[8] ==
        " Average Recall     (AR) @[ IoU=0.50:0.95 | area=   all | maxDets=100 ] = 0.750");
  CHECK(all[9] ==
        " Average Recall     (AR) @[ IoU=0.50:0.95 | area= small | maxDets=100 ] = -1.000");
  CHECK(all[10] ==
        " Average Recall     (AR) @[ IoU=0.50:0.95 | area=medium | maxDets=100 ] = 0.500");
  CHECK(all[11] ==
        " Average Recall     (AR) @[ IoU=0.50:0.95 | area= large | maxDets=100 ] = 1.000");
}
