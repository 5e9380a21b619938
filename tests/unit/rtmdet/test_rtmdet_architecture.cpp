// RTMDet's network against LibreYOLO's: parameter counts and state_dict keys in order with their
// shapes (tests/fixtures/rtmdet/reference_keys_<size>.json, from
// tests/python/rtmdet_reference_keys.py), the head's shared convolutions, its initialisation,
// the t and s forward on identical deterministic weights, exp_on_reg, and a hand-checked decode.
#include "../torch_doctest.hpp"

#include "libreyolo/core/checkpoint/state_dict.hpp"
#include "libreyolo/core/optim/unique_parameters.hpp"

#include <cmath>
#include <functional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "../deterministic_weights.hpp"
#include "decode.hpp"
#include "rtmdet_detector.hpp"
#include "rtmdet_fixture.hpp"

using namespace libreyolo::families::rtmdet;
namespace fixture = libreyolo::test::rtmdet;

namespace {

const std::vector<std::string> kSizes = {"t", "s", "m", "l", "x"};

// Keys in PyTorch's state_dict() order, as the checkpoint writer lays them out.
std::vector<std::pair<std::string, std::vector<int64_t>>> ordered_state(const torch::nn::Module& module) {
  std::vector<std::pair<std::string, std::vector<int64_t>>> rows;
  for (const auto& item : libreyolo::core::checkpoint::state_dict_of(module))
    rows.emplace_back(item.key(), item.value().sizes().vec());
  return rows;
}

std::string what_of(const std::function<void()>& call) {
  try {
    call();
  } catch (const std::invalid_argument& error) {
    return error.what();
  }
  return "";
}

// doctest::Approx adds 1 to its scale, which makes it useless for values around 0.01.
bool within(double value, double target, double relative) {
  return std::abs(value - target) <= relative * std::abs(target);
}

double standard_deviation(const torch::Tensor& t) { return t.std().item<double>(); }

}  // namespace

TEST_CASE("rtmdet: size table, stem channels to size, bad arguments") {
  CHECK(size_config("t").base_channels == 24);
  CHECK(size_config("x").stage_blocks == std::array<int64_t, 4>{4, 8, 8, 4});
  CHECK(size_config("m").neck_in == std::array<int64_t, 3>{192, 384, 768});
  CHECK(size_config("l").stage_channels() == std::array<int64_t, 4>{128, 256, 512, 1024});
  CHECK(what_of([] { size_config("n"); }).find("t, s, m, l, x") != std::string::npos);
  CHECK_THROWS_AS(RtmdetDetector("q", 80), std::invalid_argument);
  CHECK_THROWS_AS(RtmdetDetector("s", 0), std::invalid_argument);

  CHECK(size_from_stem_channels(12) == "t");
  CHECK(size_from_stem_channels(16) == "s");
  CHECK(size_from_stem_channels(24) == "m");
  CHECK(size_from_stem_channels(32) == "l");
  CHECK(size_from_stem_channels(40) == "x");
  CHECK(size_from_stem_channels(48) == "");
  CHECK(size_from_stem_channels(0) == "");
  CHECK(kNmsPre == 30000);
}

TEST_CASE("rtmdet: every size has LibreYOLO's parameter count and state_dict keys and shapes in order") {
  for (const auto& size : kSizes) {
    CAPTURE(size);
    const auto reference = fixture::read_fixture("reference_keys_" + size + ".json");
    const auto nc = static_cast<int64_t>(reference["num_classes"].number);
    RtmdetDetector detector(size, nc);
    CHECK(detector.size() == size);
    CHECK(detector.num_classes() == nc);
    CHECK(libreyolo::core::optim::parameter_count(detector) == static_cast<int64_t>(reference["parameters"].number));

    const auto actual = ordered_state(detector);
    const auto& expected = reference["state_dict"].items;
    CHECK(expected.size() == static_cast<size_t>(reference["state_dict_entries"].number));
    REQUIRE(actual.size() == expected.size());
    int mismatches = 0;
    for (size_t i = 0; i < expected.size(); ++i) {
      const auto& key = expected[i].items[0].text;
      if (actual[i].first != key || actual[i].second != fixture::to_shape(expected[i].items[1])) {
        if (++mismatches <= 10) MESSAGE("entry " << i << ": LibreYOLO " << key << ", C++ " << actual[i].first);
      }
    }
    CHECK(mismatches == 0);
    // LibreYOLO recognises a checkpoint's size from the stem's first convolution.
    CHECK(size_from_stem_channels(actual.front().second.front()) == size);
  }
}

