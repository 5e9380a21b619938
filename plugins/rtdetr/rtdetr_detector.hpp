#pragma once
// The RT-DETR detector: backbone (PResNet-vd or HGNetv2) -> HybridEncoder -> decoder, with
// LibreYOLO's module names (backbone, encoder, decoder) so checkpoints load both ways.
//
// The capture seam (CaptureRegion::network_with_denoising): in a training step the host first
// calls prepare_training_forward, which builds the batch's denoising queries from the targets
// (padded to a fixed count when the region may be a CUDA graph); forward_capturable is then the
// whole network, decoder included, on the images and those queries, and forward_remainder only
// lays its outputs out. Without that call (inference, tests) forward_capturable is backbone,
// encoder and the decoder's input projection, and forward_remainder runs the decoder.

#include <memory>
#include <string>
#include <vector>

#include "config.hpp"
#include "hybrid_encoder.hpp"
#include "libreyolo/sdk/backbones/backbone.hpp"
#include "libreyolo/sdk/detector.hpp"
#include "rtdetr_decoder.hpp"

namespace libreyolo::rtdetr {

class RtdetrDetector : public sdk::Detector {
 public:
  RtdetrDetector(const std::string& size, int64_t num_classes);

  std::vector<int64_t> prepare_training_forward(const torch::Tensor& images, const sdk::Targets& targets,
                                                bool static_shapes) override;
  std::vector<torch::Tensor> forward_capturable(const torch::Tensor& images) override;
  std::vector<torch::Tensor> forward_remainder(std::vector<torch::Tensor> features,
                                               const sdk::Targets* targets) override;
  sdk::Candidates decode(const std::vector<torch::Tensor>& outputs) override;

  const RtdetrConfig& config() const { return config_; }
  int64_t num_classes() const { return num_classes_; }
  RtdetrDecoderImpl& decoder() { return *decoder_; }

 private:
  RtdetrConfig config_;
  int64_t num_classes_;
  std::shared_ptr<sdk::backbones::MultiScaleBackbone> backbone_;
  HybridEncoder encoder_{nullptr};
  RtdetrDecoder decoder_{nullptr};
};

}  // namespace libreyolo::rtdetr
