// The whole D-FINE network against LibreYOLO's, on tests/fixtures/dfine/reference_outputs_<size>.json
// (tests/python/dfine_reference_outputs.py; deterministic weights, a non-square 224 x 288 batch
// of two images, 4 classes): eval-mode pred_logits / pred_boxes value by value for n, s and x,
// and for n every entry of the training layout (decoder_outputs.hpp) with denoising off, and
// with denoising on given the noise LibreYOLO drew, by shape, sum, mean |x| and sampled values.
#include "../torch_doctest.hpp"

#include <torch/torch.h>

#include <cmath>
#include <map>
#include <string>

#include "dfine_detector.hpp"  // and, through it, plugins/dfine/decoder_outputs.hpp
#include "dfine_fixture.hpp"

namespace fixture = libreyolo::test::dfine;
namespace outputs = libreyolo::dfine::outputs;
namespace sdk = libreyolo::sdk;

namespace {

const std::optional<fixture::Json>& reference() {
  static const auto json = fixture::read_fixture("reference_outputs_n.json");
  return json;
}

const std::map<std::string, size_t>& layout_positions() {
  static const std::map<std::string, size_t> positions{
      {"dec_logits", outputs::dec_logits}, {"dec_boxes", outputs::dec_boxes},
      {"dec_corners", outputs::dec_corners}, {"dec_refs", outputs::dec_refs},
      {"pre_logits", outputs::pre_logits}, {"pre_boxes", outputs::pre_boxes},
      {"enc_logits", outputs::enc_logits}, {"enc_boxes", outputs::enc_boxes},
      {"dn_logits", outputs::dn_logits}, {"dn_boxes", outputs::dn_boxes},
      {"dn_corners", outputs::dn_corners}, {"dn_refs", outputs::dn_refs},
      {"dn_pre_logits", outputs::dn_pre_logits}, {"dn_pre_boxes", outputs::dn_pre_boxes}};
  return positions;
}

// Shape, sampled values (1e-3 max abs), sum and mean |x| (1e-3 of their scale) of one output.
void check_summary(const std::string& name, const torch::Tensor& ours, const fixture::Json& expected) {
  INFO(name);
  REQUIRE(ours.defined());
  REQUIRE(ours.sizes() == torch::IntArrayRef(fixture::to_shape(expected["shape"])));
  const auto flat = ours.detach().to(torch::kFloat64).reshape(-1);
  const auto stride = static_cast<int64_t>(expected["stride"].number);
  const auto samples = flat.slice(0, 0, flat.numel(), stride);
  const auto theirs = fixture::numbers(expected["samples"], torch::kFloat64);
  REQUIRE(samples.numel() == theirs.numel());
  const auto max_diff = (samples - theirs).abs().max().item<double>();
  MESSAGE(name << ": max |C++ - LibreYOLO| over " << samples.numel() << " samples " << max_diff);
  CHECK(max_diff < 1e-3);
  const double sum = expected["sum"].number, mean_abs = expected["mean_abs"].number;
  CHECK(std::abs(flat.sum().item<double>() - sum) <= 1e-3 * std::max(1.0, std::abs(sum)));
  CHECK(std::abs(flat.abs().mean().item<double>() - mean_abs) <= 1e-3 * std::max(1.0, mean_abs));
}

void check_training_outputs(const std::vector<torch::Tensor>& out, const fixture::Json& expected) {
  for (const auto& [name, summary] : expected.fields) check_summary(name, out.at(layout_positions().at(name)), summary);
}

// Eval-mode logits and boxes of one size's fixture, every value within 1e-3.
void check_eval(const fixture::Json& ref) {
  auto model = fixture::deterministic_model(ref);
  model->eval();
  torch::NoGradGuard no_grad;
  const auto out = model->forward_remainder(model->forward_capturable(fixture::fixture_images(ref)), nullptr);
  const auto logits = out[outputs::dec_logits][-1];
  const auto boxes = out[outputs::dec_boxes][-1];
  const auto& eval = ref["eval"];
  REQUIRE(logits.sizes() == torch::IntArrayRef(fixture::to_shape(eval["pred_logits_shape"])));
  const auto logit_diff = (logits - fixture::numbers(eval["pred_logits"]).view(logits.sizes())).abs().max().item<double>();
  const auto box_diff = (boxes - fixture::numbers(eval["pred_boxes"]).view(boxes.sizes())).abs().max().item<double>();
  MESSAGE(ref["size"].text << " eval: max |C++ - LibreYOLO| logits " << logit_diff << ", boxes " << box_diff);
  CHECK(logit_diff < 1e-3);
  CHECK(box_diff < 1e-3);
}

}  // namespace

TEST_CASE("D-FINE n: eval outputs equal LibreYOLO's") {
  if (reference()) check_eval(*reference());
}

TEST_CASE("D-FINE s and x: eval outputs equal LibreYOLO's (three levels, 3/6/3 points; x's input projection)") {
  for (const std::string size : {"s", "x"}) {
    INFO("size " << size);
    if (const auto ref = fixture::read_fixture("reference_outputs_" + size + ".json")) check_eval(*ref);
  }
}

TEST_CASE("D-FINE n: training outputs without denoising equal LibreYOLO's") {
  if (!reference()) return;
  const auto& ref = *reference();
  auto model = fixture::deterministic_model(ref);
  model->decoder().set_num_denoising(0);
  model->train();
  const auto targets = fixture::fixture_targets(ref);
  const auto out = model->forward_remainder(model->forward_capturable(fixture::fixture_images(ref)), &targets);
  CHECK_FALSE(out[outputs::dn_logits].defined());
  check_training_outputs(out, ref["train_no_dn"]["outputs"]);
}

TEST_CASE("D-FINE n: training outputs with denoising equal LibreYOLO's given its noise") {
  if (!reference()) return;
  const auto& ref = *reference();
  const auto& dn = ref["train_dn"];
  const auto& noise = dn["noise"];
  const auto shape = fixture::to_shape(noise["shape"]);
  const int64_t b = shape[0], n = shape[1];
  auto model = fixture::deterministic_model(ref);
  model->decoder().set_noise_source([&](const sdk::detr::DenoisingLayout& layout, int64_t batch) {
    REQUIRE(layout.num_queries_dn == n);
    REQUIRE(batch == b);
    CHECK(layout.num_group == static_cast<int64_t>(dn["dn_num_group"].number));
    sdk::detr::DenoisingNoise drawn;
    drawn.label_uniform = fixture::numbers(noise["label_uniform"]).view({b, n});
    drawn.new_label = fixture::numbers(noise["new_label"], torch::kInt64).view({b, n});
    drawn.box_sign = fixture::numbers(noise["box_sign"]).view({b, n, 4});
    drawn.box_uniform = fixture::numbers(noise["box_uniform"]).view({b, n, 4});
    return drawn;
  });
  model->train();
  const auto targets = fixture::fixture_targets(ref);
  const auto out = model->forward_remainder(model->forward_capturable(fixture::fixture_images(ref)), &targets);
  check_training_outputs(out, dn["outputs"]);
  // LibreYOLO's dn_positive_idx: per image, the positive queries; ours names their GT too.
  const auto matched = out[outputs::dn_matched_gt];
  for (int64_t image = 0; image < b; ++image) {
    INFO("image " << image);
    const auto positives = (matched[image] >= 0).nonzero().squeeze(1);
    CHECK(torch::equal(positives, fixture::numbers(dn["dn_positive_idx"].items[static_cast<size_t>(image)], torch::kInt64)));
  }
}
