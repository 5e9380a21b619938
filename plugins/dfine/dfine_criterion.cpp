#include "dfine_criterion.hpp"

#include <torch/torch.h>

#include <stdexcept>

#include "decoder_outputs.hpp"
#include "libreyolo/sdk/detr/batched_matching.hpp"
#include "libreyolo/sdk/detr/dfine_matching.hpp"
#include "set_losses.hpp"

namespace libreyolo::dfine {
namespace {

using Named = std::vector<std::pair<std::string, torch::Tensor>>;

torch::Tensor stacked(const torch::Tensor& layers, std::initializer_list<torch::Tensor> extra) {
  std::vector<torch::Tensor> parts{layers.to(torch::kFloat32)};
  for (const auto& set : extra) parts.push_back(set.to(torch::kFloat32).unsqueeze(0));
  return torch::cat(parts);
}

torch::Tensor scalar_like(double value, const torch::Tensor& like) {
  return torch::full({}, value, like.options().dtype(torch::kFloat32));
}

// The decoder layers, pre and enc with their matches (SetStack's layout).
SetStack ordinary_stack(const std::vector<torch::Tensor>& out, const torch::Tensor& matched,
                        const torch::Tensor& unified, const CriterionGroundTruth& gt) {
  SetStack s;
  s.logits = stacked(out.at(outputs::dec_logits), {out.at(outputs::pre_logits), out.at(outputs::enc_logits)});
  s.boxes = stacked(out.at(outputs::dec_boxes), {out.at(outputs::pre_boxes), out.at(outputs::enc_boxes)});
  s.corners = out.at(outputs::dec_corners);
  // LibreYOLO builds the FGL targets once, from the first set it meets (the last layer), and
  // reuses them for every layer (D-FINE's layers share one reference, so nothing is lost).
  s.reference = out.at(outputs::dec_refs)[s.corners.size(0) - 1];
  s.class_matches = matched;
  s.box_matches = unified;
  s.class_normaliser = scalar_like(gt.num_boxes, s.boxes);
  s.box_normaliser = (unified >= 0).sum().to(torch::kFloat32).clamp_min(1.0);
  return s;
}

// The denoising layers and their pre set: every term uses the queries' own GT.
SetStack denoising_stack(const std::vector<torch::Tensor>& out, const CriterionGroundTruth& gt) {
  TORCH_CHECK(out.at(outputs::dn_pre_logits).defined() && out.at(outputs::dn_pre_boxes).defined(),
              "DfineCriterion: denoising outputs without dn_pre_logits / dn_pre_boxes");
  SetStack s;
  s.logits = stacked(out.at(outputs::dn_logits), {out.at(outputs::dn_pre_logits)});
  s.boxes = stacked(out.at(outputs::dn_boxes), {out.at(outputs::dn_pre_boxes)});
  s.corners = out.at(outputs::dn_corners);
  s.reference = out.at(outputs::dn_refs)[0];  // LibreYOLO's cache: the first denoising layer's
  const auto& matched = out.at(outputs::dn_matched_gt);
  s.class_matches = matched.unsqueeze(0).expand({s.logits.size(0), -1, -1});
  s.box_matches = matched;
  // The decoder made 2 x max_gt queries per group, so the group count follows from their number.
  const auto groups = s.logits.size(2) / (2 * gt.max_count);
  s.class_normaliser = scalar_like(gt.num_boxes * static_cast<double>(groups), s.boxes);
  s.box_normaliser = s.class_normaliser;
  return s;
}

void add(Named& out, const std::string& kind, const std::string& suffix, const torch::Tensor& value) {
  out.emplace_back("loss_" + kind + suffix, value);
}

void add_box_terms(Named& out, const StackLosses& l, int64_t set, const std::string& suffix) {
  add(out, "vfl", suffix, l.vfl[set]);
  add(out, "bbox", suffix, l.bbox[set]);
  add(out, "giou", suffix, l.giou[set]);
}

// LibreYOLO's order: the last layer, the earlier ones (_aux_i), pre, enc.
void add_ordinary(Named& out, const StackLosses& l, int64_t layers) {
  add_box_terms(out, l, layers - 1, "");
  add(out, "fgl", "", l.fgl[layers - 1]);
  for (int64_t i = 0; i + 1 < layers; ++i) {
    const auto suffix = "_aux_" + std::to_string(i);
    add_box_terms(out, l, i, suffix);
    add(out, "fgl", suffix, l.fgl[i]);
    add(out, "ddf", suffix, l.ddf[i]);
  }
  add_box_terms(out, l, layers, "_pre");
  add_box_terms(out, l, layers + 1, "_enc_0");
}

void add_denoising(Named& out, const StackLosses& l, int64_t layers) {
  for (int64_t i = 0; i < layers; ++i) {
    const auto suffix = "_dn_" + std::to_string(i);
    add_box_terms(out, l, i, suffix);
    add(out, "fgl", suffix, l.fgl[i]);
    // The last denoising layer is its own teacher: LibreYOLO finds the corners equal and gives 0.
    add(out, "ddf", suffix, i + 1 < layers ? l.ddf[i] : torch::zeros({}, l.fgl.options()));
  }
  add_box_terms(out, l, layers, "_dn_pre");
}

}  // namespace

DfineCriterion::DfineCriterion(DfineLossSettings settings) : settings_(settings) {
  if (settings_.reg_max < 4 || settings_.reg_max % 2 != 0)
    throw std::invalid_argument("DfineCriterion: reg_max must be even and at least 4, got " +
                                std::to_string(settings_.reg_max));
}

DfineCriterion::Matching DfineCriterion::matching(const std::vector<torch::Tensor>& out,
                                                  const sdk::Targets& targets) const {
  TORCH_CHECK(out.size() == outputs::count, "DfineCriterion: expected ", outputs::count, " outputs, got ",
              out.size());
  const auto size = out.at(outputs::input_size);  // a CPU tensor: reading it waits for nothing
  Matching m;
  m.gt = criterion_ground_truth(targets, size[0].item<int64_t>(), size[1].item<int64_t>());
  torch::NoGradGuard no_grad;
  const auto logits = stacked(out.at(outputs::dec_logits), {out.at(outputs::pre_logits), out.at(outputs::enc_logits)});
  const auto boxes = stacked(out.at(outputs::dec_boxes), {out.at(outputs::pre_boxes), out.at(outputs::enc_boxes)});
  const int64_t sets = logits.size(0), batch = logits.size(1), queries = logits.size(2);
  const sdk::detr::DfineMatchingWeights weights{settings_.cost_class, settings_.cost_bbox, settings_.cost_giou,
                                                settings_.matcher_alpha, settings_.matcher_gamma};
  const auto cost = sdk::detr::dfine_matching_cost(logits.flatten(0, 1), boxes.flatten(0, 1),
                                                   m.gt.labels.repeat({sets, 1}), m.gt.boxes.repeat({sets, 1, 1}),
                                                   weights);
  std::vector<int64_t> counts;
  for (int64_t i = 0; i < sets; ++i) counts.insert(counts.end(), m.gt.counts.begin(), m.gt.counts.end());
  m.matched = sdk::detr::match_batched(cost, counts).view({sets, batch, queries});
  m.unified = sdk::detr::union_of_matches(m.matched, m.gt.labels.size(1));
  return m;
}

torch::Tensor DfineCriterion::match(const std::vector<torch::Tensor>& outputs, const sdk::Targets& targets) {
  const auto matched = matching(outputs, targets).matched;
  const int64_t layers = matched.size(0) - 2;
  std::vector<torch::Tensor> order{matched[layers - 1]};
  for (int64_t i = 0; i + 1 < layers; ++i) order.push_back(matched[i]);
  order.push_back(matched[layers]);
  order.push_back(matched[layers + 1]);
  return torch::stack(order);
}

torch::Tensor DfineCriterion::union_match(const std::vector<torch::Tensor>& outputs, const sdk::Targets& targets) {
  return matching(outputs, targets).unified;
}

DfineCriterion::Stacks DfineCriterion::stacks(const std::vector<torch::Tensor>& out, const sdk::Targets& targets) const {
  const auto m = matching(out, targets);
  // DDF mixes its matched and unmatched means by the ordinary queries' counts, for the
  // denoising layers too (LibreYOLO keeps the values of the last ordinary layer).
  const LocalLossContext context{out.at(outputs::up), out.at(outputs::reg_scale),
                                 sdk::detr::distillation_balance(m.unified >= 0)};
  Stacks s;
  s.layers = out.at(outputs::dec_logits).size(0);
  s.ordinary = stack_losses(ordinary_stack(out, m.matched, m.unified, m.gt), m.gt, context, settings_);
  if (out.at(outputs::dn_logits).defined() && m.gt.max_count > 0) {
    s.denoising = stack_losses(denoising_stack(out, m.gt), m.gt, context, settings_);
    s.denoising_layers = out.at(outputs::dn_logits).size(0);
  }
  return s;
}

Named DfineCriterion::named_losses(const std::vector<torch::Tensor>& out, const sdk::Targets& targets) {
  const auto s = stacks(out, targets);
  Named named;
  add_ordinary(named, s.ordinary, s.layers);
  if (s.denoising) add_denoising(named, *s.denoising, s.denoising_layers);
  for (auto& [name, value] : named) value = torch::nan_to_num(value, 0.0);
  return named;
}

// Each kind is the sum of all its named terms: every entry of its stacked tensor is one of them
// (the last denoising layer's DDF is a named zero), so the training path sums the stacks whole,
// without picking the ~40 terms out one by one and back in the backward. NaN terms count 0, as
// named_losses makes them.
sdk::LossOutput DfineCriterion::operator()(const std::vector<torch::Tensor>& outputs, const sdk::Targets& targets,
                                           const torch::Tensor&) {
  const auto s = stacks(outputs, targets);
  const auto kind_sum = [&s](torch::Tensor StackLosses::*kind) {
    auto sum = torch::nan_to_num(s.ordinary.*kind, 0.0).sum();
    if (s.denoising) sum = sum + torch::nan_to_num((*s.denoising).*kind, 0.0).sum();
    return sum;
  };
  const std::vector<torch::Tensor StackLosses::*> kinds{&StackLosses::vfl, &StackLosses::bbox, &StackLosses::giou,
                                                        &StackLosses::fgl, &StackLosses::ddf};
  const auto names = component_names();
  sdk::LossOutput result;
  for (std::size_t k = 0; k < kinds.size(); ++k) {
    const auto sum = kind_sum(kinds[k]);
    result.components.emplace_back(names[k], sum);
    result.total = result.total.defined() ? result.total + sum : sum;
  }
  return result;
}

}  // namespace libreyolo::dfine
