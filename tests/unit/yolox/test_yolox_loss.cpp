// The YOLOX criterion (plugins/yolox/yolox_loss.cpp) against LibreYOLO's YOLOXHead.get_losses
// (tests/fixtures/yolox/reference_loss.json), the L1 switch driven by the detector's epoch
// notifications, and the behaviour a trainer relies on (gradients, empty images).
#include "../torch_doctest.hpp"

#include <libreyolo/sdk/targets.hpp>

#include "libreyolo/core/plugins/plugin_loader.hpp"
#include "libreyolo/core/trainer/epoch_schedule.hpp"

#include <map>
#include <string>
#include <vector>

#include "yolox_detector.hpp"
#include "yolox_fixture.hpp"
#include "yolox_loss.hpp"
#include "support/test_paths.hpp"

using namespace libreyolo::families::yolox;
namespace fixture = libreyolo::test::yolox;
namespace sdk = libreyolo::sdk;

namespace {

// Forwards the schedule's detector events to a YOLOX detector and records the rest.
class ForwardingTarget : public libreyolo::core::trainer::ScheduleTarget {
 public:
  explicit ForwardingTarget(YoloxDetector& detector) : detector_(detector) {}
  void switch_augmentation(const std::string& name) override { pipeline = name; }
  void set_multi_scale(bool) override {}
  void set_ema_decay(double) override {}
  void detector_event(const std::string& event) override { detector_.on_scheduled_change(event); }
  void captured_region_changed(const std::string& reason) override { capture_changes.push_back(reason); }

  std::string pipeline;
  std::vector<std::string> capture_changes;

 private:
  YoloxDetector& detector_;
};

std::map<std::string, double> components(const sdk::LossOutput& out) {
  std::map<std::string, double> values{{"total", out.total.item<double>()}};
  for (const auto& [name, tensor] : out.components) values[name] = tensor.item<double>();
  return values;
}

// LibreYOLO's get_losses keys -> ours; within 1e-4 relative (absolute 1e-6 for a zero l1).
void check_against(const std::map<std::string, double>& actual, const fixture::Json& expected) {
  const std::pair<const char*, const char*> names[] = {
      {"total", "total_loss"}, {"iou", "iou_loss"}, {"obj", "obj_loss"}, {"cls", "cls_loss"}, {"l1", "l1_loss"}};
  for (const auto& [ours, theirs] : names) {
    CAPTURE(ours);
    CHECK(actual.at(ours) == doctest::Approx(expected[theirs].number).epsilon(1e-4).scale(1e-2));
  }
}

std::shared_ptr<L1Switch> l1_switch(bool on) {
  auto state = std::make_shared<L1Switch>();
  state->on = on;
  return state;
}

}  // namespace

TEST_CASE("yolox criterion: equals LibreYOLO's loss on crafted head outputs, without and with L1") {
  const auto reference = fixture::read_fixture("reference_loss.json");
  if (!reference) {
    MESSAGE("no reference_loss.json: run tests/python/yolox_reference_keys.py to compare with LibreYOLO");
    return;
  }
  const auto& crafted = (*reference)["crafted"];
  const auto nc = static_cast<int64_t>(crafted["num_classes"].number);
  const auto imgsz = static_cast<int64_t>(crafted["imgsz"].number);
  const auto targets = fixture::crafted_targets(crafted);
  const auto images = torch::zeros({targets.batch_size(), 3, imgsz, imgsz});
  for (const bool on : {false, true}) {
    CAPTURE(on);
    const auto criterion = make_yolox_criterion(nc, l1_switch(on));
    const auto values = components((*criterion)(fixture::crafted_raw_outputs(crafted), targets, images));
    check_against(values, crafted[on ? "l1" : "no_l1"]);
    MESSAGE("crafted, l1 " << on << ": total " << values.at("total") << " (LibreYOLO "
                           << crafted[on ? "l1" : "no_l1"]["total_loss"].number << ")");
  }
}

TEST_CASE("yolox criterion: a whole yolox-n in training mode gives LibreYOLO's loss") {
  const auto reference = fixture::read_fixture("reference_loss.json");
  if (!reference) return;
  const auto& network = (*reference)["network"];
  const auto nc = static_cast<int64_t>(network["num_classes"].number);
  const auto imgsz = static_cast<int64_t>(network["imgsz"].number);
  const auto targets = fixture::crafted_targets(network);
  const int64_t batch = targets.batch_size();
  YoloxDetector detector(network["size"].text, nc);
  fixture::fill_deterministic(detector);
  detector.train();  // BatchNorm on batch statistics, as LibreYOLO's training forward
  const auto images = (0.5 + 0.5 * fixture::pattern(batch * 3 * imgsz * imgsz, 1000)).view({batch, 3, imgsz, imgsz}) *
                      network["input_scale"].number;
  torch::NoGradGuard no_grad;
  const auto outputs = detector.forward_capturable(images);
  for (const bool on : {false, true}) {
    CAPTURE(on);
    const auto criterion = make_yolox_criterion(nc, l1_switch(on));
    check_against(components((*criterion)(outputs, targets, images)), network[on ? "l1" : "no_l1"]);
  }
}

