// YOLOX's network against LibreYOLO's: parameter counts, state_dict keys in order with their
// shapes, the depthwise/BatchNorm/bias details, a hand-checked decode, and (with
// tests/fixtures/yolox/reference_keys_<size>.json from tests/python/yolox_reference_keys.py) the
// forward of every size on identical deterministic weights.
#include "../torch_doctest.hpp"

#include "libreyolo/core/checkpoint/state_dict.hpp"

#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "yolox_detector.hpp"
#include "yolox_fixture.hpp"

using namespace libreyolo::families::yolox;
namespace fixture = libreyolo::test::yolox;

namespace {

const std::vector<std::string> kSizes = {"n", "t", "s", "m", "l", "x"};

// LibreYOLO's LibreYOLOXModel(config=size, nb_classes=80): sum of p.numel() over parameters()
// and len(state_dict()), measured with torch 1.13 (they are also the official YOLOX counts:
// nano 0.91M, s 8.97M, x 99.1M).
const std::map<std::string, std::pair<int64_t, size_t>> kExpected = {
    {"n", {912159, 642}},    {"t", {5055855, 462}},   {"s", {8968255, 462}},
    {"m", {25326495, 606}},  {"l", {54208895, 750}},  {"x", {99071455, 894}}};

int64_t parameter_count(const torch::nn::Module& module) {
  int64_t count = 0;
  for (const auto& p : module.parameters(true)) count += p.numel();
  return count;
}

// Keys in PyTorch's state_dict() order, as the checkpoint writer lays them out.
std::vector<std::pair<std::string, std::vector<int64_t>>> ordered_state(const torch::nn::Module& module) {
  std::vector<std::pair<std::string, std::vector<int64_t>>> rows;
  for (const auto& item : libreyolo::core::checkpoint::state_dict_of(module))
    rows.emplace_back(item.key(), item.value().sizes().vec());
  return rows;
}

}  // namespace

TEST_CASE("yolox: every size has LibreYOLO's parameter and state_dict counts") {
  for (const auto& size : kSizes) {
    CAPTURE(size);
    YoloxDetector detector(size, 80);
    CHECK(parameter_count(detector) == kExpected.at(size).first);
    CHECK(ordered_state(detector).size() == kExpected.at(size).second);
  }
  CHECK_THROWS_AS(YoloxDetector("c", 80), std::invalid_argument);
  CHECK_THROWS_AS(YoloxDetector("s", 0), std::invalid_argument);
}

TEST_CASE("yolox: BatchNorm 1e-3 / 0.03, prior-probability biases, depthwise convolutions for n only") {
  YoloxDetector nano("n", 80), small("s", 80);
  for (auto* detector : {&nano, &small}) {
    int batchnorms = 0;
    for (const auto& module : detector->modules(/*include_self=*/false)) {
      if (const auto* bn = module->as<torch::nn::BatchNorm2dImpl>()) {
        ++batchnorms;
        CHECK(bn->options.eps() == doctest::Approx(1e-3));
        CHECK(bn->options.momentum().value() == doctest::Approx(0.03));
      }
    }
    CHECK(batchnorms > 50);
    // -log((1 - 0.01) / 0.01) = -4.59512: LibreYOLO's initialize_biases(0.01).
    CHECK(detector->head->cls_preds[0]->as<torch::nn::Conv2dImpl>()->bias[79].item<double>() ==
          doctest::Approx(-4.59512).epsilon(1e-5));
    CHECK(detector->head->obj_preds[2]->as<torch::nn::Conv2dImpl>()->bias[0].item<double>() ==
          doctest::Approx(-4.59512).epsilon(1e-5));
  }
  const auto nano_params = nano.named_parameters();
  // n: dark2's downsampling is a DWConv (a depthwise 3x3 on 16 channels, then a pointwise 1x1).
  REQUIRE(nano_params.contains("backbone.backbone.dark2.0.dconv.conv.weight"));
  CHECK(nano_params["backbone.backbone.dark2.0.dconv.conv.weight"].sizes() == torch::IntArrayRef({16, 1, 3, 3}));
  CHECK(nano_params["backbone.backbone.dark2.0.pconv.conv.weight"].sizes() == torch::IntArrayRef({32, 16, 1, 1}));
  CHECK(nano_params.contains("head.cls_convs.0.1.dconv.conv.weight"));
  // The stem (Focus) and the head stems are plain BaseConvs even for n.
  CHECK(nano_params["backbone.backbone.stem.conv.conv.weight"].sizes() == torch::IntArrayRef({16, 12, 3, 3}));
  CHECK(nano_params["head.stems.0.conv.weight"].sizes() == torch::IntArrayRef({64, 64, 1, 1}));
  const auto small_params = small.named_parameters();
  CHECK(small_params["backbone.backbone.dark2.0.conv.weight"].sizes() == torch::IntArrayRef({64, 32, 3, 3}));
  CHECK_FALSE(small_params.contains("backbone.backbone.dark2.0.dconv.conv.weight"));
}

TEST_CASE("yolox: raw output shapes per level and decode shapes") {
  torch::NoGradGuard no_grad;
  YoloxDetector detector("n", 5);
  detector.eval();
  const auto outputs = detector.forward_capturable(torch::rand({2, 3, 96, 64}) * 255);
  REQUIRE(outputs.size() == 3);
  CHECK(outputs[0].sizes() == torch::IntArrayRef({2, 10, 12, 8}));
  CHECK(outputs[1].sizes() == torch::IntArrayRef({2, 10, 6, 4}));
  CHECK(outputs[2].sizes() == torch::IntArrayRef({2, 10, 3, 2}));
  const auto candidates = detector.decode(outputs);
  CHECK(candidates.boxes.sizes() == torch::IntArrayRef({2, 96 + 24 + 6, 4}));
  CHECK(candidates.scores.sizes() == torch::IntArrayRef({2, 126, 5}));
  CHECK(candidates.scores.min().item<float>() >= 0.0f);
  CHECK(candidates.scores.max().item<float>() <= 1.0f);
}

