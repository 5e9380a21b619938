#pragma once
// What the RT-DETR backbone tests share: tests/fixtures/rtdetr/*.json (written by
// tests/python/rtdetr_reference_keys.py from LibreYOLO's modules; committed, so a missing file
// is an error), the sizes' backbone + encoder as LibreYOLO's RTDETRModel builds them, the state
// in PyTorch's state_dict() order, and the deterministic weights of the forward fixtures.

#include <libreyolo/sdk/backbones/backbone.hpp>
#include <torch/nn/module.h>
#include <torch/types.h>

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "../fixture_json.hpp"
#include "hybrid_encoder.hpp"

namespace libreyolo::test::rtdetr {

using libreyolo::test::Json;

// The parsed tests/fixtures/rtdetr/<name>; throws std::runtime_error naming the path and the
// script that writes it.
Json read_fixture(const std::string& name);
std::vector<int64_t> to_shape(const Json& array);

// LibreYOLO's RTDETR_CONFIGS backbone and encoder settings for r18 r34 r50 r50m r101 l x.
struct SizeSpec {
  std::string size;
  int depth;         // PResNet depth, or 0 for HGNetv2
  std::string arch;  // HGNetv2 arch, or empty
  bool freeze_norm;
  int64_t hidden_dim;
  int64_t dim_feedforward;
  double expansion;
};
const std::vector<SizeSpec>& sizes();
const SizeSpec& size_spec(const std::string& size);

// The parent LibreYOLO's keys are relative to: children "backbone" and "encoder".
struct BackboneEncoder : torch::nn::Module {
  explicit BackboneEncoder(const SizeSpec& spec);
  std::shared_ptr<sdk::backbones::MultiScaleBackbone> backbone;
  libreyolo::rtdetr::HybridEncoder encoder{nullptr};
};

// (key, shape) in PyTorch's state_dict() order: a module's own parameters, then its own
// buffers, then each child's, recursively.
std::vector<std::pair<std::string, std::vector<int64_t>>> ordered_state(const torch::nn::Module& module);

// sum(p.numel() for p in module.parameters()): each tensor once.
int64_t parameter_count(const torch::nn::Module& module);


// The forward fixtures' input: 0.5 + 0.5 * pattern(count, 1000) as [batch, 3, height, width].
torch::Tensor fixture_images(int64_t batch, int64_t height, int64_t width);

}  // namespace libreyolo::test::rtdetr
