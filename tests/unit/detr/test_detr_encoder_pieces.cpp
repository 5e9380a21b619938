// The DETR encoder pieces RT-DETR and D-FINE share through the SDK: the sin-cos position
// embedding and its cache, the MLP, the AIFI transformer encoder and CCFF's order of operations.
#include <doctest/doctest.h>
#include <torch/torch.h>

#include <cmath>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "libreyolo/sdk/detr/hybrid_encoder_flow.hpp"
#include "libreyolo/sdk/detr/mlp.hpp"
#include "libreyolo/sdk/detr/transformer_encoder.hpp"

namespace detr = libreyolo::sdk::detr;

namespace {

std::vector<std::string> parameter_names(const torch::nn::Module& module) {
  std::vector<std::string> names;
  for (const auto& item : module.named_parameters(/*recurse=*/true)) names.push_back(item.key());
  return names;
}

}  // namespace

TEST_CASE("detr encoder pieces: the sin-cos position embedding is LibreYOLO's formula, x slowest") {
  // w = 2, h = 3, dim = 4: one frequency (1); token k has x = k / 3, y = k % 3.
  const auto pe = detr::sincos_position_embedding_2d(2, 3, 4, 10000.0, torch::kCPU);
  REQUIRE(pe.sizes().vec() == std::vector<int64_t>{1, 6, 4});
  CHECK((pe.scalar_type() == torch::kFloat32));
  for (int64_t k = 0; k < 6; ++k) {
    const double x = static_cast<double>(k / 3), y = static_cast<double>(k % 3);
    CHECK(pe[0][k][0].item<double>() == doctest::Approx(std::sin(x)));
    CHECK(pe[0][k][1].item<double>() == doctest::Approx(std::cos(x)));
    CHECK(pe[0][k][2].item<double>() == doctest::Approx(std::sin(y)));
    CHECK(pe[0][k][3].item<double>() == doctest::Approx(std::cos(y)));
  }
  // dim 8: the second frequency is temperature^(-1/2).
  const auto wide = detr::sincos_position_embedding_2d(2, 2, 8, 10000.0, torch::kCPU);
  CHECK(wide[0][3][1].item<double>() == doctest::Approx(std::sin(1.0 / 100.0)));
}

TEST_CASE("detr encoder pieces: the position embedding refuses a dimension it cannot split and an empty map") {
  CHECK_THROWS_WITH_AS(detr::sincos_position_embedding_2d(2, 2, 6, 10000.0, torch::kCPU),
                       doctest::Contains("positive multiple of 4"), std::invalid_argument);
  CHECK_THROWS_WITH_AS(detr::sincos_position_embedding_2d(0, 2, 8, 10000.0, torch::kCPU),
                       doctest::Contains("empty"), std::invalid_argument);
}

TEST_CASE("detr encoder pieces: the MLP has LibreYOLO's keys and shapes, ReLU between layers only") {
  detr::Mlp mlp(4, 8, 2, 3);
  CHECK(parameter_names(*mlp) ==
        std::vector<std::string>{"layers.0.weight", "layers.0.bias", "layers.1.weight", "layers.1.bias",
                                 "layers.2.weight", "layers.2.bias"});
  CHECK(mlp->layer(0)->weight.sizes().vec() == std::vector<int64_t>{8, 4});
  CHECK(mlp->last()->weight.sizes().vec() == std::vector<int64_t>{2, 8});

  // No ReLU after the last layer: a negative bias there comes out negative.
  torch::NoGradGuard no_grad;
  mlp->last()->weight.zero_();
  mlp->last()->bias.fill_(-1.5);
  const auto out = mlp->forward(torch::randn({5, 4}));
  CHECK(out.eq(-1.5).all().item<bool>());

  // One layer: input straight to output.
  detr::Mlp single(4, 8, 3, 1);
  CHECK(single->layers->size() == 1);
  CHECK(single->last()->weight.sizes().vec() == std::vector<int64_t>{3, 4});
}

