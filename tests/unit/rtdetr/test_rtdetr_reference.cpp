// The whole RT-DETR against LibreYOLO's, on tests/fixtures/rtdetr/reference_outputs_r18.json
// (tests/python/rtdetr_reference_outputs.py): parameter counts of every size, eval-mode outputs,
// the loss terms and Hungarian matches with denoising off, and the loss terms with denoising on
// given LibreYOLO's own noise.

#include "../torch_doctest.hpp"

#include <cmath>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>

#include "../deterministic_weights.hpp"
#include "../fixture_json.hpp"
#include "config.hpp"
#include "decoder_outputs.hpp"
#include "libreyolo/core/optim/unique_parameters.hpp"
#include "libreyolo/sdk/targets.hpp"
#include "rtdetr_criterion.hpp"
#include "rtdetr_detector.hpp"
#include "support/test_paths.hpp"

namespace {

using libreyolo::test::Json;
namespace rtdetr = libreyolo::rtdetr;
namespace sdk = libreyolo::sdk;

Json reference() {
  const std::string path = std::string(libreyolo::test_paths::source_dir()) + "/tests/fixtures/rtdetr/reference_outputs_r18.json";
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path + " (committed; tests/python/rtdetr_reference_outputs.py writes it)");
  std::stringstream text;
  text << in.rdbuf();
  return libreyolo::test::parse_json(text.str());
}

const Json& fixture() {
  static const Json json = reference();
  return json;
}

torch::Tensor numbers(const Json& array, torch::Dtype dtype = torch::kFloat32) {
  std::vector<double> v;
  for (const auto& item : array.items) v.push_back(item.number);
  return torch::tensor(v, torch::kFloat64).to(dtype);
}

torch::Tensor images() {
  const int64_t b = 2, s = static_cast<int64_t>(fixture()["imgsz"].number);
  return (0.5 + 0.5 * libreyolo::test::pattern(b * 3 * s * s, 1000)).view({b, 3, s, s});
}

// The fixture's normalised targets, in pixels of the input as the loader gives them.
sdk::Targets targets() {
  const double s = fixture()["imgsz"].number;
  std::vector<torch::Tensor> per_image;
  for (const auto& image : fixture()["targets"].items) {
    std::vector<float> rows;
    for (const auto& box : image.items) {
      rows.push_back(static_cast<float>(box.items[0].number));
      for (int k = 1; k < 5; ++k) rows.push_back(static_cast<float>(box.items[k].number * s));
    }
    per_image.push_back(torch::tensor(rows).view({-1, 5}));
  }
  return sdk::pad_targets(per_image, torch::kCPU);
}

std::shared_ptr<rtdetr::RtdetrDetector> deterministic_model() {
  auto model = std::make_shared<rtdetr::RtdetrDetector>("r18", static_cast<int64_t>(fixture()["num_classes"].number));
  libreyolo::test::fill_deterministic(*model, /*scale_matrices=*/true);
  return model;
}

std::map<std::string, double> named(const std::vector<std::pair<std::string, torch::Tensor>>& losses) {
  std::map<std::string, double> out;
  for (const auto& [name, value] : losses) out[name] = value.item<double>();
  return out;
}

void check_losses(const std::map<std::string, double>& ours, const Json& theirs) {
  CHECK(ours.size() == theirs.fields.size());
  for (const auto& [name, value] : theirs.fields) {
    INFO(name);
    REQUIRE(ours.count(name) == 1);
    CHECK(std::abs(ours.at(name) - value.number) <= 1e-3 * std::max(1.0, std::abs(value.number)));
  }
}

// Rows [Q, K] of one image equal up to their order: every row of each side within tol of some row
// of the other. The encoder's top-300 selection sorts queries by score, and where two scores tie
// to the last bits the order follows the machine's rounding (seen: two rows of image 1 swap
// places with OMP_NUM_THREADS set on the CPU machine); the post-processing does not depend on it.
void check_rows_up_to_order(const torch::Tensor& ours, const torch::Tensor& theirs, double tol) {
  for (int64_t image = 0; image < ours.size(0); ++image) {
    INFO("image ", image);
    const auto distances = (ours[image].unsqueeze(1) - theirs[image].unsqueeze(0)).abs().amax(-1);  // [Q, Q]
    CHECK(std::get<0>(distances.min(1)).max().item<double>() < tol);
    CHECK(std::get<0>(distances.min(0)).max().item<double>() < tol);
    const auto displaced = ((ours[image] - theirs[image]).abs().amax(-1) > tol).sum().item<int64_t>();
    CHECK(displaced <= ours.size(1) / 10);  // a few ties, not a different selection
  }
}

}  // namespace

