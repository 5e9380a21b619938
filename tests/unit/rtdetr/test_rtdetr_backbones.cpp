// RT-DETR's backbones (PResNet-vd, HGNetv2) and HybridEncoder against LibreYOLO's modules
// (tests/fixtures/rtdetr/, from tests/python/rtdetr_reference_keys.py): state_dict keys, shapes
// and order, parameter counts, frozen parameters, and forwards on deterministic weights; plus
// D-FINE's HGNetv2 layouts, the position embedding, the init and the error messages.
#include "../torch_doctest.hpp"

#include <libreyolo/sdk/backbones/hgnetv2.hpp>

#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "hybrid_encoder.hpp"
#include "presnet.hpp"
#include "../deterministic_weights.hpp"
#include "rtdetr_fixture.hpp"
#include "libreyolo/sdk/detr/transformer_encoder.hpp"

namespace fixture = libreyolo::test::rtdetr;
namespace backbones = libreyolo::sdk::backbones;
using libreyolo::rtdetr::HybridEncoder;
using libreyolo::rtdetr::HybridEncoderOptions;

namespace {

// Counts (and reports the first few) differences between a module's state and a fixture's.
int state_mismatches(const torch::nn::Module& module, const fixture::Json& reference) {
  const auto actual = fixture::ordered_state(module);
  const auto& expected = reference["state_dict"].items;
  CHECK(expected.size() == static_cast<size_t>(reference["state_dict_entries"].number));
  if (actual.size() != expected.size()) {
    MESSAGE("LibreYOLO has " << expected.size() << " entries, C++ " << actual.size());
    return static_cast<int>(std::max(actual.size(), expected.size()));
  }
  int mismatches = 0;
  for (size_t i = 0; i < expected.size(); ++i) {
    const auto& key = expected[i].items[0].text;
    if (actual[i].first != key || actual[i].second != fixture::to_shape(expected[i].items[1])) {
      if (++mismatches <= 10) MESSAGE("entry " << i << ": LibreYOLO " << key << ", C++ " << actual[i].first);
    }
  }
  return mismatches;
}

std::vector<std::string> frozen_names(const torch::nn::Module& module) {
  std::vector<std::string> names;
  for (const auto& item : module.named_parameters(true))
    if (!item.value().requires_grad()) names.push_back(item.key());
  return names;
}

std::vector<std::string> texts(const fixture::Json& array) {
  std::vector<std::string> out;
  for (const auto& item : array.items) out.push_back(item.text);
  return out;
}

// Shape, sum, mean |x| and the sampled values of one output against the fixture's summary.
void check_output(const torch::Tensor& output, const fixture::Json& expected) {
  CAPTURE(expected["name"].text);
  REQUIRE(output.sizes().vec() == fixture::to_shape(expected["shape"]));
  const auto flat = output.to(torch::kFloat64).reshape({-1});
  const double mean_abs = expected["mean_abs"].number;
  CHECK(flat.abs().mean().item<double>() == doctest::Approx(mean_abs).epsilon(1e-4));
  // The sum cancels: compare it on the scale of the values, not of itself.
  CHECK(std::abs(flat.sum().item<double>() - expected["sum"].number) <= 1e-4 * mean_abs * flat.numel());
  const auto stride = static_cast<int64_t>(expected["stride"].number);
  std::vector<double> wanted;
  for (const auto& v : expected["samples"].items) wanted.push_back(v.number);
  const auto samples = flat.slice(0, 0, flat.numel(), stride);
  REQUIRE(samples.numel() == static_cast<int64_t>(wanted.size()));
  const auto target = torch::tensor(wanted, torch::kFloat64);
  const double max_error = ((samples - target).abs() / (target.abs() + mean_abs)).max().item<double>();
  CAPTURE(max_error);
  CHECK(max_error <= 1e-4);
}

std::string what_of(const std::function<void()>& call) {
  try {
    call();
  } catch (const std::invalid_argument& error) {
    return error.what();
  }
  return "";
}

}  // namespace