TEST_CASE("yolox: gradients of a whole yolox-n and its loss match LibreYOLO's") {
  const auto reference = fixture::read_fixture("reference_loss.json");
  if (!reference || !(*reference)["network"].has("gradients")) return;
  const auto& network = (*reference)["network"];
  const auto nc = static_cast<int64_t>(network["num_classes"].number);
  const auto imgsz = static_cast<int64_t>(network["imgsz"].number);
  const auto targets = fixture::crafted_targets(network);
  const int64_t batch = targets.batch_size();
  YoloxDetector detector(network["size"].text, nc);
  fixture::fill_deterministic(detector);
  detector.train();
  detector.on_scheduled_change(kL1LossOn);  // the no-augmentation phase: L1 on, as in the Python run
  const auto criterion = make_yolox_criterion(nc, detector.l1_switch());
  const auto images = (0.5 + 0.5 * fixture::pattern(batch * 3 * imgsz * imgsz, 1000)).view({batch, 3, imgsz, imgsz}) *
                      network["input_scale"].number;
  (*criterion)(detector.forward_capturable(images), targets, images).total.backward();
  const auto parameters = detector.named_parameters();
  for (const auto& [name, expected] : network["gradients"].fields) {
    CAPTURE(name);
    REQUIRE(parameters.contains(name));
    // 1e-3, elements at the tensor's scale (its largest magnitude): a gradient deep in the
    // network carries the rounding of every convolution above it, so between BLAS and
    // convolution libraries (the fixture's torch 1.13 with the reference libblas3, OpenBLAS,
    // LibTorch 2.11 on CPU and CUDA) a small element of a tensor with large ones moves by more
    // than 1e-3 of itself (up to 8e-3 absolute where the tensor reaches beyond 1, measured on the
    // GPU machine and with OpenBLAS, 2026-12-01) while the tensor's sums agree within 1e-3.
    fixture::check_summary(parameters[name].grad(), expected, "gradient of " + name, 1e-3,
                           /*elements_at_tensor_scale=*/true);
  }
}

TEST_CASE("yolox: the recipe's schedule turns the L1 loss on at the first epoch without augmentation, once") {
  // LibreYOLO's trainer switches head.use_l1 on at epoch epochs - no_aug_epochs (0-based): with
  // 20 epochs and its no_aug_epochs 15, at epoch 5. The family declares it in its recipe's epoch
  // schedule, which the trainer applies through libreyolo::core::trainer::EpochSchedule.
  const int epochs = 20, no_aug_epochs = 15;
  const auto registry = libreyolo::core::plugins::load_plugins({libreyolo::test_paths::family_dir()});
  const auto recipe = registry.require("yolox").family->recipe("n");
  const auto option = [&](const std::string& name) -> long long {
    REQUIRE(name == "no_aug_epochs");
    return no_aug_epochs;
  };
  auto detector = std::make_shared<YoloxDetector>("n", 3);
  const auto criterion = make_yolox_criterion(3, detector->l1_switch());
  const auto targets = sdk::pad_targets({fixture::box_rows({1.f, 20, 24, 16, 20})}, torch::kCPU);
  const auto images = torch::rand({1, 3, 64, 64}) * 255;
  torch::NoGradGuard no_grad;
  detector->eval();
  const auto outputs = detector->forward_capturable(images);
  ForwardingTarget target(*detector);
  libreyolo::core::trainer::EpochSchedule schedule(recipe.schedule, epochs, option);
  for (int epoch = 0; epoch < epochs; ++epoch) {
    CAPTURE(epoch);
    const auto lines = schedule.apply_due(epoch, target);
    const bool expect_l1 = epoch >= 5;
    CHECK(detector->use_l1() == expect_l1);
    CHECK(target.pipeline == (expect_l1 ? "no_mosaic" : ""));
    CHECK(target.capture_changes.size() == (expect_l1 ? 1u : 0u));  // declared once, at epoch 5
    const auto values = components((*criterion)(outputs, targets, images));
    CHECK((values.at("l1") > 0.0) == expect_l1);
    if (epoch == 5) {
      REQUIRE(lines.size() == 1);
      CHECK(lines[0].find("epoch 6/20: mosaic and mixup off, L1 loss on") == 0);
      CHECK(target.capture_changes[0].find("epoch 6") != std::string::npos);
    } else {
      CHECK(lines.empty());
    }
  }
  // A run resumed inside the no-aug phase switches before its first epoch.
  auto resumed = std::make_shared<YoloxDetector>("n", 3);
  ForwardingTarget resumed_target(*resumed);
  libreyolo::core::trainer::EpochSchedule resumed_schedule(recipe.schedule, epochs, option);
  const auto lines = resumed_schedule.apply_due(12, resumed_target);
  CHECK(resumed->use_l1());
  REQUIRE(lines.size() == 1);
  CHECK(lines[0].find("applied on resuming at epoch 13") != std::string::npos);
}

