#pragma once
// D-FINE's loss (LibreYOLO's DFINECriterion with DFINETrainer's settings, dfine_loss_settings.hpp).
//
// Matching: every decoder layer, the pre-refinement set ("pre") and the encoder's selection
// ("enc") are matched to the ground truth by the Hungarian matcher with D-FINE's cost, all in
// one batched solve after ONE device-to-host copy (sdk::detr::match_batched), the step's only
// host synchronisation. GO-LSD then merges those matches into one (sdk::detr::union_of_matches).
//
// Terms, each weighted and under LibreYOLO's key (suffix per set):
//   - VFL x 1 with the set's own matches, normalised by the GT count;
//   - L1 x 5, GIoU x 2 with the union of matches, normalised by the union's size;
//   - FGL x 0.15 (decoder layers) with the union, normalised likewise;
//   - DDF x 1.5 (decoder layers but the last): KL at T = 5 to the last layer's corners;
//   - the same for the denoising queries (their own GT, no matching), normalised by the GT
//     count times the denoising group count.
// Keys: loss_{vfl,bbox,giou,fgl} for the last layer (no DDF: it is the teacher), the five with
// _aux_i for layer i < L - 1, loss_{vfl,bbox,giou}_pre and _enc_0, the five with _dn_i for
// every denoising layer (the last one's DDF is 0, it is its own teacher), the three with _dn_pre.
// Every term is nan_to_num'd (NaN -> 0) as LibreYOLO does.

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "criterion_ground_truth.hpp"
#include "dfine_loss_settings.hpp"
#include "libreyolo/sdk/criterion.hpp"
#include "set_losses.hpp"

namespace libreyolo::dfine {

class DfineCriterion : public sdk::Criterion {
 public:
  explicit DfineCriterion(DfineLossSettings settings);

  // total = the sum of every named loss; components = each kind summed over its suffixes, as
  // LibreYOLO's trainer reports them.
  sdk::LossOutput operator()(const std::vector<torch::Tensor>& outputs, const sdk::Targets& targets,
                             const torch::Tensor& images) override;
  std::vector<std::string> component_names() const override { return {"vfl", "bbox", "giou", "fgl", "ddf"}; }

  // Every weighted term under LibreYOLO's key, in LibreYOLO's order (see above).
  std::vector<std::pair<std::string, torch::Tensor>> named_losses(const std::vector<torch::Tensor>& outputs,
                                                                  const sdk::Targets& targets);
  // The Hungarian matches of every matched set [L + 2, B, Q] (GT index per query or -1), in
  // LibreYOLO's order: the last decoder layer, the earlier ones, pre, enc.
  torch::Tensor match(const std::vector<torch::Tensor>& outputs, const sdk::Targets& targets);
  // The GO-LSD union of those matches, [B, Q].
  torch::Tensor union_match(const std::vector<torch::Tensor>& outputs, const sdk::Targets& targets);

  const DfineLossSettings& settings() const { return settings_; }

 private:
  struct Matching {
    CriterionGroundTruth gt;
    torch::Tensor matched;  // [L + 2, B, Q]: the decoder layers in order, pre, enc
    torch::Tensor unified;  // [B, Q]: their union
  };
  Matching matching(const std::vector<torch::Tensor>& outputs, const sdk::Targets& targets) const;
  // Every term of the step, stacked: the ordinary sets, and the denoising ones when the step has them.
  struct Stacks {
    StackLosses ordinary;
    std::optional<StackLosses> denoising;
    int64_t layers = 0, denoising_layers = 0;
  };
  Stacks stacks(const std::vector<torch::Tensor>& outputs, const sdk::Targets& targets) const;

  DfineLossSettings settings_;
};

}  // namespace libreyolo::dfine
