// Parameter groups and frozen parameters from name rules (sdk::ParamGroupRule): glob
// matching, split_by_rules on a DETR-shaped toy model (checked against LibreYOLO D-FINE's own
// name tests), freeze_parameters, describe_param_groups.

#include "../torch_doctest.hpp"

#include <algorithm>
#include <cmath>
#include <random>

#include "libreyolo/core/error.hpp"
#include "libreyolo/core/optim/param_group_rules.hpp"
#include "libreyolo/core/optim/sgd.hpp"

namespace optim = libreyolo::core::optim;
using libreyolo::sdk::ParamGroupRule;

namespace {

// HGNetv2's learnable affine block: a bare scale and bias.
struct LabImpl : torch::nn::Module {
  LabImpl() {
    scale = register_parameter("scale", torch::ones({1}));
    bias = register_parameter("bias", torch::zeros({1}));
  }
  torch::Tensor scale, bias;
};

struct StemImpl : torch::nn::Module {
  StemImpl() {
    conv = register_module("conv", torch::nn::Conv2d(torch::nn::Conv2dOptions(3, 4, 3).bias(false)));
    bn = register_module("bn", torch::nn::BatchNorm2d(4));
  }
  torch::nn::Conv2d conv{nullptr};
  torch::nn::BatchNorm2d bn{nullptr};
};

struct BackboneImpl : torch::nn::Module {
  BackboneImpl() {
    stem = register_module("stem", std::make_shared<StemImpl>());
    lab = register_module("lab", std::make_shared<LabImpl>());
  }
  std::shared_ptr<StemImpl> stem;
  std::shared_ptr<LabImpl> lab;
};

struct EncoderImpl : torch::nn::Module {
  EncoderImpl() {
    proj = register_module("proj", torch::nn::Linear(4, 4));
    norm = register_module("norm", torch::nn::LayerNorm(torch::nn::LayerNormOptions({4})));
  }
  torch::nn::Linear proj{nullptr};
  torch::nn::LayerNorm norm{nullptr};
};

struct DecoderLayerImpl : torch::nn::Module {
  DecoderLayerImpl() { linear = register_module("linear", torch::nn::Linear(4, 4)); }
  torch::nn::Linear linear{nullptr};
};

// Its `out` weight is tied to the encoder's projection (registered second: that name is not
// the one named_parameters() keeps).
struct DecoderImpl : torch::nn::Module {
  explicit DecoderImpl(const torch::Tensor& tied) {
    layers = register_module("layers", torch::nn::ModuleList());
    layers->push_back(std::make_shared<DecoderLayerImpl>());
    layers->push_back(std::make_shared<DecoderLayerImpl>());
    query = register_parameter("query", torch::randn({2, 4}));
    out = register_module("out", std::make_shared<torch::nn::Module>());
    out->register_parameter("weight", tied);
  }
  torch::nn::ModuleList layers{nullptr};
  torch::Tensor query;
  std::shared_ptr<torch::nn::Module> out;
};

struct Detr : torch::nn::Module {
  Detr() {
    backbone = register_module("backbone", std::make_shared<BackboneImpl>());
    encoder = register_module("encoder", std::make_shared<EncoderImpl>());
    decoder = register_module("decoder", std::make_shared<DecoderImpl>(encoder->proj->weight));
  }
  std::shared_ptr<BackboneImpl> backbone;
  std::shared_ptr<EncoderImpl> encoder;
  std::shared_ptr<DecoderImpl> decoder;
};

// named_parameters() order, the tied decoder.out.weight left out.
const std::vector<std::string> kNames = {
    "backbone.stem.conv.weight", "backbone.stem.bn.weight", "backbone.stem.bn.bias",
    "backbone.lab.scale",        "backbone.lab.bias",       "encoder.proj.weight",
    "encoder.proj.bias",         "encoder.norm.weight",     "encoder.norm.bias",
    "decoder.query",             "decoder.layers.0.linear.weight", "decoder.layers.0.linear.bias",
    "decoder.layers.1.linear.weight", "decoder.layers.1.linear.bias"};

// D-FINE's four groups (docs/param-groups.md), most specific first.
std::vector<ParamGroupRule> dfine_rules() {
  return {
      {"backbone_no_decay", {"backbone.*norm*", "backbone.*.bn.*", "backbone.*bias*", "backbone.*lab.scale*"}, 0.5, 0.0},
      {"backbone", {"backbone.*"}, 0.5, std::nullopt},
      {"no_decay", {"*norm*", "*.bn.*", "*bias*", "*lab.scale*"}, 1.0, 0.0},
  };
}

// LibreYOLO D-FINE's _setup_optimizer tests, as Python writes them, naming our groups.
std::string dfine_group_of(const std::string& name) {
  const auto has = [&](const char* part) { return name.find(part) != std::string::npos; };
  const bool norm_or_bias = has("norm") || has(".bn.") || has("bias") || has("lab.scale");
  const bool backbone = name.rfind("backbone.", 0) == 0;
  if (backbone) return norm_or_bias ? "backbone_no_decay" : "backbone";
  return norm_or_bias ? "no_decay" : "default";
}

// Parameter name of every tensor of `group`, looked up in the model.
std::vector<std::string> names_in(const optim::ParamGroup& group, const torch::nn::Module& model) {
  std::vector<std::string> out;
  for (const auto& p : group.params) {
    for (const auto& item : model.named_parameters()) {
      if (item.value().unsafeGetTensorImpl() == p.unsafeGetTensorImpl()) {
        out.push_back(item.key());
        break;
      }
    }
  }
  return out;
}

// A plain recursive matcher: the definition glob_match must agree with.
bool reference_glob(const std::string& p, const std::string& n, std::size_t i = 0, std::size_t j = 0) {
  if (i == p.size()) return j == n.size();
  if (p[i] == '*') return reference_glob(p, n, i + 1, j) || (j < n.size() && reference_glob(p, n, i, j + 1));
  return j < n.size() && (p[i] == '?' || p[i] == n[j]) && reference_glob(p, n, i + 1, j + 1);
}

}  // namespace