TEST_CASE("rtmdet: the head's shared convolutions are one tensor at all three levels, BatchNorm per level") {
  RtmdetDetector detector("t", 80);
  auto params = detector.named_parameters(/*recurse=*/true);
  for (const std::string tower : {"cls_convs", "reg_convs"}) {
    for (const std::string i : {"0", "1"}) {
      CAPTURE(tower);
      CAPTURE(i);
      const auto path = [&](int level, const std::string& leaf) {
        return "head." + tower + "." + std::to_string(level) + "." + i + "." + leaf;
      };
      const auto* conv = params[path(0, "conv.weight")].unsafeGetTensorImpl();
      const auto* bn = params[path(0, "bn.weight")].unsafeGetTensorImpl();
      for (const int level : {1, 2}) {
        CHECK(params[path(level, "conv.weight")].unsafeGetTensorImpl() == conv);
        CHECK(params[path(level, "bn.weight")].unsafeGetTensorImpl() != bn);
      }
    }
  }
  // LibTorch lists the 2 towers x 2 convs x 96 x 96 x 3 x 3 weights at levels 1 and 2 again.
  int64_t listed = 0;
  for (const auto& p : detector.parameters()) listed += p.numel();
  CHECK(listed - libreyolo::core::optim::parameter_count(detector) == 2 * 2 * 2 * 96 * 96 * 9);

  // Loading any of the three keys writes the one tensor (non-strict: just that key).
  libreyolo::core::checkpoint::StateDict state;
  state.insert("head.reg_convs.2.1.conv.weight", torch::full({96, 96, 3, 3}, 0.25));
  const auto report = libreyolo::core::checkpoint::load_state_dict_into(detector, state, /*strict=*/false);
  CHECK(report.loaded == 1);
  CHECK(params["head.reg_convs.0.1.conv.weight"].eq(0.25).all().item<bool>());
  CHECK_FALSE(params["head.reg_convs.0.0.conv.weight"].eq(0.25).all().item<bool>());
}

TEST_CASE("rtmdet: head initialisation is mmdetection's init_weights, backbone and neck keep the default") {
  RtmdetDetector detector("t", 80);
  auto params = detector.named_parameters(/*recurse=*/true);
  for (const int level : {0, 1, 2}) {
    CAPTURE(level);
    const auto l = std::to_string(level);
    // -log((1 - 0.01) / 0.01) = -4.59512.
    CHECK(params["head.rtm_cls." + l + ".bias"].min().item<double>() == doctest::Approx(-4.59512).epsilon(1e-5));
    CHECK(params["head.rtm_cls." + l + ".bias"].max().item<double>() == doctest::Approx(-4.59512).epsilon(1e-5));
    CHECK(within(standard_deviation(params["head.rtm_cls." + l + ".weight"]), 0.01, 0.05));
    CHECK(within(standard_deviation(params["head.rtm_reg." + l + ".weight"]), 0.01, 0.15));
    CHECK(params["head.rtm_reg." + l + ".bias"].abs().max().item<double>() == 0.0);
    CHECK(params["head.cls_convs." + l + ".1.bn.weight"].eq(1.0).all().item<bool>());
    CHECK(params["head.reg_convs." + l + ".0.bn.bias"].eq(0.0).all().item<bool>());
  }
  const auto& tower = params["head.cls_convs.0.0.conv.weight"];
  CHECK(within(standard_deviation(tower), 0.01, 0.02));
  CHECK(std::abs(tower.mean().item<double>()) < 1e-3);
  // PyTorch's default conv init (kaiming uniform, a = sqrt(5)): std 1 / sqrt(3 * fan_in) = 0.111
  // for the stem's 3 x 3 x 3 fan-in.
  CHECK(within(standard_deviation(params["backbone.stem.0.conv.weight"]), 0.111, 0.2));
}

