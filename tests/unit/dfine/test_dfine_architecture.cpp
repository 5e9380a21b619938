// D-FINE's network against LibreYOLO's (tests/fixtures/dfine/keys_<size>.json, from
// tests/python/dfine_reference_keys.py): for every size at 80 classes the state_dict keys,
// shapes and order, the parameter counts (whole model and backbone / encoder / decoder), and the
// parameters without gradient; plus the shared up / reg_scale tensors, the init LibreYOLO gives
// the heads, and the output layout of both modes on a small input.
#include "../torch_doctest.hpp"

#include <torch/torch.h>

#include <string>
#include <vector>

#include "dfine_detector.hpp"  // and, through it, plugins/dfine/decoder_outputs.hpp
#include "dfine_fixture.hpp"

namespace fixture = libreyolo::test::dfine;
namespace dfine = libreyolo::dfine;
namespace outputs = libreyolo::dfine::outputs;

namespace {

int state_mismatches(const torch::nn::Module& module, const fixture::Json& reference) {
  const auto actual = fixture::ordered_state(module);
  const auto& expected = reference["state_dict"].items;
  CHECK(expected.size() == static_cast<size_t>(reference["state_dict_entries"].number));
  if (actual.size() != expected.size()) MESSAGE("LibreYOLO has " << expected.size() << " entries, C++ " << actual.size());
  int mismatches = 0;
  for (size_t i = 0; i < std::min(expected.size(), actual.size()); ++i) {
    const auto& key = expected[i].items[0].text;
    const auto shape = fixture::to_shape(expected[i].items[1]);
    if (actual[i].first != key || actual[i].second != shape) {
      if (++mismatches <= 10)
        MESSAGE("entry " << i << ": LibreYOLO " << key << " " << torch::IntArrayRef(shape) << ", C++ "
                         << actual[i].first << " " << torch::IntArrayRef(actual[i].second));
    }
  }
  return mismatches + static_cast<int>(std::max(actual.size(), expected.size()) - std::min(actual.size(), expected.size()));
}

std::vector<std::string> texts(const fixture::Json& array) {
  std::vector<std::string> out;
  for (const auto& item : array.items) out.push_back(item.text);
  return out;
}

}  // namespace

TEST_CASE("D-FINE: every size has LibreYOLO's state_dict, parameter counts and frozen parameters at 80 classes") {
  for (const auto& size : dfine::dfine_sizes()) {
    INFO("size " << size);
    const auto reference = fixture::read_fixture("keys_" + size + ".json");
    if (!reference) continue;
    dfine::DfineDetector model(size, 80);
    CHECK(state_mismatches(model, *reference) == 0);
    CHECK(fixture::parameter_count(model) == static_cast<int64_t>((*reference)["parameters"].number));
    const auto children = model.named_children();
    CHECK(fixture::parameter_count(*children["backbone"]) ==
          static_cast<int64_t>((*reference)["backbone_parameters"].number));
    CHECK(fixture::parameter_count(*children["encoder"]) == static_cast<int64_t>((*reference)["encoder_parameters"].number));
    CHECK(fixture::parameter_count(*children["decoder"]) == static_cast<int64_t>((*reference)["decoder_parameters"].number));
    CHECK(fixture::frozen_parameter_names(model) == texts((*reference)["frozen_parameters"]));
  }
}

TEST_CASE("D-FINE: up and reg_scale are one tensor under decoder and decoder.decoder, without gradient") {
  dfine::DfineDetector model("x", 80);
  const auto params = model.named_parameters(true);
  for (const std::string name : {"up", "reg_scale"}) {
    const auto& outer = params["decoder." + name];
    const auto& inner = params["decoder.decoder." + name];
    CHECK(outer.unsafeGetTensorImpl() == inner.unsafeGetTensorImpl());
    CHECK_FALSE(outer.requires_grad());
  }
  CHECK(params["decoder.up"].item<float>() == 0.5f);
  CHECK(params["decoder.reg_scale"].item<float>() == 8.0f);  // x
  CHECK(dfine::DfineDetector("l", 80).named_parameters(true)["decoder.reg_scale"].item<float>() == 4.0f);
}