TEST_CASE("glob_match: `*` any run (dots too), `?` one character, the rest literal") {
  using optim::glob_match;
  CHECK(glob_match("encoder.norm.bias", "encoder.norm.bias"));
  CHECK_FALSE(glob_match("encoder.norm.bias", "encoder.norm.biasx"));
  CHECK_FALSE(glob_match("encoder.norm.biasx", "encoder.norm.bias"));
  CHECK(glob_match("backbone.*", "backbone.stem.conv.weight"));
  CHECK_FALSE(glob_match("backbone.*", "backbone"));
  CHECK_FALSE(glob_match("backbone.*", "xbackbone.stem"));  // whole name, not a substring
  CHECK(glob_match("backbone*", "backbone"));
  CHECK(glob_match("*norm*", "encoder.norm.bias"));
  CHECK(glob_match("*bias", "decoder.layers.0.self_attn.in_proj_bias"));
  CHECK(glob_match("*.bn.*", "backbone.stem.bn.weight"));
  CHECK_FALSE(glob_match("*.bn.*", "backbone.stem.bn"));
  CHECK(glob_match("decoder.layers.?.linear.weight", "decoder.layers.0.linear.weight"));
  CHECK_FALSE(glob_match("decoder.layers.?.linear.weight", "decoder.layers.10.linear.weight"));
  CHECK_FALSE(glob_match("a.b", "axb"));  // '.' is a dot, not regex's any character
  CHECK(glob_match("w[0]", "w[0]"));      // no character classes
  CHECK_FALSE(glob_match("w[0]", "w0"));
  CHECK_FALSE(glob_match("Norm", "norm"));  // case matters, as in state-dict keys
}

TEST_CASE("glob_match: empty strings, runs of stars, retries") {
  using optim::glob_match;
  CHECK(glob_match("", ""));
  CHECK_FALSE(glob_match("", "a"));
  CHECK(glob_match("*", ""));
  CHECK(glob_match("**", "x.y"));
  CHECK_FALSE(glob_match("?", ""));
  CHECK_FALSE(glob_match("*?", ""));
  CHECK(glob_match("*?", "a"));
  CHECK(glob_match("*a*b", "xaxxb"));
  CHECK_FALSE(glob_match("*a*b", "xaxxbx"));
  CHECK(glob_match("a*b*c*d", "abcabcabd"));
  CHECK(glob_match("*ab", "aab"));  // the star must give back what it first took
  // Would take exponential time with naive backtracking over every star.
  CHECK_FALSE(glob_match("*a*a*a*a*a*a*a*a*b", std::string(200, 'a')));
}