TEST_CASE("yolox criterion: gradients reach every level and channel group; empty images are fine") {
  torch::manual_seed(3);
  const int64_t nc = 4;
  std::vector<torch::Tensor> outputs;
  for (const int64_t side : {8, 4, 2}) outputs.push_back((torch::randn({3, 5 + nc, side, side}) * 0.5).requires_grad_(true));
  const auto targets = sdk::pad_targets({fixture::box_rows({0.f, 20, 20, 24, 16, 3.f, 40, 44, 30, 36}),
                                         torch::zeros({0, 5}), fixture::box_rows({1.f, 32, 32, 60, 56})},
                                        torch::kCPU);
  const auto criterion = make_yolox_criterion(nc, l1_switch(true));
  CHECK(criterion->component_names() == std::vector<std::string>{"iou", "obj", "cls", "l1"});
  const auto out = (*criterion)(outputs, targets, torch::zeros({3, 3, 64, 64}));
  REQUIRE(out.total.dim() == 0);
  CHECK((out.total.scalar_type() == torch::kFloat32));
  const auto values = components(out);
  CHECK(values.at("total") == doctest::Approx(values.at("iou") + values.at("obj") + values.at("cls") + values.at("l1")));
  for (const char* name : {"iou", "obj", "cls", "l1"}) CHECK(values.at(name) > 0.0);
  out.total.backward();
  for (const auto& level : outputs) {
    REQUIRE(level.grad().defined());
    CHECK(torch::isfinite(level.grad()).all().item<bool>());
    CHECK(level.grad().narrow(1, 4, 1).abs().sum().item<float>() > 0.0f);  // objectness: every anchor
  }
  const auto g = outputs[0].grad();
  CHECK(g.narrow(1, 0, 4).abs().sum().item<float>() > 0.0f);  // box (IoU and L1)
  CHECK(g.narrow(1, 5, nc).abs().sum().item<float>() > 0.0f);  // classes
  // The image without boxes: only objectness (pushed towards background) gets gradient.
  CHECK(g[1].narrow(0, 0, 4).abs().sum().item<float>() == 0.0f);
  CHECK(g[1].narrow(0, 5, nc).abs().sum().item<float>() == 0.0f);
  CHECK((g[1][4] > 0).all().item<bool>());

  // A batch without any box: objectness alone, normalised by max(num_fg, 1) = 1.
  std::vector<torch::Tensor> empty_outputs;
  for (const auto& level : outputs) empty_outputs.push_back(level.detach().requires_grad_(true));
  const auto none = sdk::pad_targets({torch::zeros({0, 5}), torch::zeros({0, 5}), torch::zeros({0, 5})}, torch::kCPU);
  const auto empty = components((*criterion)(empty_outputs, none, torch::zeros({3, 3, 64, 64})));
  CHECK(empty.at("iou") == 0.0);
  CHECK(empty.at("cls") == 0.0);
  CHECK(empty.at("l1") == 0.0);
  CHECK(empty.at("obj") > 0.0);
}

TEST_CASE("yolox criterion: optimising raw outputs lowers the loss") {
  torch::manual_seed(5);
  std::vector<torch::Tensor> outputs;
  for (const int64_t side : {8, 4, 2}) outputs.push_back((torch::randn({2, 7, side, side}) * 0.3).requires_grad_(true));
  const auto targets = sdk::pad_targets({fixture::box_rows({0.f, 20, 20, 24, 16}),
                                         fixture::box_rows({1.f, 40, 36, 30, 40})},
                                        torch::kCPU);
  const auto criterion = make_yolox_criterion(2, l1_switch(true));
  torch::optim::SGD optimizer(outputs, torch::optim::SGDOptions(0.05).momentum(0.9));
  const auto images = torch::zeros({2, 3, 64, 64});
  const double first = (*criterion)(outputs, targets, images).total.item<double>();
  for (int step = 0; step < 60; ++step) {
    optimizer.zero_grad();
    (*criterion)(outputs, targets, images).total.backward();
    optimizer.step();
  }
  const double last = (*criterion)(outputs, targets, images).total.item<double>();
  MESSAGE("loss " << first << " -> " << last);
  CHECK(last < 0.5 * first);
}