TEST_CASE("rtdetr backbones: every size has LibreYOLO's keys, shapes, order, parameter counts and frozen stem") {
  for (const auto& spec : fixture::sizes()) {
    CAPTURE(spec.size);
    const auto reference = fixture::read_fixture("backbone_encoder_" + spec.size + ".json");
    fixture::BackboneEncoder model(spec);
    CHECK(state_mismatches(model, reference) == 0);
    CHECK(fixture::parameter_count(*model.backbone) == static_cast<int64_t>(reference["backbone_parameters"].number));
    CHECK(fixture::parameter_count(*model.encoder) == static_cast<int64_t>(reference["encoder_parameters"].number));
    CHECK(frozen_names(model) == texts(reference["frozen_parameters"]));
  }
}

TEST_CASE("rtdetr backbones: D-FINE's HGNetv2 B0 B2 B4 B5 have its keys, counts and frozen stem") {
  for (const std::string arch : {"B0", "B2", "B4", "B5"}) {
    CAPTURE(arch);
    const auto reference = fixture::read_fixture("dfine_backbone_" + arch + ".json");
    const bool small = arch == "B0" || arch == "B2";  // D-FINE n/s/m: use_lab, BatchNorm; l/x: frozen norm
    const auto backbone = backbones::make_hgnetv2(arch, /*freeze_norm=*/!small, /*freeze_at=*/0, /*use_lab=*/small);
    CHECK(state_mismatches(*backbone, reference) == 0);
    CHECK(fixture::parameter_count(*backbone) == static_cast<int64_t>(reference["backbone_parameters"].number));
    CHECK(frozen_names(*backbone) == texts(reference["frozen_parameters"]));
  }
}

TEST_CASE("rtdetr backbones: r18, r50, l and D-FINE B0 outputs equal LibreYOLO's on deterministic weights") {
  torch::NoGradGuard no_grad;
  for (const std::string size : {"r18", "r50", "l"}) {
    CAPTURE(size);
    const auto reference = fixture::read_fixture("backbone_encoder_" + size + ".json");
    const auto& forward = reference["forward"];
    fixture::BackboneEncoder model(fixture::size_spec(size));
    libreyolo::test::fill_deterministic(model, /*scale_matrices=*/true);
    model.eval();
    const auto images = fixture::fixture_images(static_cast<int64_t>(forward["batch"].number),
                                                static_cast<int64_t>(forward["height"].number),
                                                static_cast<int64_t>(forward["width"].number));
    auto outputs = model.backbone->forward(images);
    const auto encoded = model.encoder->forward(outputs);
    outputs.insert(outputs.end(), encoded.begin(), encoded.end());
    const auto& expected = forward["outputs"].items;
    REQUIRE(outputs.size() == expected.size());
    for (size_t i = 0; i < outputs.size(); ++i) check_output(outputs[i], expected[i]);
  }
  const auto reference = fixture::read_fixture("dfine_backbone_B0.json");
  const auto& forward = reference["forward"];
  auto backbone = backbones::make_hgnetv2("B0", false, 0, /*use_lab=*/true);
  libreyolo::test::fill_deterministic(*backbone, /*scale_matrices=*/true);
  backbone->eval();
  const auto outputs = backbone->forward(fixture::fixture_images(2, 64, 96));
  REQUIRE(outputs.size() == forward["outputs"].items.size());
  for (size_t i = 0; i < outputs.size(); ++i) check_output(outputs[i], forward["outputs"].items[i]);
}

TEST_CASE("rtdetr backbones: out_channels and out_strides of the returned stages") {
  CHECK(libreyolo::rtdetr::make_presnet(18, false, 0)->out_channels() == std::vector<int64_t>{128, 256, 512});
  CHECK(libreyolo::rtdetr::make_presnet(101, true, 0)->out_channels() == std::vector<int64_t>{512, 1024, 2048});
  CHECK(libreyolo::rtdetr::make_presnet(34, false, 0)->out_strides() == std::vector<int64_t>{8, 16, 32});
  CHECK(backbones::make_hgnetv2("X", true, 0)->out_channels() == std::vector<int64_t>{512, 1024, 2048});
  const auto two = backbones::make_hgnetv2("B0", false, 0, true, {2, 3});  // D-FINE n
  CHECK(two->out_channels() == std::vector<int64_t>{512, 1024});
  CHECK(two->out_strides() == std::vector<int64_t>{16, 32});
  torch::NoGradGuard no_grad;
  const auto maps = two->forward(torch::rand({1, 3, 64, 64}));
  REQUIRE(maps.size() == 2);
  CHECK(maps[1].sizes().vec() == std::vector<int64_t>{1, 1024, 2, 2});
}