TEST_CASE("detr encoder pieces: zero_last makes the MLP answer zero whatever its input") {
  detr::Mlp mlp(4, 8, 4, 3);
  mlp->zero_last();
  CHECK(mlp->forward(torch::randn({7, 4})).abs().max().item<double>() == 0.0);
  CHECK(mlp->layer(0)->weight.abs().max().item<double>() > 0.0);  // only the last layer
}

TEST_CASE("detr encoder pieces: an MLP without layers is refused") {
  CHECK_THROWS_WITH_AS(detr::Mlp(4, 8, 2, 0), doctest::Contains("at least one layer"), std::invalid_argument);
}

TEST_CASE("detr encoder pieces: the encoder's layers start equal and carry LibreYOLO's keys") {
  torch::manual_seed(0);
  detr::TransformerEncoder encoder({16, 4, 32, 0.0}, 2);
  const auto params = encoder.named_parameters(/*recurse=*/true);
  for (const auto* key : {"self_attn.in_proj_weight", "self_attn.in_proj_bias", "self_attn.out_proj.weight",
                          "linear1.weight", "linear2.weight", "norm1.weight", "norm2.bias"}) {
    INFO(key);
    REQUIRE(params.contains(std::string("layers.0.") + key));
    CHECK(torch::equal(params[std::string("layers.0.") + key], params[std::string("layers.1.") + key]));
  }
  const auto src = torch::randn({2, 6, 16});
  const auto pos = detr::sincos_position_embedding_2d(2, 3, 16, 10000.0, torch::kCPU);
  const auto out = encoder.forward(src, pos);
  CHECK(out.sizes() == src.sizes());
  // Post-norm: every token of the output is LayerNorm-ed (mean 0 before the affine default 1, 0).
  CHECK(out.mean(-1).abs().max().item<double>() < 1e-5);
}

TEST_CASE("detr encoder pieces: dropout acts in training only, and not at all at rate 0") {
  torch::manual_seed(1);
  detr::TransformerEncoderLayer layer({16, 4, 32, 0.5});
  const auto src = torch::randn({2, 6, 16});
  const auto pos = torch::zeros({1, 6, 16});
  layer.eval();
  const auto a = layer.forward(src, pos), b = layer.forward(src, pos);
  CHECK(torch::equal(a, b));
  layer.train();
  CHECK_FALSE(torch::equal(layer.forward(src, pos), a));

  detr::TransformerEncoderLayer no_dropout({16, 4, 32, 0.0});
  no_dropout.train();
  CHECK(torch::equal(no_dropout.forward(src, pos), no_dropout.forward(src, pos)));
}

TEST_CASE("detr encoder pieces: the position embedding cache builds once per size, device and dtype") {
  detr::PositionEmbeddingCache cache(8, 10000.0);
  const auto like = torch::zeros({1, 6, 8});
  const auto first = cache.get(2, 3, like);
  CHECK(torch::equal(first, detr::sincos_position_embedding_2d(3, 2, 8, 10000.0, torch::kCPU)));
  CHECK(cache.get(2, 3, like).data_ptr() == first.data_ptr());
  CHECK(cache.get(3, 2, like).data_ptr() != first.data_ptr());
  const auto wide = cache.get(2, 3, like.to(torch::kFloat64));
  CHECK((wide.scalar_type() == torch::kFloat64));
  CHECK(wide.data_ptr() != first.data_ptr());
}

TEST_CASE("detr encoder pieces: encode_map runs the encoder on the map's tokens and folds them back") {
  torch::manual_seed(2);
  detr::TransformerEncoder encoder({8, 2, 16, 0.0}, 1);
  detr::PositionEmbeddingCache cache(8, 10000.0);
  const auto map = torch::randn({2, 8, 3, 4});
  const auto got = detr::encode_map(encoder, map, cache);
  CHECK(got.sizes() == map.sizes());
  CHECK(got.is_contiguous());
  // Token k of image n is pixel (k / 4, k % 4): the same encoder on the tokens by hand.
  const auto tokens = map.flatten(2).transpose(1, 2);
  const auto want = encoder.forward(tokens, detr::sincos_position_embedding_2d(4, 3, 8, 10000.0, torch::kCPU));
  CHECK(torch::allclose(got.flatten(2).transpose(1, 2), want));
}

