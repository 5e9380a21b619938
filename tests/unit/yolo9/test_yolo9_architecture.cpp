// YOLOv9's network against LibreYOLO's: state_dict keys and shapes, parameter counts, output
// and decode shapes per size, and (with tests/fixtures/yolo9/reference_keys_<size>.json, made by
// tests/python/yolo9_reference_keys.py) a numerical forward with identical deterministic weights.
#include "../torch_doctest.hpp"

#include "libreyolo/sdk/losses/anchors.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <cstring>
#include <vector>

#include "../deterministic_weights.hpp"
#include "../fixture_json.hpp"
#include "yolo9_detector.hpp"
#include "support/test_paths.hpp"

using namespace libreyolo::families::yolo9;

namespace {

const std::string kFixtureDir = std::string(libreyolo::test_paths::source_dir()) + "/tests/fixtures/yolo9";

// Parameter counts of LibreYOLO's LibreYOLO9Model(config=size, nb_classes=80), measured with
// tests/python/yolo9_reference_keys.py (sum of p.numel() over model.parameters()).
const std::map<std::string, int64_t> kExpectedParameters = {
    {"t", 2036544}, {"s", 7226192}, {"m", 20123984}, {"c", 25498736}};

using libreyolo::test::fill_deterministic;
using libreyolo::test::Json;
using libreyolo::test::pattern;

std::unique_ptr<Json> read_fixture(const std::string& size) {
  std::ifstream in(kFixtureDir + "/reference_keys_" + size + ".json");
  if (!in) return nullptr;
  std::stringstream buffer;
  buffer << in.rdbuf();
  return std::make_unique<Json>(libreyolo::test::parse_json(buffer.str()));
}

std::vector<int64_t> to_shape(const Json& array) {
  std::vector<int64_t> shape;
  for (const auto& item : array.items) shape.push_back(static_cast<int64_t>(item.number));
  return shape;
}

// --- the model's state dict as Python's state_dict() lists it -----------------------------------
std::map<std::string, std::vector<int64_t>> state_shapes(const torch::nn::Module& module) {
  std::map<std::string, std::vector<int64_t>> shapes;
  for (const auto& item : module.named_parameters(true)) shapes[item.key()] = item.value().sizes().vec();
  for (const auto& item : module.named_buffers(true)) shapes[item.key()] = item.value().sizes().vec();
  return shapes;
}

int64_t parameter_count(const torch::nn::Module& module) {
  int64_t count = 0;
  for (const auto& p : module.parameters(true)) count += p.numel();
  return count;
}


void check_summary(const torch::Tensor& actual, const Json& expected, const std::string& what) {
  CAPTURE(what);
  CHECK(actual.sizes().vec() == to_shape(expected["shape"]));
  const auto flat = actual.to(torch::kFloat64).reshape(-1);
  const double sum = flat.sum().item<double>(), abs_sum = flat.abs().sum().item<double>();
  const double expected_abs_sum = expected["abs_sum"].number;
  CHECK(abs_sum == doctest::Approx(expected_abs_sum).epsilon(1e-4));
  CHECK(std::abs(sum - expected["sum"].number) <= 1e-4 * expected_abs_sum + 1e-4);
  const auto& head = expected["head"].items;
  for (size_t i = 0; i < head.size(); ++i) {
    CAPTURE(i);
    CHECK(flat[static_cast<int64_t>(i)].item<double>() ==
          doctest::Approx(head[i].number).epsilon(1e-4).scale(0.01));
  }
}

const std::vector<std::string> kSizes = {"t", "s", "m", "c"};

}  // namespace