TEST_CASE("RT-DETR: every size has LibreYOLO's parameter count at 80 classes") {
  for (const auto& [size, count] : fixture()["parameters_nc80"].fields) {
    INFO(size);
    rtdetr::RtdetrDetector model(size, 80);
    int64_t total = 0;
    for (const auto& p : libreyolo::core::optim::unique_parameters(model, /*trainable_only=*/false)) total += p.numel();
    CHECK(total == static_cast<int64_t>(count.number));
  }
}

TEST_CASE("RT-DETR r18: eval outputs equal LibreYOLO's") {
  auto model = deterministic_model();
  model->eval();
  torch::NoGradGuard no_grad;
  const auto out = model->forward_remainder(model->forward_capturable(images()), nullptr);
  const auto logits = out[rtdetr::outputs::dec_logits][-1];
  const auto boxes = out[rtdetr::outputs::dec_boxes][-1];
  const auto& eval = fixture()["eval"];
  const auto ref_logits = numbers(eval["pred_logits"]).view(logits.sizes());
  const auto ref_boxes = numbers(eval["pred_boxes"]).view(boxes.sizes());
  check_rows_up_to_order(torch::cat({logits, boxes}, -1), torch::cat({ref_logits, ref_boxes}, -1), 1e-3);
}

TEST_CASE("RT-DETR r18: loss terms and matches without denoising equal LibreYOLO's") {
  auto model = deterministic_model();
  model->decoder().set_num_denoising(0);
  model->train();
  const auto t = targets();
  const auto out = model->forward_remainder(model->forward_capturable(images()), &t);
  rtdetr::RtdetrLossSettings settings;
  settings.num_classes = model->num_classes();
  rtdetr::RtdetrCriterion criterion(settings);
  const auto& ref = fixture()["train_no_dn"];
  check_losses(named(criterion.named_losses(out, t)), ref["losses"]);

  const auto matched = criterion.match(out, t);  // [S, B, Q]
  REQUIRE(matched.size(0) == static_cast<int64_t>(ref["matches"].items.size()));
  for (int64_t s = 0; s < matched.size(0); ++s) {
    for (int64_t b = 0; b < matched.size(1); ++b) {
      const auto& pair = ref["matches"].items[static_cast<size_t>(s)].items[static_cast<size_t>(b)];
      const auto queries = numbers(pair.items[0], torch::kInt64), gts = numbers(pair.items[1], torch::kInt64);
      const auto ours = matched[s][b];
      const auto our_queries = (ours >= 0).nonzero().squeeze(1);
      INFO("set " << s << " image " << b);
      CHECK(torch::equal(our_queries, queries));
      CHECK(torch::equal(ours.index_select(0, our_queries), gts));
    }
  }
}

TEST_CASE("RT-DETR r18: loss terms with denoising equal LibreYOLO's given its noise") {
  const auto& ref = fixture()["train_dn"];
  const auto& noise = ref["noise"];
  const auto shape = numbers(noise["shape"], torch::kInt64);
  const int64_t b = shape[0].item<int64_t>(), n = shape[1].item<int64_t>();
  auto model = deterministic_model();
  model->decoder().set_noise_source([&](const sdk::detr::DenoisingLayout& layout, int64_t batch) {
    REQUIRE(layout.num_queries_dn == n);
    REQUIRE(batch == b);
    CHECK(layout.num_group == static_cast<int64_t>(ref["dn_num_group"].number));
    sdk::detr::DenoisingNoise drawn;
    drawn.label_uniform = numbers(noise["label_uniform"]).view({b, n});
    drawn.new_label = numbers(noise["new_label"], torch::kInt64).view({b, n});
    drawn.box_sign = numbers(noise["box_sign"]).view({b, n, 4});
    drawn.box_uniform = numbers(noise["box_uniform"]).view({b, n, 4});
    return drawn;
  });
  model->train();
  const auto t = targets();
  const auto out = model->forward_remainder(model->forward_capturable(images()), &t);
  rtdetr::RtdetrLossSettings settings;
  settings.num_classes = model->num_classes();
  rtdetr::RtdetrCriterion criterion(settings);
  check_losses(named(criterion.named_losses(out, t)), ref["losses"]);
  const auto total = criterion(out, t, images()).total.item<double>();
  CHECK(total == doctest::Approx(ref["total"].number).epsilon(1e-3));
}