TEST_CASE("detr encoder pieces: fuse_cross_scale runs CCFF's top-down then bottom-up order") {
  // Three levels of one channel: 4x4, 2x2, 1x1. Blocks that keep the first channel after adding a
  // marker make every step visible in the outputs' values.
  const std::vector<torch::Tensor> projected{torch::full({1, 1, 4, 4}, 1.0), torch::full({1, 1, 2, 2}, 10.0),
                                             torch::full({1, 1, 1, 1}, 100.0)};
  std::vector<std::string> calls;
  detr::CrossScaleBlocks blocks;
  const auto record = [&](const char* what, size_t i) { calls.push_back(what + std::to_string(i)); };
  blocks.lateral = [&](size_t k, const torch::Tensor& x) { record("lateral", k); return x + 1000.0; };
  blocks.fpn_block = [&](size_t k, const torch::Tensor& x) {  // coarser (upsampled) + finer
    record("fpn", k);
    CHECK(x.size(1) == 2);
    return x.narrow(1, 0, 1) + x.narrow(1, 1, 1);
  };
  blocks.downsample = [&](size_t level, const torch::Tensor& x) {
    record("down", level);
    return torch::nn::functional::avg_pool2d(x, torch::nn::functional::AvgPool2dFuncOptions(2));
  };
  blocks.pan_block = [&](size_t level, const torch::Tensor& x) {  // downsampled + lateral output
    record("pan", level);
    return x.narrow(1, 0, 1) + x.narrow(1, 1, 1);
  };
  const auto outs = detr::fuse_cross_scale(projected, blocks);
  CHECK(calls == std::vector<std::string>{"lateral0", "fpn0", "lateral1", "fpn1", "down0", "pan0", "down1", "pan1"});
  REQUIRE(outs.size() == 3);
  // Top-down: lateral(100) = 1100; level 1 = 1100 + 10 = 1110, lateral = 2110; level 0 = 2110 + 1.
  CHECK(outs[0].eq(2111.0).all().item<bool>());
  // Bottom-up: level 1 = 2111 + 2110 (the lateral output), level 2 = 4221 + 1100.
  CHECK(outs[1].eq(4221.0).all().item<bool>());
  CHECK(outs[2].eq(5321.0).all().item<bool>());
  CHECK(outs[2].sizes().vec() == std::vector<int64_t>{1, 1, 1, 1});
}

TEST_CASE("detr encoder pieces: encode_levels encodes the chosen levels and skips encoders without layers") {
  torch::manual_seed(3);
  detr::PositionEmbeddingCache cache(8, 10000.0);
  const std::vector<torch::Tensor> maps{torch::randn({1, 8, 4, 4}), torch::randn({1, 8, 2, 2})};
  auto projected = maps;
  const std::vector<std::shared_ptr<detr::TransformerEncoder>> one{
      std::make_shared<detr::TransformerEncoder>(detr::TransformerEncoderLayerOptions{8, 2, 16, 0.0}, 1)};
  detr::encode_levels(one, {1}, projected, cache);
  CHECK(torch::equal(projected[0], maps[0]));
  CHECK(torch::allclose(projected[1], detr::encode_map(*one[0], maps[1], cache)));
  CHECK_FALSE(torch::allclose(projected[1], maps[1]));

  auto untouched = maps;
  const std::vector<std::shared_ptr<detr::TransformerEncoder>> empty{
      std::make_shared<detr::TransformerEncoder>(detr::TransformerEncoderLayerOptions{8, 2, 16, 0.0}, 0)};
  detr::encode_levels(empty, {1}, untouched, cache);
  CHECK(untouched[1].data_ptr() == maps[1].data_ptr());
}