TEST_CASE("yolox criterion: rejects outputs of the wrong layout") {
  const auto criterion = make_yolox_criterion(3, nullptr);
  const auto targets = sdk::pad_targets({torch::zeros({0, 5})}, torch::kCPU);
  std::vector<torch::Tensor> wrong{torch::zeros({1, 9, 8, 8}), torch::zeros({1, 9, 4, 4}), torch::zeros({1, 9, 2, 2})};
  CHECK_THROWS((*criterion)(wrong, targets, torch::zeros({1, 3, 64, 64})));
  wrong.pop_back();
  CHECK_THROWS((*criterion)(wrong, targets, torch::zeros({1, 3, 64, 64})));
}

// Whole-step capture (issue #21) needs targets of one shape for every batch: padded to a fixed
// capacity. Rows beyond counts[b] are padding and must change nothing.
TEST_CASE("yolox criterion: targets padded to a larger capacity give the same loss and gradients") {
  torch::manual_seed(4);
  const int64_t nc = 4;
  std::vector<torch::Tensor> a, b;
  for (const int64_t side : {8, 4, 2}) {
    a.push_back((torch::randn({3, 5 + nc, side, side}) * 0.5).requires_grad_(true));
    b.push_back(a.back().detach().clone().requires_grad_(true));
  }
  const auto tight = sdk::pad_targets({fixture::box_rows({0.f, 20, 20, 24, 16, 3.f, 40, 44, 30, 36}),
                                       torch::zeros({0, 5}), fixture::box_rows({1.f, 32, 32, 60, 56})},
                                      torch::kCPU);
  auto wide = tight;
  wide.boxes = torch::constant_pad_nd(tight.boxes, {0, 0, 0, 13});
  REQUIRE(wide.max_boxes() == 15);
  const auto criterion = make_yolox_criterion(nc, l1_switch(true));
  const auto out_a = (*criterion)(a, tight, torch::zeros({3, 3, 64, 64}));
  const auto out_b = (*criterion)(b, wide, torch::zeros({3, 3, 64, 64}));
  const auto va = components(out_a), vb = components(out_b);
  for (const char* name : {"total", "iou", "obj", "cls", "l1"}) CHECK(vb.at(name) == doctest::Approx(va.at(name)).epsilon(1e-6));
  out_a.total.backward();
  out_b.total.backward();
  for (size_t level = 0; level < a.size(); ++level) CHECK(torch::allclose(a[level].grad(), b[level].grad(), 1e-5, 1e-7));
  MESSAGE("bitwise equal: ", torch::equal(out_a.total, out_b.total));
}

TEST_CASE("yolox criterion: float16 outputs give the loss of their float32 values, and its gradients cast back") {
  // The criterion casts the concatenated outputs once and splits them (yolox_loss.cpp); the values
  // and gradients must be those of casting each level, i.e. of float32 outputs holding the
  // float16 values, L1 term included.
  torch::manual_seed(9);
  const int64_t nc = 4;
  const auto targets = sdk::pad_targets({fixture::box_rows({0.f, 20, 20, 24, 16, 3.f, 40, 44, 30, 36}),
                                         torch::zeros({0, 5}), fixture::box_rows({1.f, 32, 32, 60, 56})},
                                        torch::kCPU);
  const auto criterion = make_yolox_criterion(nc, l1_switch(true));
  std::vector<torch::Tensor> half, single;
  for (const int64_t side : {8, 4, 2}) {
    half.push_back((torch::randn({3, 5 + nc, side, side}) * 0.5).to(torch::kHalf).requires_grad_(true));
    single.push_back(half.back().detach().to(torch::kFloat32).requires_grad_(true));
  }
  const auto from_half = (*criterion)(half, targets, torch::zeros({3, 3, 64, 64}));
  const auto from_single = (*criterion)(single, targets, torch::zeros({3, 3, 64, 64}));
  CHECK(torch::equal(from_half.total, from_single.total));
  CHECK(components(from_half).at("l1") > 0.0);
  from_half.total.backward();
  from_single.total.backward();
  for (size_t i = 0; i < half.size(); ++i) {
    CHECK((half[i].grad().scalar_type() == torch::kHalf));
    CHECK(torch::equal(half[i].grad(), single[i].grad().to(torch::kHalf)));
  }
}