TEST_CASE("glob_match agrees with a recursive reference on random patterns and names") {
  std::mt19937 rng(11);
  const std::string name_chars = "ab.", pattern_chars = "ab.*?";
  auto random_text = [&](const std::string& alphabet, int max_length) {
    std::string out(std::uniform_int_distribution<int>(0, max_length)(rng), ' ');
    for (auto& c : out) c = alphabet[std::uniform_int_distribution<std::size_t>(0, alphabet.size() - 1)(rng)];
    return out;
  };
  int matches = 0;
  for (int i = 0; i < 20000; ++i) {
    const auto pattern = random_text(pattern_chars, 6);
    const auto name = random_text(name_chars, 8);
    CAPTURE(pattern);
    CAPTURE(name);
    const bool expected = reference_glob(pattern, name);
    REQUIRE(optim::glob_match(pattern, name) == expected);
    matches += expected;
  }
  CHECK(matches > 1000);  // both outcomes exercised
}

TEST_CASE("split_by_rules: D-FINE's groups, in rule order, then default") {
  Detr model;
  const auto split = optim::split_by_rules(model, dfine_rules(), 1e-4);
  REQUIRE(split.groups.size() == 4);
  CHECK(split.warnings.empty());
  CHECK(split.ungrouped.empty());  // the default group takes bare parameters too

  const std::vector<std::string> order = {"backbone_no_decay", "backbone", "no_decay", "default"};
  const std::vector<double> lr_mult = {0.5, 0.5, 1.0, 1.0};
  const std::vector<double> decay = {0.0, 1e-4, 0.0, 1e-4};
  for (std::size_t g = 0; g < order.size(); ++g) {
    CAPTURE(g);
    CHECK(split.groups[g].name == order[g]);
    CHECK(split.groups[g].lr_mult == lr_mult[g]);
    CHECK(split.groups[g].weight_decay == decay[g]);
  }
  // Each group holds exactly the parameters LibreYOLO's D-FINE trainer puts there, in
  // named_parameters() order.
  for (const auto& group : split.groups) {
    std::vector<std::string> expected;
    for (const auto& name : kNames) {
      if (dfine_group_of(name) == group.name) expected.push_back(name);
    }
    CAPTURE(group.name);
    CHECK(names_in(group, model) == expected);
  }
  CHECK(names_in(split.groups[0], model) ==
        std::vector<std::string>{"backbone.stem.bn.weight", "backbone.stem.bn.bias", "backbone.lab.scale",
                                 "backbone.lab.bias"});
  CHECK(names_in(split.groups[3], model) ==
        std::vector<std::string>{"encoder.proj.weight", "decoder.query", "decoder.layers.0.linear.weight",
                                 "decoder.layers.1.linear.weight"});
}

TEST_CASE("split_by_rules: RT-DETR's groups match LibreYOLO's regex rules") {
  // LibreYOLO rtdetr/trainer.py, first match wins: (?=.*backbone)(?=.*(?:norm|bn)) -> lr_bb,
  // wd 0; backbone -> lr_bb; (?=.*(?:encoder|decoder))(?=.*(?:norm|bias)) -> wd 0; the rest.
  // Names begin with their top module, so "contains backbone" is "backbone.*" here.
  const double lr_bb = 5e-6 / 1e-4;  // lr_backbone / lr0
  const std::vector<ParamGroupRule> rules = {
      {"backbone_norm", {"backbone.*norm*", "backbone.*bn*"}, lr_bb, 0.0},
      {"backbone", {"backbone.*"}, lr_bb, std::nullopt},
      {"no_decay", {"encoder.*norm*", "encoder.*bias*", "decoder.*norm*", "decoder.*bias*"}, 1.0, 0.0},
  };
  const auto regex_group_of = [](const std::string& name) -> std::string {
    const auto has = [&](const char* part) { return name.find(part) != std::string::npos; };
    if (has("backbone") && (has("norm") || has("bn"))) return "backbone_norm";
    if (has("backbone")) return "backbone";
    if ((has("encoder") || has("decoder")) && (has("norm") || has("bias"))) return "no_decay";
    return "default";
  };
  Detr model;
  const auto split = optim::split_by_rules(model, rules, 1e-4);
  REQUIRE(split.groups.size() == 4);
  CHECK(split.warnings.empty());
  for (const auto& group : split.groups) {
    std::vector<std::string> expected;
    for (const auto& name : kNames) {
      if (regex_group_of(name) == group.name) expected.push_back(name);
    }
    CAPTURE(group.name);
    CHECK(names_in(group, model) == expected);
  }
  CHECK(split.groups[0].lr_mult == doctest::Approx(0.05));
  CHECK(split.groups[1].weight_decay == 1e-4);  // unset: the run's
  CHECK(split.groups[2].weight_decay == 0.0);
}

