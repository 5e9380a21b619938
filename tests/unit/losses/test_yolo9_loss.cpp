// The YOLOv9 criterion (plugins/yolo9/yolo9_loss.cpp) on raw head outputs laid out as
// LibreYOLO's DDetect returns them in training: per level [B, 4*reg_max + nc, H, W].
#include "../torch_doctest.hpp"

#include <libreyolo/sdk/targets.hpp>

#include "yolo9_loss.hpp"

#include <vector>

namespace {

constexpr int kClasses = 3;
constexpr int kRegMax = 16;

// Raw outputs for a 64 x 64 input (levels 8 x 8, 4 x 4, 2 x 2: 84 anchors), leaf tensors.
std::vector<torch::Tensor> random_outputs(int64_t batch, uint64_t seed) {
  torch::manual_seed(seed);
  std::vector<torch::Tensor> outputs;
  for (int64_t size : {8, 4, 2})
    outputs.push_back(torch::randn({batch, 4 * kRegMax + kClasses, size, size}).requires_grad_(true));
  return outputs;
}

libreyolo::sdk::Targets some_targets() {
  // Image 0: two boxes (class, cx, cy, w, h in pixels); image 1: none; image 2: one big box.
  return libreyolo::sdk::pad_targets({torch::tensor({0.f, 20.f, 20.f, 24.f, 16.f, 2.f, 40.f, 44.f, 30.f, 36.f})
                                          .view({2, 5}),
                                      torch::zeros({0, 5}),
                                      torch::tensor({1.f, 32.f, 32.f, 60.f, 56.f}).view({1, 5})},
                                     torch::kCPU);
}

float value(const libreyolo::sdk::LossOutput& out, const std::string& name) {
  for (const auto& [key, tensor] : out.components)
    if (key == name) return tensor.item<float>();
  FAIL("no component " << name);
  return 0.0f;
}

}  // namespace

TEST_CASE("yolo9 criterion: finite loss, LibreYOLO's component names, gradients reach every level") {
  auto criterion = libreyolo::families::yolo9::make_yolo9_criterion(kClasses, kRegMax, {8, 16, 32});
  CHECK(criterion->component_names() == std::vector<std::string>{"box", "cls", "dfl"});
  auto outputs = random_outputs(3, 1);
  const auto images = torch::zeros({3, 3, 64, 64});
  const auto out = (*criterion)(outputs, some_targets(), images);
  REQUIRE(out.total.dim() == 0);
  CHECK((out.total.scalar_type() == torch::kFloat32));
  CHECK(std::isfinite(out.total.item<float>()));
  REQUIRE(out.components.size() == 3);
  CHECK(value(out, "box") > 0.0f);
  CHECK(value(out, "cls") > 0.0f);
  CHECK(value(out, "dfl") > 0.0f);
  CHECK(out.total.item<float>() ==
        doctest::Approx(value(out, "box") + value(out, "cls") + value(out, "dfl")).epsilon(1e-5));
  for (const auto& [name, tensor] : out.components) CHECK_FALSE(tensor.requires_grad());
  out.total.backward();
  for (const auto& level : outputs) {
    REQUIRE(level.grad().defined());
    CHECK(torch::isfinite(level.grad()).all().item<bool>());
    // Box channels and class channels both receive gradient.
    CHECK(level.grad().narrow(1, 4 * kRegMax, kClasses).abs().sum().item<float>() > 0.0f);
  }
  CHECK(outputs[0].grad().narrow(1, 0, 4 * kRegMax).abs().sum().item<float>() > 0.0f);
}

