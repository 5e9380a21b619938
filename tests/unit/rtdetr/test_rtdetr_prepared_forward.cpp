// RT-DETR's whole-network training forward (CaptureRegion::network_with_denoising): with the
// denoising queries prepared before the region, unpadded or padded to a fixed count, the
// outputs, the loss and every gradient are the unprepared path's (decoder in
// forward_remainder), given the same noise: the padding changes nothing a real query computes.
#include "../torch_doctest.hpp"

#include <ATen/CPUGeneratorImpl.h>

#include <string>

#include "decoder_outputs.hpp"
#include "../detr/prepared_step_checks.hpp"
#include "libreyolo/sdk/targets.hpp"
#include "rtdetr_criterion.hpp"
#include "rtdetr_detector.hpp"

namespace {

namespace rtdetr = libreyolo::rtdetr;
namespace sdk = libreyolo::sdk;
namespace detr = libreyolo::sdk::detr;

constexpr int64_t kImgsz = 160;
constexpr int64_t kClasses = 3;

enum class Path { unprepared, prepared, padded };

using Step = libreyolo::test::PreparedStep;

Step train_step(const sdk::Targets& targets, Path path) {
  torch::manual_seed(0);
  rtdetr::RtdetrDetector model("r18", kClasses);
  model.train();
  // The same noise on every path: a generator seeded afresh for each draw.
  model.decoder().set_noise_source([](const detr::DenoisingLayout& layout, int64_t batch) {
    return detr::draw_denoising_noise(layout, batch, kClasses, torch::TensorOptions(),
                                      at::detail::createCPUGenerator(7));
  });
  const auto images = torch::rand({2, 3, kImgsz, kImgsz});
  Step step;
  if (path != Path::unprepared) step.key = model.prepare_training_forward(images, targets, path == Path::padded);
  step.outputs = model.forward_remainder(model.forward_capturable(images), &targets);
  CHECK_FALSE(model.decoder().prepared());  // forward_remainder consumed the preparation
  rtdetr::RtdetrLossSettings settings;
  settings.num_classes = kClasses;
  rtdetr::RtdetrCriterion criterion(settings);
  const auto loss = criterion(step.outputs, targets, images).total;
  loss.backward();
  step.loss = loss.item<double>();
  step.grads = libreyolo::test::gradients_by_name(model);
  return step;
}

// Relative to the tensor's largest gradient, with a floor: gradients that are zero in exact
// arithmetic (a BatchNorm bias before another normalisation) are float noise of ~1e-8.
void check_same(const Step& got, const Step& want) { libreyolo::test::check_same_step(got, want, 1e-3); }

}  // namespace

TEST_CASE("RT-DETR: the prepared whole-network forward, padded or not, trains as the unprepared one") {
  // Image 0 three boxes, image 1 one: max_gt 3 -> 33 groups -> 198 denoising queries (2 of padding).
  const auto boxes0 = torch::tensor({1.f, 40.f, 50.f, 30.f, 40.f, 2.f, 110.f, 90.f, 40.f, 20.f, 0.f, 80.f, 120.f,
                                     50.f, 30.f})
                          .view({3, 5});
  const auto boxes1 = torch::tensor({2.f, 60.f, 70.f, 20.f, 60.f}).view({1, 5});
  const auto targets = sdk::pad_targets({boxes0, boxes1}, torch::kCPU);
  const auto want = train_step(targets, Path::unprepared);
  REQUIRE(want.outputs[rtdetr::outputs::dn_logits].size(2) == 198);
  SUBCASE("prepared, unpadded") {
    const auto got = train_step(targets, Path::prepared);
    CHECK(got.key == std::vector<int64_t>{198});
    check_same(got, want);
  }
  SUBCASE("prepared, padded to 2 x num_denoising") {
    const auto got = train_step(targets, Path::padded);
    CHECK(got.key == std::vector<int64_t>{200});
    check_same(got, want);
  }
}

TEST_CASE("RT-DETR: a batch without GT, padded, trains as without denoising") {
  const auto targets = sdk::pad_targets({torch::zeros({0, 5}), torch::zeros({0, 5})}, torch::kCPU);
  const auto want = train_step(targets, Path::unprepared);
  const auto got = train_step(targets, Path::padded);
  CHECK(got.key == std::vector<int64_t>{200});  // the same graph as a batch with GT
  CHECK_FALSE(got.outputs[rtdetr::outputs::dn_logits].defined());
  check_same(got, want);
}