TEST_CASE("yolo9: sizes, parameter counts and a few LibreYOLO keys") {
  for (const auto& size : kSizes) {
    CAPTURE(size);
    Yolo9Detector detector(size, 80);
    const int64_t params = parameter_count(detector);
    MESSAGE("yolo9" << size << " (nc=80): " << params << " parameters, "
                    << state_shapes(detector).size() << " state_dict entries");
    CHECK(params == kExpectedParameters.at(size));

    const auto shapes = state_shapes(detector);
    const int64_t c0 = size_config(size).conv0_out;
    REQUIRE(shapes.count("backbone.conv0.conv.weight") == 1);
    CHECK(shapes.at("backbone.conv0.conv.weight") == std::vector<int64_t>{c0, 3, 3, 3});
    CHECK(shapes.at("backbone.conv0.bn.num_batches_tracked") == std::vector<int64_t>{});
    CHECK(shapes.at("head.cv2.0.2.bias") == std::vector<int64_t>{64});
    CHECK(shapes.at("head.cv3.2.2.weight")[0] == 80);
    CHECK(shapes.count("head.stride") == 0);        // non-persistent in Python
    CHECK(shapes.count("head.dfl.project") == 0);   // non-persistent in Python
    CHECK(shapes.count("backbone.elan2.cv2.0.m.0.cv1.conv1.conv.weight") == 1);
  }
  CHECK_THROWS_AS(Yolo9Detector("x", 80), std::invalid_argument);
}

TEST_CASE("yolo9: BatchNorm settings and head bias initialisation as LibreYOLO") {
  Yolo9Detector detector("t", 80);
  const auto& bn = detector.backbone->conv0->bn->options;
  CHECK(bn.eps() == doctest::Approx(1e-3));
  CHECK(bn.momentum().value() == doctest::Approx(0.03));
  const auto& tower = detector.head->cv3[1]->as<HeadTowerImpl>();
  REQUIRE(tower != nullptr);
  CHECK(tower->pred->bias[0].item<double>() == doctest::Approx(std::log(5.0 / 80.0 / (40.0 * 40.0))));
  CHECK(detector.head->cv2[0]->as<HeadTowerImpl>()->pred->bias[5].item<double>() == doctest::Approx(1.0));
}

TEST_CASE("yolo9: output and decode shapes at 640 and 320, strides 8/16/32") {
  torch::NoGradGuard no_grad;
  for (const auto& size : kSizes) {
    Yolo9Detector detector(size, 80);
    detector.eval();
    for (const int64_t imgsz : {640, 320}) {
      CAPTURE(size);
      CAPTURE(imgsz);
      const auto images = torch::rand({1, 3, imgsz, imgsz});
      auto outputs = detector.forward_remainder(detector.forward_capturable(images), nullptr);
      REQUIRE(outputs.size() == 3);
      int64_t anchors = 0;
      for (size_t level = 0; level < 3; ++level) {
        const int64_t side = imgsz / kStrides[level];
        CHECK(outputs[level].sizes().vec() == std::vector<int64_t>{1, 4 * 16 + 80, side, side});
        anchors += side * side;
      }
      const auto candidates = detector.decode(outputs);
      CHECK(candidates.boxes.sizes().vec() == std::vector<int64_t>{1, anchors, 4});
      CHECK(candidates.scores.sizes().vec() == std::vector<int64_t>{1, anchors, 80});
      CHECK(candidates.scores.min().item<float>() >= 0.0f);
      CHECK(candidates.scores.max().item<float>() <= 1.0f);
      CHECK(torch::isfinite(candidates.boxes).all().item<bool>());
    }
  }
}