TEST_CASE("rtdetr backbones: freeze_at freezes the stem and then whole stages; freeze_norm leaves no BatchNorm") {
  const auto count_frozen = [](const torch::nn::Module& m) { return frozen_names(m).size(); };
  CHECK(count_frozen(*libreyolo::rtdetr::make_presnet(18, false, -1)) == 0);
  const auto stem_only = libreyolo::rtdetr::make_presnet(18, false, 0);
  const auto two_stages = libreyolo::rtdetr::make_presnet(18, false, 2);
  CHECK(count_frozen(*two_stages) > count_frozen(*stem_only));
  for (const auto& item : two_stages->named_parameters(true)) {
    const bool in_frozen_part = item.key().rfind("conv1.", 0) == 0 || item.key().rfind("res_layers.0.", 0) == 0 ||
                                item.key().rfind("res_layers.1.", 0) == 0;
    CAPTURE(item.key());
    CHECK(item.value().requires_grad() == !in_frozen_part);
  }
  // Frozen norms hold their values as buffers: no norm parameter is left to train.
  for (const auto& item : libreyolo::rtdetr::make_presnet(50, true, -1)->named_parameters(true))
    CHECK(item.key().find("norm") == std::string::npos);
  for (const auto& item : backbones::make_hgnetv2("L", true, -1)->named_parameters(true))
    CHECK(item.key().find(".bn.") == std::string::npos);
}

TEST_CASE("rtdetr backbones: init is LibreYOLO's (HGNetv2 kaiming normal for RT-DETR, xavier attention)") {
  const auto l = backbones::make_hgnetv2("L", true, 0);
  const auto b4 = backbones::make_hgnetv2("B4", true, 0);
  auto l_params = l->named_parameters(true);
  auto b4_params = b4->named_parameters(true);
  // stages.2.blocks.0.aggregation_squeeze_conv: 1x1 conv, fan_in 512 + 6 * 192 = 1664.
  const double fan_in = 1664.0;
  const auto l_std = l_params["stages.2.blocks.0.aggregation_squeeze_conv.conv.weight"].std().item<double>();
  CHECK(l_std == doctest::Approx(std::sqrt(2.0 / fan_in)).epsilon(0.03));
  // D-FINE keeps PyTorch's kaiming uniform (a = sqrt(5)): std 1 / sqrt(3 fan_in).
  const auto b4_std = b4_params["stages.2.blocks.0.aggregation.0.conv.weight"].std().item<double>();
  CHECK(b4_std == doctest::Approx(1.0 / std::sqrt(3.0 * fan_in)).epsilon(0.03));

  HybridEncoderOptions options;
  options.in_channels = {128, 256, 512};
  HybridEncoder encoder(options);
  auto params = encoder->named_parameters(true);
  const auto& in_proj = params["encoder.0.layers.0.self_attn.in_proj_weight"];
  const double xavier_bound = std::sqrt(6.0 / (256.0 + 3 * 256.0));
  // uniform_(-b, b) draws in float32: a value at the bound rounds to the float nearest it, which
  // may lie above the double bound by half an ulp (a CI run drew 0.0765466 against 0.0765466).
  CHECK(in_proj.abs().max().item<double>() <= static_cast<double>(std::nextafter(static_cast<float>(xavier_bound), 1.0f)));
  CHECK(in_proj.abs().max().item<double>() > 0.95 * xavier_bound);
  CHECK(params["encoder.0.layers.0.self_attn.in_proj_bias"].abs().max().item<double>() == 0.0);
  CHECK(params["encoder.0.layers.0.self_attn.out_proj.bias"].abs().max().item<double>() == 0.0);
}

TEST_CASE("rtdetr backbones: the encoder caches its sin-cos position embedding per size and dtype") {
  HybridEncoderOptions options;
  options.in_channels = {8, 16, 32};
  options.hidden_dim = 32;
  HybridEncoder encoder(options);
  const auto like = torch::zeros({1, 6, 32});
  const auto first = encoder->position_embedding(2, 3, like);
  CHECK(encoder->position_embedding(2, 3, like).data_ptr() == first.data_ptr());
  CHECK(encoder->position_embedding(3, 2, like).data_ptr() != first.data_ptr());
  const auto half = encoder->position_embedding(2, 3, like.to(torch::kFloat64));
  CHECK((half.scalar_type() == torch::kFloat64));
  CHECK(torch::allclose(half.to(torch::kFloat32), first));
}