TEST_CASE("yolo9 criterion: a batch without any boxes") {
  auto criterion = libreyolo::families::yolo9::make_yolo9_criterion(kClasses, kRegMax, {8, 16, 32});
  auto outputs = random_outputs(2, 2);
  const auto targets = libreyolo::sdk::pad_targets({torch::zeros({0, 5}), torch::zeros({0, 5})}, torch::kCPU);
  const auto out = (*criterion)(outputs, targets, torch::zeros({2, 3, 64, 64}));
  CHECK(std::isfinite(out.total.item<float>()));
  CHECK(value(out, "box") == 0.0f);
  CHECK(value(out, "dfl") == 0.0f);
  CHECK(value(out, "cls") > 0.0f);  // every anchor is background: BCE against 0, divided by max(0, 1)
  out.total.backward();
  CHECK(torch::isfinite(outputs[1].grad()).all().item<bool>());
  CHECK(outputs[1].grad().narrow(1, 0, 4 * kRegMax).abs().sum().item<float>() == 0.0f);
}

TEST_CASE("yolo9 criterion: optimising the raw predictions lowers the loss") {
  auto criterion = libreyolo::families::yolo9::make_yolo9_criterion(kClasses, kRegMax, {8, 16, 32});
  auto outputs = random_outputs(3, 3);
  const auto targets = some_targets();
  const auto images = torch::zeros({3, 3, 64, 64});
  torch::optim::Adam adam(outputs, torch::optim::AdamOptions(0.05));
  float first = 0.0f, last = 0.0f;
  for (int step = 0; step < 40; ++step) {
    adam.zero_grad();
    const auto out = (*criterion)(outputs, targets, images);
    out.total.backward();
    adam.step();
    (step == 0 ? first : last) = out.total.item<float>();
  }
  INFO("first ", first, " last ", last);
  CHECK(std::isfinite(last));
  CHECK(last < 0.5f * first);
}

TEST_CASE("yolo9 criterion: rejects outputs of the wrong layout") {
  auto criterion = libreyolo::families::yolo9::make_yolo9_criterion(kClasses, kRegMax, {8, 16, 32});
  std::vector<torch::Tensor> wrong = {torch::zeros({1, 10, 8, 8}), torch::zeros({1, 10, 4, 4}),
                                      torch::zeros({1, 10, 2, 2})};
  CHECK_THROWS((*criterion)(wrong, some_targets(), torch::zeros({1, 3, 64, 64})));
  CHECK_THROWS((*criterion)({torch::zeros({1, 67, 8, 8})}, some_targets(), torch::zeros({1, 3, 64, 64})));
}

TEST_CASE("yolo9 criterion: hand-checked values on a crafted single-level prediction") {
  // One level, stride 8, input 32 x 32: 4 x 4 anchors at (8 col + 4, 8 row + 4); one class.
  // Every anchor predicts, per side, a distribution on bins 0 and 1 only (side-major channels:
  // channel = side * 16 + bin), with P(bin 1) = f: l 0.5, t 0.25, r 0.75, b 0.5 strides, i.e.
  // 4, 2, 6, 4 px. Anchor 5 at (12, 12) therefore predicts [8, 10, 18, 16], and the one gt is
  // exactly that box (cx 13, cy 13, w 10, h 6). It contains no other anchor point, so anchor 5
  // is the only positive, with IoU 1 and target score ~1 (metric / max metric * max IoU).
  //   box = 7.5 * (1 - CIoU) ~ 0.
  //   dfl = 1.5 * mean over sides of CE against the same two-bin split = the entropy
  //         H(f) = -(f ln f + (1-f) ln(1-f)): H(0.5) = 0.693147, H(0.25) = H(0.75) = 0.562335,
  //         mean 0.627741 -> dfl = 0.941612.
  //   cls = 0.5 * sum of BCE(logit 0, y) over 16 anchors = 0.5 * 16 ln 2 = 5.545177 (BCE at logit 0
  //         is ln 2 whatever the target), divided by the target-score sum, 1.
  auto criterion = libreyolo::families::yolo9::make_yolo9_criterion(1, kRegMax, {8});
  auto raw = torch::full({1, 4 * kRegMax + 1, 4, 4}, -1e4f);
  const float f[4] = {0.5f, 0.25f, 0.75f, 0.5f};
  for (int side = 0; side < 4; ++side) {
    raw.narrow(1, side * kRegMax, 1).fill_(std::log(1.0f - f[side]));
    raw.narrow(1, side * kRegMax + 1, 1).fill_(std::log(f[side]));
  }
  raw.narrow(1, 4 * kRegMax, 1).fill_(0.0f);
  const auto targets =
      libreyolo::sdk::pad_targets({torch::tensor({0.f, 13.f, 13.f, 10.f, 6.f}).view({1, 5})}, torch::kCPU);
  const auto out = (*criterion)({raw}, targets, torch::zeros({1, 3, 32, 32}));
  CHECK(value(out, "box") == doctest::Approx(0.0).epsilon(1e-4).scale(1.0));
  CHECK(value(out, "dfl") == doctest::Approx(1.5 * 0.627741).epsilon(1e-4));
  CHECK(value(out, "cls") == doctest::Approx(0.5 * 16 * std::log(2.0)).epsilon(1e-4));
}

