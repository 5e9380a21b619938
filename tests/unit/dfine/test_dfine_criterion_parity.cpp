// D-FINE's criterion against LibreYOLO's DFINECriterion on tests/fixtures/dfine/criterion_reference.json
// (tests/python/dfine_criterion_reference.py): the same random decoder outputs in the layout of
// plugins/dfine/decoder_outputs.hpp, every named loss within 1e-4 of LibreYOLO's (relative), with
// denoising off and on, a NaN prediction, and a batch without boxes; the Hungarian matches of
// every set and their GO-LSD union exactly. Skipped when the fixture is absent.

#include "../torch_doctest.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <map>
#include <optional>
#include <sstream>

#include "../fixture_json.hpp"
#include "dfine/decoder_outputs.hpp"
#include "dfine/dfine_criterion.hpp"
#include "libreyolo/sdk/targets.hpp"
#include "support/test_paths.hpp"

namespace {

using libreyolo::test::Json;
namespace dfine = libreyolo::dfine;
namespace outputs = libreyolo::dfine::outputs;
namespace sdk = libreyolo::sdk;

// The network input the pixel targets refer to: powers of two, so that normalising is exact.
constexpr int64_t kHeight = 256, kWidth = 512;

std::optional<Json> read_reference() {
  const std::string path = std::string(libreyolo::test_paths::source_dir()) + "/tests/fixtures/dfine/criterion_reference.json";
  std::ifstream in(path);
  if (!in) return std::nullopt;
  std::stringstream text;
  text << in.rdbuf();
  return libreyolo::test::parse_json(text.str());
}

const std::optional<Json>& reference() {
  static const auto json = read_reference();
  return json;
}

torch::Tensor input(const std::string& name, torch::Dtype dtype = torch::kFloat32) {
  const auto& entry = (*reference())["inputs"][name];
  std::vector<int64_t> shape;
  for (const auto& d : entry["shape"].items) shape.push_back(static_cast<int64_t>(d.number));
  std::vector<double> values;
  for (const auto& v : entry["values"].items) values.push_back(v.number);
  return torch::tensor(values, torch::kFloat64).view(shape).to(dtype);
}

// The outputs vector as the D-FINE detector returns it in training.
std::vector<torch::Tensor> detector_outputs(bool denoising) {
  std::vector<torch::Tensor> out(outputs::count);
  const std::pair<size_t, const char*> names[] = {
      {outputs::dec_logits, "dec_logits"}, {outputs::dec_boxes, "dec_boxes"}, {outputs::dec_corners, "dec_corners"},
      {outputs::dec_refs, "dec_refs"},     {outputs::pre_logits, "pre_logits"}, {outputs::pre_boxes, "pre_boxes"},
      {outputs::enc_logits, "enc_logits"}, {outputs::enc_boxes, "enc_boxes"},  {outputs::up, "up"},
      {outputs::reg_scale, "reg_scale"}};
  for (const auto& [index, name] : names) out[index] = input(name).requires_grad_();
  if (denoising) {
    const std::pair<size_t, const char*> dn[] = {
        {outputs::dn_logits, "dn_logits"},         {outputs::dn_boxes, "dn_boxes"},
        {outputs::dn_corners, "dn_corners"},       {outputs::dn_refs, "dn_refs"},
        {outputs::dn_pre_logits, "dn_pre_logits"}, {outputs::dn_pre_boxes, "dn_pre_boxes"}};
    for (const auto& [index, name] : dn) out[index] = input(name).requires_grad_();
    out[outputs::dn_matched_gt] = input("dn_matched_gt", torch::kInt64);
  }
  out[outputs::input_size] = torch::tensor({kHeight, kWidth}, torch::kInt64);
  return out;
}

// The fixture's normalised targets in pixels of the input, as the loader gives them.
sdk::Targets targets(bool empty = false) {
  std::vector<torch::Tensor> per_image;
  for (const auto& image : (*reference())["targets"].items) {
    std::vector<float> rows;
    if (!empty)
      for (const auto& box : image.items) {
        rows.push_back(static_cast<float>(box.items[0].number));
        const double scale[] = {kWidth, kHeight, kWidth, kHeight};
        for (int k = 1; k < 5; ++k) rows.push_back(static_cast<float>(box.items[k].number * scale[k - 1]));
      }
    per_image.push_back(torch::tensor(rows, torch::kFloat32).view({-1, 5}));
  }
  return sdk::pad_targets(per_image, torch::kCPU);
}

dfine::DfineCriterion criterion() {
  dfine::DfineLossSettings settings;
  settings.num_classes = static_cast<int64_t>((*reference())["num_classes"].number);
  settings.reg_max = static_cast<int64_t>((*reference())["reg_max"].number);
  return dfine::DfineCriterion(settings);
}

std::map<std::string, double> named(const std::vector<std::pair<std::string, torch::Tensor>>& losses) {
  std::map<std::string, double> out;
  for (const auto& [name, value] : losses) out[name] = value.item<double>();
  return out;
}

bool denoising_key(const std::string& name) { return name.find("_dn_") != std::string::npos; }

// Every LibreYOLO term (but the denoising ones when skip_denoising) within 1e-4 relative of ours.
void check_case(const std::map<std::string, double>& ours, const Json& theirs, bool skip_denoising = false) {
  size_t compared = 0;
  double worst = 0;
  for (const auto& [name, value] : theirs.fields) {
    if (skip_denoising && denoising_key(name)) continue;
    INFO(name);
    REQUIRE(ours.count(name) == 1);
    const double difference = std::abs(ours.at(name) - value.number);
    CHECK(difference <= 1e-4 * std::abs(value.number) + 1e-7);
    if (value.number != 0) worst = std::max(worst, difference / std::abs(value.number));
    ++compared;
  }
  CHECK(ours.size() == compared);
  MESSAGE(compared << " terms, largest relative difference " << worst);
}

#define SKIP_WITHOUT_FIXTURE()                                                                  \
  if (!reference()) {                                                                           \
    MESSAGE("tests/fixtures/dfine/criterion_reference.json is absent: run "                     \
            "tests/python/dfine_criterion_reference.py; skipped");                              \
    return;                                                                                     \
  }

}  // namespace