TEST_CASE("rtmdet: t and s raw outputs equal LibreYOLO's on deterministic weights") {
  torch::NoGradGuard no_grad;
  for (const std::string size : {"t", "s"}) {
    CAPTURE(size);
    const auto reference = fixture::read_fixture("reference_keys_" + size + ".json");
    const auto& forward = reference["forward"];
    const auto imgsz = static_cast<int64_t>(forward["imgsz"].number);
    const auto batch = static_cast<int64_t>(forward["batch"].number);
    RtmdetDetector detector(size, static_cast<int64_t>(forward["num_classes"].number));
    libreyolo::test::fill_deterministic(detector);
    detector.eval();
    const auto images =
        (0.5 + 0.5 * libreyolo::test::pattern(batch * 3 * imgsz * imgsz, 1000)).view({batch, 3, imgsz, imgsz});
    const auto outputs = detector.forward_capturable(images);
    const auto& expected = forward["outputs"].items;
    REQUIRE(outputs.size() == expected.size());
    for (size_t i = 0; i < outputs.size(); ++i) {
      CAPTURE(expected[i]["name"].text);
      REQUIRE(outputs[i].sizes().vec() == fixture::to_shape(expected[i]["shape"]));
      CHECK((outputs[i].scalar_type() == torch::kFloat32));
      const auto values = torch::tensor(fixture::to_values(expected[i]["values"])).view(outputs[i].sizes());
      const double max_abs = (outputs[i] - values).abs().max().item<double>();
      CAPTURE(max_abs);
      CHECK(max_abs <= 1e-3);
    }
  }
}

TEST_CASE("rtmdet: exp_on_reg for m, l, x only; distances in float32") {
  for (const auto& size : kSizes) {
    CAPTURE(size);
    CHECK(size_config(size).exp_on_reg == (size == "m" || size == "l" || size == "x"));
  }
  // exp(12) = 162755 would overflow fp16 (max 65504): the exp is taken in float32.
  const auto big = distances_from_raw(torch::full({1, 4, 1, 1}, 12.0, torch::kHalf), 32, true);
  CHECK((big.scalar_type() == torch::kFloat32));
  CHECK(big[0][0][0][0].item<double>() == doctest::Approx(std::exp(12.0) * 32).epsilon(1e-6));
  const auto linear = distances_from_raw(torch::full({1, 4, 1, 1}, -2.5, torch::kHalf), 8, false);
  CHECK((linear.scalar_type() == torch::kFloat32));
  CHECK(linear[0][3][0][0].item<double>() == doctest::Approx(-20.0));

  torch::NoGradGuard no_grad;
  RtmdetDetector medium("m", 2);
  CHECK(medium.exp_on_reg());
  medium.eval();
  const auto outputs = medium.forward_capturable(torch::rand({1, 3, 64, 64}));
  for (size_t level = 3; level < 6; ++level) CHECK(outputs[level].min().item<double>() > 0.0);
  CHECK_FALSE(RtmdetDetector("s", 2).exp_on_reg());
}

TEST_CASE("rtmdet: output and decode shapes, boxes inside the canvas") {
  torch::NoGradGuard no_grad;
  RtmdetDetector detector("t", 3);
  detector.eval();
  const auto outputs = detector.forward_capturable(torch::rand({2, 3, 96, 64}));
  REQUIRE(outputs.size() == 6);
  CHECK(outputs[0].sizes() == torch::IntArrayRef({2, 3, 12, 8}));
  CHECK(outputs[1].sizes() == torch::IntArrayRef({2, 3, 6, 4}));
  CHECK(outputs[2].sizes() == torch::IntArrayRef({2, 3, 3, 2}));
  CHECK(outputs[3].sizes() == torch::IntArrayRef({2, 4, 12, 8}));
  CHECK(outputs[5].sizes() == torch::IntArrayRef({2, 4, 3, 2}));
  const auto candidates = detector.decode(outputs);
  CHECK(candidates.boxes.sizes() == torch::IntArrayRef({2, 96 + 24 + 6, 4}));
  CHECK(candidates.scores.sizes() == torch::IntArrayRef({2, 126, 3}));
  CHECK(candidates.scores.min().item<float>() >= 0.0f);
  CHECK(candidates.scores.max().item<float>() <= 1.0f);
  CHECK(candidates.boxes.min().item<float>() >= 0.0f);
  CHECK(candidates.boxes.select(2, 2).max().item<float>() <= 64.0f);
  CHECK(candidates.boxes.select(2, 3).max().item<float>() <= 96.0f);
  CHECK_THROWS_AS(detector.decode({outputs.begin(), outputs.begin() + 3}), std::invalid_argument);
}

