// Prediction rows (prediction_rows.hpp, fused_kernels=prediction_rows): a head's 1x1 prediction
// convolutions written straight into the criterion's float32 [B, A, C] rows. On every build: what
// the fused path refuses and why, that a refusal (every CPU input) is the convolutions' own
// outputs side by side, bit for bit, and that anchor_rows returns rows the levels are views of
// without a copy (and only those), and the kernels' per-thread code (prediction_rows_device.cuh)
// run on the CPU for float32 maps of both layouts against the composed ops. On a GPU: the rows and every gradient against the composed
// convolutions for YOLOv9's and YOLOX's head shapes under float16 autocast, and YOLOv9-t's whole
// training pass with and without them.
#include "../torch_doctest.hpp"

#include <libreyolo/sdk/fused_kernels.hpp>
#include <libreyolo/sdk/losses/anchors.hpp>
#include <libreyolo/sdk/prediction_rows.hpp>

#include <array>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "../../../sdk/src/cuda/prediction_rows_device.cuh"  // the kernels' per-thread code, for the host
#include "../deterministic_cudnn.hpp"
#include "fused_test_support.hpp"
#include "libreyolo/core/amp/precision_plan.hpp"
#include "model_pass_equality.hpp"
#include "yolo9_detector.hpp"
#include "yolox_detector.hpp"

namespace sdk = libreyolo::sdk;
using libreyolo::test::PolicyGuard;
using libreyolo::test::relative_difference;
using libreyolo::test::same_bits;

namespace {

using Levels = std::vector<std::vector<sdk::PredictionConv>>;

torch::nn::Conv2d pred_conv(int64_t in, int64_t out, int64_t groups = 1, int64_t kernel = 1, bool bias = true) {
  return torch::nn::Conv2d(torch::nn::Conv2dOptions(in, out, kernel).groups(groups).bias(bias));
}

// Levels whose convolutions are `shape` ({in, out, groups} each) on maps of the given sides.
struct HeadShape {
  std::vector<std::array<int64_t, 3>> convs;
  std::vector<std::pair<int64_t, int64_t>> sides;
};

Levels make_levels(const HeadShape& shape, int64_t batch, const torch::TensorOptions& options) {
  Levels levels;
  for (const auto& [height, width] : shape.sides) {
    levels.emplace_back();
    for (const auto& [in, out, groups] : shape.convs) {
      auto conv = pred_conv(in, out, groups);
      conv->to(options.device());
      const auto x = torch::randn({batch, in, height, width}, options).contiguous(torch::MemoryFormat::ChannelsLast);
      levels.back().push_back({conv, x.requires_grad_()});
    }
  }
  return levels;
}

// The levels as anchor_rows lays them out, from copies of the levels (never a view of rows).
torch::Tensor copied_rows(const std::vector<torch::Tensor>& levels) {
  std::vector<torch::Tensor> copies;
  for (const auto& level : levels) copies.push_back(level.contiguous());
  return sdk::losses::anchor_rows(copies);
}

}  // namespace

TEST_CASE("prediction rows: what the fused path refuses, and why") {
  const auto x = torch::randn({2, 8, 4, 4});
  const auto refusal_for = [&](torch::nn::Conv2d conv) { return sdk::prediction_rows_refusal({{{conv, x}}}); };
  // A build with the kernels names the convolution; one without says that first.
  const bool built = sdk::fused_kernels_built();
  CHECK(refusal_for(pred_conv(8, 4, 1, 3)) == (built ? "a convolution is not 1x1" : "this build has no fused CUDA kernels"));
  CHECK(refusal_for(pred_conv(8, 4, 1, 1, false)) ==
        (built ? "a convolution has no bias" : "this build has no fused CUDA kernels"));
  CHECK(refusal_for(pred_conv(8, 4)) ==
        (built ? "an input is not on the first input's CUDA device" : "this build has no fused CUDA kernels"));
  CHECK(sdk::prediction_rows_refusal({}) == (built ? "no levels" : "this build has no fused CUDA kernels"));
}

