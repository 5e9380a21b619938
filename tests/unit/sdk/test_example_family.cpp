// The SDK contract end to end on CPU, through a real plugin: load the example family,
// build its detector and criterion, run the split forward, decode, and train a few steps.
#include "../torch_doctest.hpp"

#include "libreyolo/core/plugins/plugin_loader.hpp"
#include "libreyolo/sdk/sdk.hpp"
#include "support/test_paths.hpp"

using namespace libreyolo;

TEST_CASE("padded targets and their validity mask") {
  auto targets = sdk::pad_targets({torch::tensor({{1.f, 10.f, 10.f, 4.f, 4.f}}).view({1, 5}),
                                   torch::zeros({0, 5}),
                                   torch::tensor({{0.f, 5.f, 5.f, 2.f, 2.f}, {2.f, 8.f, 8.f, 2.f, 2.f}})},
                                  torch::kCPU);
  CHECK(targets.boxes.sizes() == torch::IntArrayRef({3, 2, 5}));
  CHECK(targets.counts.equal(torch::tensor({1, 0, 2}, torch::kLong)));
  const auto mask = sdk::valid_mask(targets);
  CHECK(mask.equal(torch::tensor({true, false, false, false, true, true}).view({3, 2})));
  CHECK(targets.boxes[1].abs().sum().item<float>() == 0.f);
}

namespace {

// CPU always; CUDA too when this machine has a GPU (the GPU machine runs the same tests).
std::vector<torch::Device> test_devices() {
  std::vector<torch::Device> devices{torch::kCPU};
  if (torch::cuda::is_available()) devices.emplace_back(torch::kCUDA, 0);
  return devices;
}

}  // namespace

TEST_CASE("the example family trains through the SDK contract") {
  for (const auto& device : test_devices()) {
    CAPTURE(device);
    torch::manual_seed(0);
    const auto registry = core::plugins::load_plugins({libreyolo::test_paths::family_dir()});
    const auto& family = *registry.require("example").family;
    const int num_classes = 3;
    auto detector = family.create_detector({"n", num_classes, 64});
    auto criterion = family.create_criterion(*detector, {num_classes, 64});
    detector->to(device);

    const auto images = torch::rand({2, 3, 64, 64}).to(device);
    const auto targets = sdk::pad_targets(
        {torch::tensor({{0.f, 20.f, 20.f, 16.f, 12.f}, {2.f, 44.f, 40.f, 10.f, 20.f}}),
         torch::tensor({{1.f, 32.f, 32.f, 30.f, 30.f}})},
        device);

    auto features = detector->forward_capturable(images);
    REQUIRE(features.size() == 1);
    CHECK(features[0].sizes() == torch::IntArrayRef({2, 5 + num_classes, 8, 8}));
    auto outputs = detector->forward_remainder(features, &targets);
    const auto candidates = detector->decode(outputs);
    CHECK(candidates.boxes.sizes() == torch::IntArrayRef({2, 64, 4}));
    CHECK(candidates.scores.sizes() == torch::IntArrayRef({2, 64, num_classes}));
    CHECK(candidates.scores.min().item<float>() >= 0.f);
    CHECK(candidates.scores.max().item<float>() <= 1.f);

    const auto names = criterion->component_names();
    CHECK((names == std::vector<std::string>{"box", "obj", "cls"}));

    torch::optim::Adam optimizer(detector->parameters(), torch::optim::AdamOptions(0.01));
    float first = 0, last = 0;
    for (int step = 0; step < 30; ++step) {
      optimizer.zero_grad();
      auto loss = (*criterion)(detector->forward_remainder(detector->forward_capturable(images), &targets),
                               targets, images);
      REQUIRE(loss.components.size() == 3);
      loss.total.backward();
      optimizer.step();
      (step == 0 ? first : last) = loss.total.item<float>();
    }
    CHECK(std::isfinite(last));
    CHECK(last < 0.5f * first);  // it learns the fixed batch
  }
}