TEST_CASE("rtmdet: decode of crafted outputs (corner priors, clamp, sigmoid, per-level top-k)") {
  // 64 x 64 input, 2 classes, 2 images: levels 8 x 8, 4 x 4, 2 x 2 (84 priors). All logits -10
  // and all distances 0 unless set below.
  const int64_t nc = 2, nms_pre = 8;
  std::vector<torch::Tensor> outputs;
  for (const int64_t side : {8, 4, 2}) outputs.push_back(torch::full({2, nc, side, side}, -10.0));
  for (const int64_t side : {8, 4, 2}) outputs.push_back(torch::zeros({2, 4, side, side}));
  const auto set_logit = [&](int level, int64_t image, int64_t cls, int64_t cell, float value) {
    const auto side = outputs[level].size(3);
    outputs[level][image][cls][cell / side][cell % side] = value;
  };
  const auto set_distances = [&](int level, int64_t cell, std::vector<float> ltrb) {
    const auto side = outputs[3 + level].size(3);
    for (int64_t k = 0; k < 4; ++k) outputs[3 + level][0][k][cell / side][cell % side] = ltrb[k];
  };
  // Level 0 cell 10 = row 1, col 2: prior (16, 8).
  set_distances(0, 10, {4, 2, 6, 10});
  // Level 1 cell 3 = row 0, col 3: prior (48, 0); y1 -4 and y2 100 are clamped to [0, 64].
  set_distances(1, 3, {1, 4, 2, 100});
  // Level 2 cell 3 = row 1, col 1: prior (32, 32); x1 -8 and x2 82 are clamped.
  set_distances(2, 3, {40, 5, 50, 1});
  // Image 0, level 0: nine (cell, class) pairs above the rest; the lowest of them (-2) is the
  // ninth, so it and everything else at -10 falls out of the top 8.
  const std::vector<std::tuple<int64_t, int64_t, float>> ranked = {
      {10, 1, 4.0f}, {10, 0, 3.0f}, {0, 0, 2.0f}, {63, 1, 1.0f}, {5, 0, 0.5f},
      {7, 1, 0.0f},  {20, 0, -0.5f}, {21, 1, -1.0f}, {22, 0, -2.0f}};
  for (const auto& [cell, cls, logit] : ranked) set_logit(0, 0, cls, cell, logit);
  set_logit(0, 1, 0, 1, 4.0f);  // image 1: one high score, then ties at -10 fill the top 8
  set_logit(2, 0, 0, 3, 0.0f);  // level 2 has 8 pairs <= nms_pre: every score survives

  const auto candidates = decode_outputs(outputs, nc, nms_pre);
  const auto& boxes = candidates.boxes;
  const auto& scores = candidates.scores;
  REQUIRE(boxes.sizes() == torch::IntArrayRef({2, 84, 4}));
  REQUIRE(scores.sizes() == torch::IntArrayRef({2, 84, nc}));
  const auto box = [&](int64_t prior) { return boxes[0][prior]; };
  CHECK(torch::allclose(box(10), torch::tensor({12.0f, 6.0f, 22.0f, 18.0f})));
  CHECK(torch::allclose(box(64 + 3), torch::tensor({47.0f, 0.0f, 50.0f, 64.0f})));
  CHECK(torch::allclose(box(80 + 3), torch::tensor({0.0f, 27.0f, 64.0f, 33.0f})));
  CHECK(torch::allclose(box(80 + 1), torch::tensor({32.0f, 0.0f, 32.0f, 0.0f})));  // zero distances: the corner

  const auto sigmoid = [](double x) { return 1.0 / (1.0 + std::exp(-x)); };
  for (size_t i = 0; i < ranked.size(); ++i) {
    const auto& [cell, cls, logit] = ranked[i];
    CAPTURE(i);
    const double expected = i < static_cast<size_t>(nms_pre) ? sigmoid(logit) : 0.0;
    CHECK(scores[0][cell][cls].item<double>() == doctest::Approx(expected).epsilon(1e-6));
  }
  const auto kept = [&](int64_t image, int64_t begin, int64_t end) {
    return scores[image].slice(0, begin, end).gt(0).sum().item<int64_t>();
  };
  CHECK(kept(0, 0, 64) == nms_pre);
  CHECK(kept(1, 0, 64) == nms_pre);  // exactly k even with ties
  CHECK(scores[1][1][0].item<double>() == doctest::Approx(sigmoid(4.0)).epsilon(1e-6));
  CHECK(kept(0, 64, 80) == nms_pre);
  CHECK(kept(0, 80, 84) == 8);
  CHECK(scores[0][83][0].item<double>() == doctest::Approx(0.5));
  CHECK(scores[0][80][1].item<double>() == doctest::Approx(sigmoid(-10.0)).epsilon(1e-6));
}