TEST_CASE("split_by_rules: a tied parameter is grouped once, under its first name") {
  Detr model;
  const auto split = optim::split_by_rules(model, dfine_rules(), 1e-4);
  std::size_t total = 0, tied = 0;
  for (const auto& group : split.groups) {
    total += group.params.size();
    for (const auto& p : group.params) tied += p.unsafeGetTensorImpl() == model.encoder->proj->weight.unsafeGetTensorImpl();
  }
  CHECK(total == kNames.size());
  CHECK(tied == 1);
}

TEST_CASE("split_by_rules: frozen parameters join no group; rules left empty by freezing are no mistake") {
  Detr model;
  const auto frozen = optim::freeze_parameters(model, {"backbone.stem.*"});
  const auto split = optim::split_by_rules(model, dfine_rules(), 1e-4);
  CHECK(split.warnings.empty());  // "backbone" still names parameters: frozen ones
  REQUIRE(split.groups.size() == 3);
  CHECK(split.groups[0].name == "backbone_no_decay");
  CHECK(names_in(split.groups[0], model) == std::vector<std::string>{"backbone.lab.scale", "backbone.lab.bias"});
  CHECK(split.groups[1].name == "no_decay");
  CHECK(split.groups[2].name == "default");
  for (const auto& group : split.groups) {
    for (const auto& p : group.params) CHECK(p.requires_grad());
  }
}

TEST_CASE("split_by_rules: a rule no parameter falls to is a warning, not an error") {
  Detr model;
  auto rules = dfine_rules();
  rules.push_back({"neck", {"neck.*"}, 2.0, std::nullopt});           // this size has no neck
  rules.push_back({"stem", {"backbone.stem.*"}, 0.1, std::nullopt});  // shadowed by "backbone"
  rules.push_back({"out", {"decoder.out.*"}, 1.0, std::nullopt});     // the tied tensor's second name
  const auto split = optim::split_by_rules(model, rules, 1e-4);
  REQUIRE(split.warnings.size() == 3);
  CHECK(split.warnings[0].find("'neck' matches no parameter") != std::string::npos);
  CHECK(split.warnings[1].find("'stem'") != std::string::npos);
  CHECK(split.warnings[1].find("earlier rule") != std::string::npos);
  CHECK(split.warnings[1].find("backbone.stem.conv.weight") != std::string::npos);
  CHECK(split.warnings[2].find("'out' matches no parameter") != std::string::npos);
  CHECK(split.groups.size() == 4);  // the empty rules add no group
}

TEST_CASE("split_by_rules: no rules is LibreYOLO's YOLO split, group for group") {
  Detr model;
  const auto ours = optim::split_by_rules(model, {}, 5e-4);
  const auto yolo = optim::split_param_groups(model, 5e-4);
  REQUIRE(ours.groups.size() == yolo.groups.size());
  for (std::size_t g = 0; g < yolo.groups.size(); ++g) {
    CAPTURE(g);
    CHECK(ours.groups[g].name == yolo.groups[g].name);
    CHECK(ours.groups[g].weight_decay == yolo.groups[g].weight_decay);
    CHECK(ours.groups[g].lr_mult == yolo.groups[g].lr_mult);
    REQUIRE(ours.groups[g].params.size() == yolo.groups[g].params.size());
    for (std::size_t i = 0; i < yolo.groups[g].params.size(); ++i) {
      CHECK(ours.groups[g].params[i].unsafeGetTensorImpl() == yolo.groups[g].params[i].unsafeGetTensorImpl());
    }
  }
  CHECK(ours.ungrouped == yolo.ungrouped);
  CHECK(ours.ungrouped == std::vector<std::string>{"backbone.lab.scale", "decoder.query"});
  CHECK(ours.warnings.empty());
}

