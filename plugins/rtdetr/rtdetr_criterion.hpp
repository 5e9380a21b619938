#pragma once
// RT-DETR's loss (LibreYOLO's SetCriterion with RTDETRLoss's settings): Hungarian matching of
// every decoder layer's and the encoder selection's predictions to the ground truth, VFL
// (alpha 0.75, gamma 2) x 1, L1 x 5 and GIoU x 2 over the matched pairs, normalised by the
// batch's GT count (at least 1); the denoising queries are supervised by their own GT without
// matching, normalised by the count times the group count.
//
// Where LibreYOLO solves one scipy problem per image and layer after a device-to-host copy
// each, this criterion builds all cost matrices of the step on the device and solves them after
// ONE copy (sdk::detr::match_batched): the step's only host synchronisation. The GT counts come
// from the loader (Targets::host_counts), so normalising reads nothing back either.

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "libreyolo/sdk/criterion.hpp"

namespace libreyolo::rtdetr {

struct RtdetrLossSettings {
  int64_t num_classes = 80;
  // Matching costs (HungarianMatcher with use_focal_loss): class 2 (focal alpha .25, gamma 2), L1 5, GIoU 2.
  double cost_class = 2.0, cost_bbox = 5.0, cost_giou = 2.0;
  double weight_vfl = 1.0, weight_bbox = 5.0, weight_giou = 2.0;
  double vfl_alpha = 0.75, vfl_gamma = 2.0;
};

class RtdetrCriterion : public sdk::Criterion {
 public:
  explicit RtdetrCriterion(RtdetrLossSettings settings) : settings_(settings) {}

  sdk::LossOutput operator()(const std::vector<torch::Tensor>& outputs, const sdk::Targets& targets,
                             const torch::Tensor& images) override;
  std::vector<std::string> component_names() const override { return {"vfl", "bbox", "giou"}; }

  // Every weighted term under LibreYOLO's key: loss_vfl, loss_bbox, loss_giou, the same with
  // _aux_i (decoder layers before the last, then the encoder selection) and _dn_i (denoising).
  std::vector<std::pair<std::string, torch::Tensor>> named_losses(const std::vector<torch::Tensor>& outputs,
                                                                  const sdk::Targets& targets);
  // The Hungarian matches of every matched set [S, B, Q] (the GT index per query or -1), in
  // LibreYOLO's order: the last decoder layer, the earlier layers, the encoder selection.
  torch::Tensor match(const std::vector<torch::Tensor>& outputs, const sdk::Targets& targets);

 private:
  // vfl, bbox, giou ([S] each) of the matched sets (decoder layers in order, then the encoder
  // selection) and of the denoising layers (empty without denoising).
  struct Terms {
    int64_t layers = 0;
    std::vector<torch::Tensor> matched, denoising;
  };
  Terms terms(const std::vector<torch::Tensor>& outputs, const sdk::Targets& targets);

  RtdetrLossSettings settings_;
};

}  // namespace libreyolo::rtdetr