TEST_CASE("dfine criterion: LibreYOLO's terms without denoising") {
  SKIP_WITHOUT_FIXTURE();
  auto c = criterion();
  check_case(named(c.named_losses(detector_outputs(false), targets())), (*reference())["cases"]["no_dn"]);
}

TEST_CASE("dfine criterion: LibreYOLO's terms with denoising, and the total and components") {
  SKIP_WITHOUT_FIXTURE();
  auto c = criterion();
  const auto out = detector_outputs(true);
  const auto& theirs = (*reference())["cases"]["dn"];
  check_case(named(c.named_losses(out, targets())), theirs);
  double total = 0, vfl = 0;
  for (const auto& [name, value] : theirs.fields) {
    total += value.number;
    if (name.rfind("loss_vfl", 0) == 0) vfl += value.number;
  }
  const auto loss = c(out, targets(), torch::Tensor());
  CHECK(loss.total.item<double>() == doctest::Approx(total).epsilon(1e-4));
  REQUIRE(loss.components.size() == 5);
  CHECK(loss.components[0].first == "vfl");
  CHECK(loss.components[0].second.item<double>() == doctest::Approx(vfl).epsilon(1e-4));
  // Gradients reach every prediction and stay finite.
  loss.total.backward();
  for (const auto index : {outputs::dec_logits, outputs::dec_boxes, outputs::dec_corners, outputs::pre_boxes,
                           outputs::enc_logits, outputs::dn_corners, outputs::dn_pre_boxes}) {
    INFO(index);
    REQUIRE(out[index].grad().defined());
    CHECK(torch::isfinite(out[index].grad()).all().item<bool>());
    CHECK(out[index].grad().abs().sum().item<double>() > 0);
  }
}