TEST_CASE("yolox: decode of known raw outputs (grid without 0.5, exp sizes, obj x cls)") {
  const int64_t nc = 2;
  std::vector<torch::Tensor> outputs;
  for (const int64_t side : {8, 4, 2}) outputs.push_back(torch::zeros({1, 5 + nc, side, side}));
  // Level 0 (stride 8), row 1, col 2 = anchor 1 * 8 + 2 = 10: x 0.5, y 0.25, w log 2, h 0.
  outputs[0][0][0][1][2] = 0.5;
  outputs[0][0][1][1][2] = 0.25;
  outputs[0][0][2][1][2] = std::log(2.0);
  outputs[0][0][4][1][2] = 20.0;   // objectness ~1
  outputs[0][0][6][1][2] = -20.0;  // class 1 ~0
  const auto [boxes, scores] = decode_outputs(outputs, nc);
  REQUIRE(boxes.sizes() == torch::IntArrayRef({1, 84, 4}));
  // Anchor 0: centre (0 + 0) * 8 = 0, size e^0 * 8 = 8 -> (-4, -4, 4, 4); scores 0.5 * 0.5.
  CHECK(boxes[0][0][0].item<float>() == doctest::Approx(-4.0));
  CHECK(boxes[0][0][3].item<float>() == doctest::Approx(4.0));
  CHECK(scores[0][0][1].item<float>() == doctest::Approx(0.25));
  // Anchor 10: centre ((0.5 + 2) * 8, (0.25 + 1) * 8) = (20, 10), size (16, 8) -> (12, 6, 28, 14).
  CHECK(boxes[0][10][0].item<float>() == doctest::Approx(12.0));
  CHECK(boxes[0][10][1].item<float>() == doctest::Approx(6.0));
  CHECK(boxes[0][10][2].item<float>() == doctest::Approx(28.0));
  CHECK(boxes[0][10][3].item<float>() == doctest::Approx(14.0));
  CHECK(scores[0][10][0].item<float>() == doctest::Approx(0.5).epsilon(1e-6));  // sigmoid(20) * sigmoid(0)
  CHECK(scores[0][10][1].item<float>() < 1e-8f);
  // Level 2 (stride 32), row 1, col 1 = anchor 64 + 16 + 3 = 83: centre 32, size 32.
  CHECK(boxes[0][83][0].item<float>() == doctest::Approx(16.0));
  CHECK(boxes[0][83][2].item<float>() == doctest::Approx(48.0));
}

TEST_CASE("yolox: state_dict and forward match LibreYOLO's (fixtures from the Python script)") {
  for (const auto& size : kSizes) {
    CAPTURE(size);
    const auto reference = fixture::read_fixture("reference_keys_" + size + ".json");
    if (!reference) {
      MESSAGE("no reference_keys_" << size << ".json in " << fixture::fixture_dir()
                                   << ": run tests/python/yolox_reference_keys.py to compare with LibreYOLO");
      continue;
    }
    const auto nc = static_cast<int64_t>((*reference)["num_classes"].number);
    YoloxDetector detector(size, nc);
    CHECK(parameter_count(detector) == static_cast<int64_t>((*reference)["parameters"].number));

    // Same keys, same order (PyTorch's state_dict order, which the checkpoint writer follows),
    // same shapes: LibreYOLO checkpoints load here and ours load there.
    const auto actual = ordered_state(detector);
    const auto& expected = (*reference)["state_dict"].items;
    REQUIRE(actual.size() == expected.size());
    int mismatches = 0;
    for (size_t i = 0; i < expected.size(); ++i) {
      const auto& key = expected[i].items[0].text;
      const auto shape = fixture::to_shape(expected[i].items[1]);
      if (actual[i].first != key || actual[i].second != shape) {
        if (++mismatches <= 10) MESSAGE("entry " << i << ": LibreYOLO " << key << ", C++ " << actual[i].first);
      }
    }
    CHECK(mismatches == 0);
    if (mismatches != 0) continue;

    const auto& forward = (*reference)["forward"];
    const auto imgsz = static_cast<int64_t>(forward["imgsz"].number);
    const auto batch = static_cast<int64_t>(forward["batch"].number);
    fixture::fill_deterministic(detector);
    detector.eval();
    torch::NoGradGuard no_grad;
    const auto images = (0.5 + 0.5 * fixture::pattern(batch * 3 * imgsz * imgsz, 1000)).view({batch, 3, imgsz, imgsz});
    const auto outputs = detector.forward_capturable(images);
    REQUIRE(outputs.size() == forward["levels"].items.size());
    for (size_t level = 0; level < outputs.size(); ++level) {
      // LibreYOLO's head applies the sigmoids to objectness and classes at inference.
      const auto& raw = outputs[level];
      const auto as_python = torch::cat({raw.narrow(1, 0, 4), torch::sigmoid(raw.narrow(1, 4, raw.size(1) - 4))}, 1);
      fixture::check_summary(as_python, forward["levels"].items[level], "level " + std::to_string(level));
    }
    const auto candidates = detector.decode(outputs);
    fixture::check_summary(candidates.boxes, forward["boxes"], "boxes");
    fixture::check_summary(candidates.scores, forward["scores"], "scores");
  }
}
