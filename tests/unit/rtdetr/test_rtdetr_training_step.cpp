// RT-DETR training steps on the CPU: a batch without any GT must train (no denoising queries,
// every query a negative), a batch with GT trains with denoising, and the criterion's
// components add up to its total.

#include "../torch_doctest.hpp"

#include "decoder_outputs.hpp"
#include "libreyolo/sdk/targets.hpp"
#include "rtdetr_criterion.hpp"
#include "rtdetr_detector.hpp"

namespace {

namespace rtdetr = libreyolo::rtdetr;
namespace sdk = libreyolo::sdk;

constexpr int64_t kImgsz = 160;  // 525 encoder positions: enough for 300 queries
constexpr int64_t kClasses = 3;

struct Step {
  sdk::LossOutput loss;
  std::vector<torch::Tensor> outputs;
  bool every_trainable_grad_finite = true;
  int64_t parameters_with_grad = 0;
};

Step train_step(const sdk::Targets& targets) {
  torch::manual_seed(0);
  rtdetr::RtdetrDetector model("r18", kClasses);
  model.train();
  const auto images = torch::rand({2, 3, kImgsz, kImgsz});
  Step step;
  step.outputs = model.forward_remainder(model.forward_capturable(images), &targets);
  rtdetr::RtdetrLossSettings settings;
  settings.num_classes = kClasses;
  rtdetr::RtdetrCriterion criterion(settings);
  step.loss = criterion(step.outputs, targets, images);
  step.loss.total.backward();
  for (const auto& p : model.parameters()) {
    if (!p.requires_grad() || !p.grad().defined()) continue;
    ++step.parameters_with_grad;
    if (!torch::isfinite(p.grad()).all().item<bool>()) step.every_trainable_grad_finite = false;
  }
  return step;
}

}  // namespace

TEST_CASE("RT-DETR: a batch without any GT trains (no denoising, finite loss and gradients)") {
  const auto targets = sdk::pad_targets({torch::zeros({0, 5}), torch::zeros({0, 5})}, torch::kCPU);
  const auto step = train_step(targets);
  CHECK_FALSE(step.outputs[rtdetr::outputs::dn_logits].defined());
  CHECK(std::isfinite(step.loss.total.item<double>()));
  CHECK(step.loss.total.item<double>() > 0.0);  // every query is a negative for VFL
  for (const auto& [name, value] : step.loss.components) {
    INFO(name);
    if (name != "vfl") CHECK(value.item<double>() == 0.0);  // nothing matched: no box terms
  }
  CHECK(step.every_trainable_grad_finite);
  CHECK(step.parameters_with_grad > 0);
}

TEST_CASE("RT-DETR: a batch with GT trains with denoising; the components add up to the total") {
  // One image with two boxes, one with none (pixels of the input: class, cx, cy, w, h).
  const auto boxes = torch::tensor({1.f, 40.f, 50.f, 30.f, 40.f, 2.f, 110.f, 90.f, 40.f, 20.f}).view({2, 5});
  const auto targets = sdk::pad_targets({boxes, torch::zeros({0, 5})}, torch::kCPU);
  const auto step = train_step(targets);
  const auto& dn = step.outputs[rtdetr::outputs::dn_logits];
  REQUIRE(dn.defined());
  CHECK(dn.size(2) == 2 * 2 * (100 / 2));  // 2 x max_gt queries per group, 100 / max_gt groups
  double sum = 0;
  for (const auto& [name, value] : step.loss.components) {
    INFO(name);
    CHECK(value.item<double>() > 0.0);
    sum += value.item<double>();
  }
  CHECK(step.loss.total.item<double>() == doctest::Approx(sum).epsilon(1e-6));
  CHECK(step.every_trainable_grad_finite);
}