TEST_CASE("prediction rows: a refusal runs the convolutions and puts their outputs side by side, bit for bit") {
  const PolicyGuard on(sdk::FusedKernels::when_built, "prediction_rows");
  torch::manual_seed(3);
  const auto levels = make_levels({{{16, 8, 4}, {16, 5, 1}}, {{6, 5}, {3, 2}}}, 2, torch::TensorOptions());
  const auto outputs = sdk::prediction_levels(levels);
  REQUIRE(outputs.size() == 2);
  for (std::size_t l = 0; l < levels.size(); ++l) {
    auto box = levels[l][0].conv, cls = levels[l][1].conv;
    CHECK(same_bits(outputs[l], torch::cat({box->forward(levels[l][0].input), cls->forward(levels[l][1].input)}, 1)));
  }
  CHECK_FALSE(sdk::rows_behind_levels(outputs).defined());  // composed outputs are not views of rows
}

TEST_CASE("anchor rows: levels that are views of rows in anchor order are those rows, without a copy") {
  const int64_t batch = 2, columns = 5;
  const std::vector<std::pair<int64_t, int64_t>> sides{{4, 6}, {2, 3}, {1, 2}, {1, 1}};  // a 1 x 1 level too
  const auto rows = torch::randn({batch, 24 + 6 + 2 + 1, columns}).requires_grad_();
  std::vector<torch::Tensor> levels;
  int64_t first = 0;
  for (const auto& [height, width] : sides) {
    levels.push_back(rows.narrow(1, first, height * width).view({batch, height, width, columns}).permute({0, 3, 1, 2}));
    first += height * width;
  }
  CHECK(sdk::rows_behind_levels(levels).is_same(rows));
  const auto read = sdk::losses::anchor_rows(levels);
  CHECK(read.data_ptr() == rows.data_ptr());
  CHECK(same_bits(read, copied_rows(levels)));
  read.sum().backward();  // the gradient reaches the rows themselves
  CHECK(torch::equal(rows.grad(), torch::ones_like(rows)));

  SUBCASE("levels out of order, a level left out or another type are copied as before") {
    std::vector<torch::Tensor> reversed(levels.rbegin(), levels.rend());
    CHECK_FALSE(sdk::rows_behind_levels(reversed).defined());
    CHECK(same_bits(sdk::losses::anchor_rows(reversed), copied_rows(reversed)));
    const std::vector<torch::Tensor> two(levels.begin(), levels.begin() + 2);  // every anchor or none
    CHECK_FALSE(sdk::rows_behind_levels(two).defined());
    CHECK(sdk::losses::anchor_rows(two).data_ptr() != rows.data_ptr());
    const auto doubles = rows.detach().to(torch::kFloat64);
    CHECK_FALSE(sdk::rows_behind_levels({doubles.narrow(1, 0, 24).view({batch, 4, 6, columns}).permute({0, 3, 1, 2})})
                    .defined());
  }
}

namespace {

namespace kernel = libreyolo::sdk::fused;

// The kernels' description of levels of float32 maps (each part's y or grad_y and bias or
// grad_bias), as prediction_rows_fused.cpp makes it.
kernel::PredictionRowsShape describe_maps(const std::vector<std::vector<torch::Tensor>>& maps,
                                          const std::vector<std::vector<torch::Tensor>>& biases, bool gradients) {
  kernel::PredictionRowsShape s;
  s.levels = static_cast<int>(maps.size());
  s.batch = static_cast<int>(maps[0][0].size(0));
  s.type = kernel::PredictionType::float32;
  for (int l = 0; l < s.levels; ++l) {
    auto& level = s.level[l];
    level.height = static_cast<int>(maps[l][0].size(2));
    level.width = static_cast<int>(maps[l][0].size(3));
    level.first_anchor = s.anchors;
    level.parts = static_cast<int>(maps[l].size());
    int column = 0;
    for (int p = 0; p < level.parts; ++p) {
      auto& part = level.part[p];
      const auto& map = maps[l][p];
      if (gradients)
        part.grad_y = map.data_ptr(), part.grad_bias = biases[l][p].data_ptr();
      else
        part.y = map.data_ptr(), part.bias = biases[l][p].data_ptr();
      part.stride_b = map.stride(0), part.stride_c = map.stride(1), part.stride_h = map.stride(2),
      part.stride_w = map.stride(3);
      part.channels = static_cast<int>(map.size(1));
      part.column = column;
      column += part.channels;
    }
    s.columns = column;
    s.anchors += int64_t(level.height) * level.width;
  }
  return s;
}

// Every block and thread of a launch, one after another.
template <class Body>
void for_every_thread(const kernel::PredictionRowsShape& s, Body body) {
  const int threads = (s.columns + 31) / 32 * 32;
  for (int64_t block = 0; block < kernel::prediction_rows::blocks_of(s); ++block)
    for (int c = 0; c < threads; ++c) {
      const auto task = kernel::prediction_rows::column_task(s, block, c);
      if (task.active) body(block, c, task);
    }
}

}  // namespace