TEST_CASE("split_by_rules: refuses unnamed, duplicate and out-of-range rules; needs a trainable parameter") {
  Detr model;
  using libreyolo::core::Error;
  const auto unset = std::nullopt;
  CHECK_THROWS_AS(optim::split_by_rules(model, {{"", {"*"}, 1.0, unset}}, 0.0), Error);
  CHECK_THROWS_AS(optim::split_by_rules(model, {{"a", {"x*"}, 1.0, unset}, {"a", {"y*"}, 1.0, unset}}, 0.0), Error);
  CHECK_THROWS_AS(optim::split_by_rules(model, {{"default", {"x*"}, 1.0, unset}}, 0.0), Error);
  CHECK_THROWS_AS(optim::split_by_rules(model, {{"a", {"*"}, -1.0, unset}}, 0.0), Error);
  CHECK_THROWS_AS(optim::split_by_rules(model, {{"a", {"*"}, 1.0, std::nan("")}}, 0.0), Error);
  CHECK_NOTHROW(optim::split_by_rules(model, {{"a", {"*"}, 0.0, 0.0}}, 0.0));

  optim::freeze_parameters(model, {"*"});
  CHECK_THROWS_AS(optim::split_by_rules(model, dfine_rules(), 0.0), Error);
}

TEST_CASE("split_by_rules: the optimizer's lr follows each group's lr_scale") {
  Detr model;
  optim::Sgd sgd(optim::split_by_rules(model, dfine_rules(), 1e-4).groups);
  sgd.set_lr(0.02);
  CHECK(sgd.groups()[0].lr == doctest::Approx(0.01));
  CHECK(sgd.groups()[1].lr == doctest::Approx(0.01));
  CHECK(sgd.groups()[2].lr == doctest::Approx(0.02));
  CHECK(sgd.groups()[3].lr == doctest::Approx(0.02));
}

TEST_CASE("freeze_parameters: freezes every match, reports names, sizes and unused patterns") {
  Detr model;
  model.encoder->norm->bias.requires_grad_(false);  // already frozen: reported as frozen too
  const auto report = optim::freeze_parameters(model, {"backbone.stem.*", "*.norm.bias", "neck.*"});
  CHECK(report.frozen == std::vector<std::string>{"backbone.stem.conv.weight", "backbone.stem.bn.weight",
                                                  "backbone.stem.bn.bias", "encoder.norm.bias"});
  CHECK(report.parameters == 4 * 3 * 3 * 3 + 4 + 4 + 4);
  CHECK(report.unmatched_patterns == std::vector<std::string>{"neck.*"});
  for (const auto& item : model.named_parameters()) {
    CAPTURE(item.key());
    const bool should_be_frozen =
        std::find(report.frozen.begin(), report.frozen.end(), item.key()) != report.frozen.end();
    CHECK(item.value().requires_grad() == !should_be_frozen);
  }
  // Buffers are not parameters: BatchNorm statistics keep training.
  CHECK(model.backbone->stem->bn->running_mean.defined());

  const auto nothing = optim::freeze_parameters(model, {});
  CHECK(nothing.frozen.empty());
  CHECK(nothing.parameters == 0);
  CHECK(nothing.unmatched_patterns.empty());
}

TEST_CASE("describe_param_groups: one row per group with tensors, values, lr scale and decay") {
  Detr model;
  const auto rows = optim::describe_param_groups(optim::split_by_rules(model, dfine_rules(), 1e-4).groups);
  REQUIRE(rows.size() == 4);
  CHECK(rows[0].name == "backbone_no_decay");
  CHECK(rows[0].tensors == 4);
  CHECK(rows[0].parameters == 4 + 4 + 1 + 1);
  CHECK(rows[0].lr_scale == 0.5);
  CHECK(rows[0].weight_decay == 0.0);
  CHECK(rows[1].name == "backbone");
  CHECK(rows[1].tensors == 1);
  CHECK(rows[1].parameters == 108);
  CHECK(rows[1].weight_decay == 1e-4);
  CHECK(rows[3].name == "default");
  CHECK(rows[3].tensors == 4);
  CHECK(rows[3].parameters == 16 + 8 + 16 + 16);
  CHECK(rows[3].lr_scale == 1.0);
}