TEST_CASE("dfine criterion: a query with NaN logits is matched at cost 1 and its NaN terms become 0") {
  SKIP_WITHOUT_FIXTURE();
  auto out = detector_outputs(false);
  const auto& where = (*reference())["nan_logits"];
  REQUIRE(where["set"].text == "pre");
  torch::NoGradGuard no_grad;
  out[outputs::pre_logits][static_cast<int64_t>(where["image"].number)][static_cast<int64_t>(where["query"].number)]
      .fill_(std::numeric_limits<float>::quiet_NaN());
  auto c = criterion();
  check_case(named(c.named_losses(out, targets())), (*reference())["cases"]["nan_logits"]);
}

TEST_CASE("dfine criterion: a batch without boxes (LibreYOLO's zero-valued denoising terms are not emitted)") {
  SKIP_WITHOUT_FIXTURE();
  auto c = criterion();
  const auto& theirs = (*reference())["cases"]["no_targets"];
  // The decoder makes no denoising queries without ground truth: those entries are undefined.
  check_case(named(c.named_losses(detector_outputs(false), targets(/*empty=*/true))), theirs,
             /*skip_denoising=*/true);
  for (const auto& [name, value] : theirs.fields)
    if (denoising_key(name)) CHECK(value.number == 0.0);
}

TEST_CASE("dfine criterion: the matches of every set and their GO-LSD union are LibreYOLO's") {
  SKIP_WITHOUT_FIXTURE();
  auto c = criterion();
  const auto out = detector_outputs(false);
  const auto matched = c.match(out, targets());  // [S, B, Q]
  const auto unified = c.union_match(out, targets());
  const auto& m = (*reference())["matches"];
  REQUIRE(matched.size(0) == static_cast<int64_t>(m["sets"].items.size()));
  auto expect = [](const Json& pairs, int64_t queries) {
    auto row = torch::full({queries}, -1, torch::kInt64);
    for (size_t k = 0; k < pairs.items[0].items.size(); ++k)
      row[static_cast<int64_t>(pairs.items[0].items[k].number)] = static_cast<int64_t>(pairs.items[1].items[k].number);
    return row;
  };
  const auto queries = matched.size(2);
  for (int64_t s = 0; s < matched.size(0); ++s)
    for (int64_t b = 0; b < matched.size(1); ++b) {
      INFO("set " << s << " image " << b);
      CHECK(torch::equal(matched[s][b], expect(m["sets"].items[s].items[b], queries)));
    }
  for (int64_t b = 0; b < unified.size(0); ++b) {
    INFO("image " << b);
    CHECK(torch::equal(unified[b], expect(m["go"].items[b], queries)));
  }
}

TEST_CASE("dfine criterion: one decoder layer has no DDF term, and its component is 0") {
  SKIP_WITHOUT_FIXTURE();
  auto out = detector_outputs(false);
  for (const auto index : {outputs::dec_logits, outputs::dec_boxes, outputs::dec_corners, outputs::dec_refs})
    out[index] = out[index].narrow(0, out[index].size(0) - 1, 1);
  auto c = criterion();
  const auto losses = named(c.named_losses(out, targets()));
  CHECK(losses.count("loss_fgl") == 1);
  for (const auto& [name, value] : losses) CHECK(name.find("ddf") == std::string::npos);
  const auto loss = c(out, targets(), torch::Tensor());
  CHECK(loss.components[4].first == "ddf");
  CHECK(loss.components[4].second.item<double>() == 0.0);
  // The last layer's terms do not depend on how many layers came before it.
  const auto& full = (*reference())["cases"]["no_dn"];
  CHECK(losses.at("loss_vfl") == doctest::Approx(full["loss_vfl"].number).epsilon(1e-4));
}