// Whole-step capture (issue #21) replays one graph for every batch, so the targets must have one
// shape: padded to a fixed capacity instead of the batch's largest count. The criterion must not
// notice the extra all-zero rows beyond counts[b].
TEST_CASE("yolo9 criterion: targets padded to a larger capacity give the same loss and gradients") {
  auto criterion = libreyolo::families::yolo9::make_yolo9_criterion(kClasses, kRegMax, {8, 16, 32});
  const auto images = torch::zeros({3, 3, 64, 64});
  const auto tight = some_targets();
  auto wide = tight;
  wide.boxes = torch::constant_pad_nd(tight.boxes, {0, 0, 0, 13});  // [3, 2, 5] -> [3, 15, 5]
  REQUIRE(wide.max_boxes() == 15);
  auto a = random_outputs(3, 5), b = random_outputs(3, 5);
  const auto out_a = (*criterion)(a, tight, images), out_b = (*criterion)(b, wide, images);
  CHECK(out_b.total.item<float>() == doctest::Approx(out_a.total.item<float>()).epsilon(1e-6));
  for (const char* name : {"box", "cls", "dfl"})
    CHECK(value(out_b, name) == doctest::Approx(value(out_a, name)).epsilon(1e-6));
  out_a.total.backward();
  out_b.total.backward();
  for (size_t level = 0; level < a.size(); ++level)
    CHECK(torch::allclose(a[level].grad(), b[level].grad(), 1e-5, 1e-7));
  MESSAGE("bitwise equal: ", torch::equal(out_a.total, out_b.total));
}

TEST_CASE("yolo9 criterion: float16 outputs give the loss of their float32 values, and its gradients cast back") {
  // The criterion casts the concatenated outputs once (yolo9_loss.cpp); the values and gradients
  // must be those of casting each level, i.e. of float32 outputs holding the float16 values.
  auto criterion = libreyolo::families::yolo9::make_yolo9_criterion(kClasses, kRegMax, {8, 16, 32});
  const auto images = torch::zeros({3, 3, 64, 64});
  std::vector<torch::Tensor> half, single;
  for (const auto& level : random_outputs(3, 9)) {
    half.push_back(level.detach().to(torch::kHalf).requires_grad_(true));
    single.push_back(half.back().detach().to(torch::kFloat32).requires_grad_(true));
  }
  const auto from_half = (*criterion)(half, some_targets(), images);
  const auto from_single = (*criterion)(single, some_targets(), images);
  CHECK(torch::equal(from_half.total, from_single.total));
  from_half.total.backward();
  from_single.total.backward();
  for (size_t i = 0; i < half.size(); ++i) {
    CHECK((half[i].grad().scalar_type() == torch::kHalf));
    CHECK(torch::equal(half[i].grad(), single[i].grad().to(torch::kHalf)));
  }
}