TEST_CASE("D-FINE: heads start as LibreYOLO initialises them") {
  dfine::DfineDetector model("n", 80);
  const auto p = model.named_parameters(true);
  const auto prior = -std::log(99.0);
  CHECK(p["decoder.enc_score_head.bias"].sub(prior).abs().max().item<double>() < 1e-6);
  CHECK(p["decoder.dec_score_head.2.bias"].sub(prior).abs().max().item<double>() < 1e-6);
  for (const std::string zero : {"decoder.enc_bbox_head.layers.2.weight", "decoder.pre_bbox_head.layers.2.bias",
                                 "decoder.dec_bbox_head.1.layers.2.weight", "decoder.decoder.lqe_layers.0.reg_conf.layers.1.weight",
                                 "decoder.decoder.layers.0.gateway.gate.weight", "decoder.decoder.layers.0.gateway.gate.bias",
                                 "decoder.decoder.layers.1.cross_attn.attention_weights.weight"}) {
    INFO(zero);
    CHECK(p[zero].abs().max().item<double>() == 0.0);
  }
  // n: 6 points on each of 2 levels, so every point scale is 1/6; head 0 looks along +x.
  const auto buffers = model.named_buffers(true);
  CHECK(buffers["decoder.decoder.layers.0.cross_attn.num_points_scale"].sub(1.0 / 6.0).abs().max().item<double>() < 1e-7);
  const auto offsets = p["decoder.decoder.layers.0.cross_attn.sampling_offsets.bias"].view({8, 12, 2});
  CHECK(offsets[0][0][0].item<float>() == 1.0f);
  CHECK(offsets[0][5][0].item<float>() == 6.0f);   // the sixth point of level 0
  CHECK(offsets[0][6][0].item<float>() == 1.0f);   // the first point of level 1
  CHECK(dfine::DfineDetector("s", 80).named_buffers(true)["decoder.decoder.layers.0.cross_attn.num_points_scale"]
            .sizes() == torch::IntArrayRef{12});
}

TEST_CASE("D-FINE n: forward fills the output layout in both modes") {
  torch::manual_seed(0);
  dfine::DfineDetector model("n", 3, {224, 288});
  const auto images = torch::rand({2, 3, 224, 288});
  model.eval();
  {
    torch::NoGradGuard no_grad;
    const auto out = model.forward_remainder(model.forward_capturable(images), nullptr);
    REQUIRE(out.size() == outputs::count);
    CHECK(out[outputs::dec_logits].sizes() == torch::IntArrayRef{1, 2, 300, 3});
    CHECK(out[outputs::dec_boxes].sizes() == torch::IntArrayRef{1, 2, 300, 4});
    CHECK_FALSE(out[outputs::dec_corners].defined());
    CHECK(torch::equal(out[outputs::input_size], torch::tensor({224, 288}, torch::kInt64)));
    const auto candidates = model.decode(out);
    CHECK(candidates.boxes.sizes() == torch::IntArrayRef{2, 300, 4});
    CHECK(candidates.scores.sizes() == torch::IntArrayRef{2, 300, 3});
  }
  model.train();
  auto targets = libreyolo::sdk::pad_targets(
      {torch::tensor({1.0f, 100.0f, 80.0f, 40.0f, 30.0f}).view({1, 5}),
       torch::tensor({0.0f, 50.0f, 60.0f, 20.0f, 20.0f, 2.0f, 200.0f, 150.0f, 60.0f, 50.0f}).view({2, 5})},
      torch::kCPU);
  const auto out = model.forward_remainder(model.forward_capturable(images), &targets);
  CHECK(out[outputs::dec_logits].sizes() == torch::IntArrayRef{3, 2, 300, 3});
  CHECK(out[outputs::dec_corners].sizes() == torch::IntArrayRef{3, 2, 300, 132});
  CHECK(out[outputs::dec_refs].sizes() == torch::IntArrayRef{3, 2, 300, 4});
  CHECK(out[outputs::pre_logits].sizes() == torch::IntArrayRef{2, 300, 3});
  CHECK(out[outputs::enc_boxes].sizes() == torch::IntArrayRef{2, 300, 4});
  // max_gt 2: 100 / 2 = 50 groups of 2 * 2 queries.
  CHECK(out[outputs::dn_logits].sizes() == torch::IntArrayRef{3, 2, 200, 3});
  CHECK(out[outputs::dn_corners].sizes() == torch::IntArrayRef{3, 2, 200, 132});
  CHECK(out[outputs::dn_pre_boxes].sizes() == torch::IntArrayRef{2, 200, 4});
  CHECK(out[outputs::dn_matched_gt].sizes() == torch::IntArrayRef{2, 200});
  CHECK(out[outputs::up].item<float>() == 0.5f);
  CHECK(out[outputs::reg_scale].item<float>() == 4.0f);
  // Every layer's reference is the first layer's box, detached.
  CHECK(torch::equal(out[outputs::dec_refs][0], out[outputs::dec_refs][2]));
  CHECK_FALSE(out[outputs::dec_refs].requires_grad());
  CHECK(out[outputs::dec_corners].requires_grad());
}