TEST_CASE("yolo9: decode of known logits (DFL integral, anchors, dist2bbox)") {
  // Zero logits: uniform distributions over 16 bins -> 7.5 bins on each side; sigmoid(0) = 0.5.
  const int64_t nc = 3;
  std::vector<torch::Tensor> outputs;
  for (const int64_t side : {4, 2, 1}) outputs.push_back(torch::zeros({2, 64 + nc, side, side}));
  // One peaked distribution: level 0, cell (row 1, col 2), left side at bin 3.
  outputs[0][0][3][1][2] = 50.0;
  outputs[0][1][64 + 2][0][0] = 100.0;  // a confident class logit, second image
  auto [boxes, scores] = decode_outputs(outputs, nc);
  CHECK(boxes.sizes().vec() == std::vector<int64_t>{2, 21, 4});
  // First cell of level 0: centre (0.5, 0.5) * 8 = (4, 4); 7.5 bins * 8 = 60 px each side.
  CHECK(boxes[1][0][0].item<float>() == doctest::Approx(4.0 - 60.0));
  CHECK(boxes[1][0][3].item<float>() == doctest::Approx(4.0 + 60.0));
  // Cell (row 1, col 2) = anchor 6: centre (20, 12); left = 3 bins * 8 = 24.
  CHECK(boxes[0][6][0].item<float>() == doctest::Approx(20.0 - 24.0).epsilon(1e-4));
  CHECK(boxes[0][6][1].item<float>() == doctest::Approx(12.0 - 60.0));
  // Level 2 (stride 32), its only cell: centre (16, 16), 7.5 * 32 = 240.
  CHECK(boxes[0][20][2].item<float>() == doctest::Approx(16.0 + 240.0));
  CHECK(scores[0][0][0].item<float>() == doctest::Approx(0.5));
  CHECK(scores[1][0][2].item<float>() == doctest::Approx(1.0));
  const auto anchors = libreyolo::sdk::losses::make_anchors(outputs, {8, 16, 32});
  CHECK(anchors.points.sizes().vec() == std::vector<int64_t>{21, 2});
  CHECK(anchors.strides[16][0].item<float>() == 16.0f);
}

TEST_CASE("yolo9: state_dict and forward match LibreYOLO's (fixtures from the Python script)") {
  for (const auto& size : kSizes) {
    CAPTURE(size);
    const auto fixture = read_fixture(size);
    if (!fixture) {
      MESSAGE("no " << kFixtureDir << "/reference_keys_" << size
                    << ".json: run tests/python/yolo9_reference_keys.py to compare with LibreYOLO");
      continue;
    }
    const int nc = static_cast<int>((*fixture)["num_classes"].number);
    Yolo9Detector detector(size, nc);
    CHECK(parameter_count(detector) == static_cast<int64_t>((*fixture)["parameters"].number));

    // Keys and shapes, both ways.
    const auto shapes = state_shapes(detector);
    std::map<std::string, std::vector<int64_t>> expected;
    for (const auto& row : (*fixture)["state_dict"].items) expected[row.items[0].text] = to_shape(row.items[1]);
    CHECK(shapes.size() == expected.size());
    int mismatches = 0;
    for (const auto& [key, shape] : expected) {
      const auto found = shapes.find(key);
      if (found == shapes.end()) {
        if (++mismatches <= 10) MESSAGE("missing in C++: " << key);
      } else if (found->second != shape) {
        if (++mismatches <= 10) MESSAGE("shape differs: " << key);
      }
    }
    for (const auto& [key, shape] : shapes)
      if (!expected.count(key) && ++mismatches <= 10) MESSAGE("extra in C++: " << key);
    CHECK(mismatches == 0);
    if (mismatches != 0) continue;

    // The same deterministic weights and input -> the same outputs.
    const auto& forward = (*fixture)["forward"];
    const auto imgsz = static_cast<int64_t>(forward["imgsz"].number);
    const auto batch = static_cast<int64_t>(forward["batch"].number);
    fill_deterministic(detector);
    detector.eval();
    torch::NoGradGuard no_grad;
    const auto images = (0.5 + 0.5 * pattern(batch * 3 * imgsz * imgsz, 1000)).view({batch, 3, imgsz, imgsz});
    const auto outputs = detector.forward_capturable(images);
    REQUIRE(outputs.size() == forward["raw"].items.size());
    for (size_t level = 0; level < outputs.size(); ++level)
      check_summary(outputs[level], forward["raw"].items[level], "raw level " + std::to_string(level));
    const auto candidates = detector.decode(outputs);
    check_summary(candidates.boxes, forward["boxes"], "boxes");
    check_summary(candidates.scores, forward["scores"], "scores");
  }
}
