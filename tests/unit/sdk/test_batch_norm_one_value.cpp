// sdk::BatchNorm2d with one value per channel in training (batch=1 at an image size that leaves
// 1x1 maps): the user's setting, so a UserError that says what to change, not PyTorch's check,
// which the host reports as a bug. Evaluation, and two values or more, run as before.
#include "../torch_doctest.hpp"

#include <string>

#include "libreyolo/sdk/batch_norm.hpp"
#include "libreyolo/sdk/user_error.hpp"

namespace sdk = libreyolo::sdk;

TEST_CASE("a training BatchNorm given one value per channel throws a UserError naming batch and imgsz") {
  sdk::BatchNorm2d layer(torch::nn::BatchNorm2dOptions(8).eps(1e-3).momentum(0.03));
  layer->train();
  const auto one_value = torch::randn({1, 8, 1, 1});
  std::string what_to_do, what_happened;
  try {
    layer(one_value);
  } catch (const sdk::UserError& e) {
    what_happened = e.what_happened();
    what_to_do = e.what_to_do();
  }
  CHECK(what_happened.find("[1, 8, 1, 1]") != std::string::npos);
  CHECK(what_to_do.find("batch=2") != std::string::npos);
  CHECK(what_to_do.find("imgsz") != std::string::npos);
  CHECK(layer->num_batches_tracked.item<int64_t>() == 0);  // nothing moved before the refusal
}

TEST_CASE("one value per channel is fine in evaluation, and two values are fine in training") {
  sdk::BatchNorm2d layer(torch::nn::BatchNorm2dOptions(8).eps(1e-3).momentum(0.03));
  layer->eval();
  CHECK(layer(torch::randn({1, 8, 1, 1})).sizes() == torch::IntArrayRef({1, 8, 1, 1}));
  layer->train();
  CHECK(layer(torch::randn({2, 8, 1, 1})).sizes() == torch::IntArrayRef({2, 8, 1, 1}));
  CHECK(layer(torch::randn({1, 8, 1, 2})).sizes() == torch::IntArrayRef({1, 8, 1, 2}));
}
