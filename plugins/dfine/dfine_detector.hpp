#pragma once
// The D-FINE detector: HGNetv2 backbone -> HybridEncoder -> decoder, with LibreYOLO's module
// names (backbone, encoder, decoder) so checkpoints load both ways.
//
// The capture seam (CaptureRegion::network_with_denoising, as RT-DETR's): in a training step the
// host first calls prepare_training_forward, which builds the batch's denoising queries (padded
// to a fixed count when the region may be a CUDA graph); forward_capturable is then the whole
// network, decoder included, and forward_remainder lays its outputs out as decoder_outputs.hpp
// says. Without that call (inference, tests) forward_capturable is backbone, encoder and the
// decoder's input projection, and forward_remainder runs the decoder.

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "config.hpp"
// Included here for the users of the outputs: a quoted include resolves next to this file first,
// while plugins/rtdetr/ has a decoder_outputs.hpp of its own on the same include path.
#include "decoder_outputs.hpp"
#include "dfine_decoder.hpp"
#include "hybrid_encoder.hpp"
#include "libreyolo/sdk/backbones/hgnetv2.hpp"
#include "libreyolo/sdk/detector.hpp"

namespace libreyolo::dfine {

class DfineDetector : public sdk::Detector {
 public:
  // size: n, s, m, l, x. eval_size: see DfineDecoderImpl (the anchors buffers' input size).
  DfineDetector(const std::string& size, int64_t num_classes, std::array<int64_t, 2> eval_size = {640, 640});

  std::vector<int64_t> prepare_training_forward(const torch::Tensor& images, const sdk::Targets& targets,
                                                bool static_shapes) override;
  std::vector<torch::Tensor> forward_capturable(const torch::Tensor& images) override;
  std::vector<torch::Tensor> forward_remainder(std::vector<torch::Tensor> features,
                                               const sdk::Targets* targets) override;
  sdk::Candidates decode(const std::vector<torch::Tensor>& outputs) override;

  const DfineConfig& config() const { return config_; }
  int64_t num_classes() const { return num_classes_; }
  DfineDecoderImpl& decoder() { return *decoder_; }

 private:
  DfineConfig config_;
  int64_t num_classes_;
  std::shared_ptr<sdk::backbones::HGNetv2Impl> backbone_;
  HybridEncoder encoder_{nullptr};
  DfineDecoder decoder_{nullptr};
};

}  // namespace libreyolo::dfine
