#pragma once
// The RT-DETR detector: backbone (PResNet-vd or HGNetv2) -> HybridEncoder -> decoder, with
// LibreYOLO's module names (backbone, encoder, decoder) so checkpoints load both ways.
//
// The capture seam: backbone, encoder and the decoder's input projection are a pure function
// of the images (forward_capturable, a CUDA graph when cuda_graph=true); query selection,
// denoising and the decoder layers read the targets and run eager (forward_remainder).

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