TEST_CASE("prediction rows: the kernels' per-thread code on the CPU against the composed ops (float32)") {
  torch::manual_seed(5);
  const int64_t batch = 3;
  const auto channels_last = torch::MemoryFormat::ChannelsLast;
  // Three levels: channels-last maps of 91 positions (two tiles), NCHW maps, a 1 x 1 level.
  const std::vector<std::pair<int64_t, int64_t>> sides{{13, 7}, {9, 9}, {1, 1}};
  const std::vector<int64_t> part_channels{4, 1, 6};
  std::vector<std::vector<torch::Tensor>> maps, biases, grad_maps, grad_biases;
  std::vector<torch::Tensor> composed_levels;
  for (std::size_t l = 0; l < sides.size(); ++l) {
    const auto [height, width] = sides[l];
    maps.emplace_back(), biases.emplace_back(), grad_maps.emplace_back(), grad_biases.emplace_back();
    std::vector<torch::Tensor> with_bias;
    for (const auto c : part_channels) {
      auto y = torch::randn({batch, c, height, width});
      if (l == 0) y = y.contiguous(channels_last);
      maps.back().push_back(y);
      biases.back().push_back(torch::randn({c}));
      grad_maps.back().push_back(torch::empty_strided(y.sizes(), y.strides()));
      grad_biases.back().push_back(torch::empty({c}));
      with_bias.push_back(y + biases.back().back().view({1, c, 1, 1}));
    }
    composed_levels.push_back(torch::cat(with_bias, 1));
  }
  const auto expected = sdk::losses::anchor_rows(composed_levels);

  auto shape = describe_maps(maps, biases, false);
  auto rows = torch::full(expected.sizes(), std::nanf(""));
  for_every_thread(shape, [&](int64_t, int, const auto& task) {
    kernel::prediction_rows::forward_column<float>(shape, task, rows.data_ptr<float>());
  });
  CHECK(same_bits(rows, expected));

  const auto grad_rows = torch::randn(expected.sizes());
  auto gradient_shape = describe_maps(grad_maps, grad_biases, true);
  auto partials = torch::zeros({kernel::prediction_rows::blocks_of(gradient_shape), gradient_shape.columns});
  for_every_thread(gradient_shape, [&](int64_t block, int c, const auto& task) {
    partials[block][c] = kernel::prediction_rows::backward_column<float>(gradient_shape, task, grad_rows.data_ptr<float>());
  });
  int64_t first = 0;
  for (std::size_t l = 0; l < sides.size(); ++l) {
    CAPTURE(l);
    const auto [height, width] = sides[l];
    const auto level_grad = grad_rows.narrow(1, first, height * width).reshape({batch, height, width, -1}).permute({0, 3, 1, 2});
    const auto blocks = partials.narrow(0, kernel::prediction_rows::level_first_block(gradient_shape, static_cast<int>(l)),
                                        kernel::prediction_rows::tiles_of(gradient_shape.level[l]) * batch);
    int64_t column = 0;
    for (std::size_t p = 0; p < part_channels.size(); ++p) {
      const auto expected_grad = level_grad.narrow(1, column, part_channels[p]);
      CHECK(same_bits(grad_maps[l][p], expected_grad));
      CHECK(relative_difference(blocks.narrow(1, column, part_channels[p]).sum(0), expected_grad.sum({0, 2, 3})) < 1e-5);
      column += part_channels[p];
    }
    first += height * width;
  }
}