TEST_CASE("rtdetr backbones: the encoder trains end to end and keeps every level's shape") {
  HybridEncoderOptions options;
  options.in_channels = {16, 32, 64};
  options.hidden_dim = 32;
  options.nhead = 4;
  options.dim_feedforward = 64;
  options.expansion = 0.5;
  options.depth_mult = 0.5;  // round(1.5) = 2 RepVgg blocks, Python's half-to-even
  HybridEncoder encoder(options);
  CHECK(encoder->named_modules().contains("fpn_blocks.0.bottlenecks.1"));
  CHECK_FALSE(encoder->named_modules().contains("fpn_blocks.0.bottlenecks.2"));
  encoder->train();
  const std::vector<torch::Tensor> feats{torch::randn({2, 16, 8, 6}), torch::randn({2, 32, 4, 3}),
                                         torch::randn({2, 64, 2, 2})};
  // Level 2 is 2 x 2 but level 1 is 4 x 3: the FPN needs exact halving, LibreYOLO's too.
  CHECK_THROWS(encoder->forward(feats));
  const std::vector<torch::Tensor> good{torch::randn({2, 16, 8, 12}), torch::randn({2, 32, 4, 6}),
                                        torch::randn({2, 64, 2, 3})};
  const auto outs = encoder->forward(good);
  REQUIRE(outs.size() == 3);
  CHECK(outs[0].sizes().vec() == std::vector<int64_t>{2, 32, 8, 12});
  CHECK(outs[2].sizes().vec() == std::vector<int64_t>{2, 32, 2, 3});
  (outs[0].sum() + outs[1].sum() + outs[2].sum()).backward();
  for (const auto& item : encoder->named_parameters(true)) {
    CAPTURE(item.key());
    CHECK(item.value().grad().defined());
  }
}

TEST_CASE("rtdetr backbones: bad arguments say what is wrong and what to pass") {
  CHECK(what_of([] { libreyolo::rtdetr::make_presnet(42, false, 0); }).find("18, 34, 50 or 101") !=
        std::string::npos);
  CHECK(what_of([] { libreyolo::rtdetr::make_presnet(18, false, -2); }).find("freeze_at") != std::string::npos);
  CHECK(what_of([] { backbones::make_hgnetv2("M", true, 0); }).find("known: L, X, H") != std::string::npos);
  CHECK(what_of([] { backbones::make_hgnetv2("L", true, 0, false, {3, 1}); }).find("strictly increasing") !=
        std::string::npos);
  const auto encoder_error = [](const std::function<void(HybridEncoderOptions&)>& edit) {
    HybridEncoderOptions options;
    options.in_channels = {128, 256, 512};
    edit(options);
    return what_of([&] { HybridEncoder encoder(options); });
  };
  CHECK(encoder_error([](auto& o) { o.in_channels.clear(); }).find("out_channels()") != std::string::npos);
  CHECK(encoder_error([](auto& o) { o.hidden_dim = 260; }).find("multiple of nhead") != std::string::npos);
  CHECK(encoder_error([](auto& o) { o.use_encoder_idx = {3}; }).find("not an input level") != std::string::npos);
  CHECK(encoder_error([](auto& o) { o.feat_strides = {8, 16}; }).find("one stride per level") != std::string::npos);
  CHECK(encoder_error([](auto& o) { o.expansion = 0.001; }).find("no hidden channels") != std::string::npos);

  HybridEncoderOptions options;
  options.in_channels = {8, 16, 32};
  options.hidden_dim = 32;
  HybridEncoder encoder(options);
  CHECK_THROWS_WITH_AS(encoder->forward({torch::zeros({1, 8, 8, 8})}), doctest::Contains("expected 3 feature maps"),
                       c10::Error);
  CHECK_THROWS_WITH_AS(
      encoder->forward({torch::zeros({1, 8, 8, 8}), torch::zeros({1, 15, 4, 4}), torch::zeros({1, 32, 2, 2})}),
      doctest::Contains("level 1 must be [N, 16, H, W]"), c10::Error);
}