namespace {

struct HeadPass {
  torch::Tensor rows;
  std::vector<torch::Tensor> grads;  // every input's, weight's and bias's, level by level
  bool viewed = false;               // anchor_rows read the fused rows themselves
};

HeadPass head_pass(const Levels& levels, const torch::Tensor& upstream, bool fused) {
  for (const auto& level : levels)
    for (const auto& part : level) {
      part.input.mutable_grad().reset();
      for (auto& p : part.conv->parameters()) p.mutable_grad().reset();
    }
  const PolicyGuard policy(fused ? sdk::FusedKernels::when_built : sdk::FusedKernels::off, "prediction_rows");
  HeadPass pass;
  {
    const auto plan = libreyolo::core::amp::plan_precision(true, "float16", torch::Device(torch::kCUDA), true);
    libreyolo::core::amp::AutocastScope autocast(plan);
    if (fused) REQUIRE(sdk::prediction_rows_refusal(levels) == "");
    const auto outputs = sdk::prediction_levels(levels);
    pass.viewed = sdk::rows_behind_levels(outputs).defined();
    pass.rows = sdk::losses::anchor_rows(outputs);
  }
  (pass.rows * upstream).sum().backward();
  for (const auto& level : levels)
    for (const auto& part : level)
      pass.grads.insert(pass.grads.end(), {part.input.grad(), part.conv->weight.grad(), part.conv->bias.grad()});
  return pass;
}

void check_against_composed(const HeadShape& shape, int64_t batch) {
  torch::manual_seed(11);
  const auto levels = make_levels(shape, batch, torch::TensorOptions(torch::kCUDA));
  const DeterministicCudnn deterministic;
  const auto probe = head_pass(levels, torch::zeros({1}, torch::kCUDA), false);
  const auto upstream = torch::randn(probe.rows.sizes(), probe.rows.options());
  const auto theirs = head_pass(levels, upstream, false);
  const auto ours = head_pass(levels, upstream, true);
  CHECK_FALSE(theirs.viewed);
  CHECK(ours.viewed);
  // The same convolutions and the bias added in the same type: the same bits.
  CHECK(same_bits(ours.rows, theirs.rows));
  for (std::size_t k = 0; k < ours.grads.size(); ++k) {
    CAPTURE(k);
    REQUIRE(ours.grads[k].defined());
    if (k % 3 == 2)  // a bias: the same float16 values summed in another order
      CHECK(relative_difference(ours.grads[k], theirs.grads[k]) < 1e-3);
    else  // the same output gradient, dense in the same layout, through the same backward
      CHECK(same_bits(ours.grads[k], theirs.grads[k]));
  }
}

}  // namespace

TEST_CASE("prediction rows on the GPU: rows and gradients against the composed convolutions") {
  if (!libreyolo::test::fused_runnable()) {
    MESSAGE("skipped: no CUDA device or no fused kernels in this build");
    return;
  }
  // YOLOv9-t's head (grouped box convolutions, 144 columns) and YOLOX-s's (three convolutions).
  SUBCASE("YOLOv9") { check_against_composed({{{64, 64, 4}, {80, 80, 1}}, {{40, 40}, {20, 20}, {10, 10}}}, 4); }
  SUBCASE("YOLOX") { check_against_composed({{{128, 4, 1}, {128, 1, 1}, {128, 80, 1}}, {{20, 24}, {10, 12}, {5, 6}}}, 2); }
  SUBCASE("odd sizes") { check_against_composed({{{8, 3, 1}, {8, 7, 1}}, {{13, 7}, {1, 1}}}, 3); }
}

namespace {

// One training pass of the model with and without the fused rows: the loss within float32
// summation order, the gradients within 1e-3 (the bias sums round differently; everything behind
// them reads the same output gradients).
template <class Detector>
void check_model_pass(const std::string& size) {
  const auto [expected, kept] = libreyolo::test::one_pass_each<Detector>(
      size, {sdk::FusedKernels::when_built, "block_tails"}, {sdk::FusedKernels::when_built, "block_tails+prediction_rows"});
  CHECK(relative_difference(kept[0], expected[0]) < 1e-5);
  CHECK(libreyolo::test::largest_gradient_difference(expected, kept) < 1e-3);
}

}  // namespace

TEST_CASE("prediction rows on the GPU: YOLOv9-t's and YOLOX-s's loss and gradients within rounding of the composed head") {
  if (!libreyolo::test::fused_runnable()) {
    MESSAGE("skipped: no CUDA device or no fused kernels in this build");
    return;
  }
  SUBCASE("YOLOv9-t") { check_model_pass<libreyolo::families::yolo9::Yolo9Detector>("t"); }
  SUBCASE("YOLOX-s") { check_model_pass<libreyolo::families::yolox::YoloxDetector>("s"); }
}
