#pragma once
// A detector is a torch::nn::Module whose training forward is split at the capture seam:
//
//   images -> forward_capturable()  (static shapes, no host sync: may be a CUDA graph)
//          -> forward_remainder()   (eager: e.g. a DETR decoder with denoising queries)
//          -> Criterion             (eager: label assignment + losses)
//
// For inference, decode() turns the same outputs into candidate boxes and class scores; the
// host applies confidence filtering and NMS, identically for every family.

#include <torch/nn/module.h>
#include <torch/types.h>

#include <cstdint>
#include <string>
#include <vector>

#include "libreyolo/sdk/export.hpp"
#include "libreyolo/sdk/targets.hpp"

namespace libreyolo::sdk {

// Candidate detections, before NMS, for a batch.
struct Candidates {
  torch::Tensor boxes;   // [B, N, 4] float: x1, y1, x2, y2 in pixels of the network input
  torch::Tensor scores;  // [B, N, C] float in [0, 1]: per-class confidence (objectness folded in)
};

// What the trainer tells a detector at the start of every epoch.
struct EpochContext {
  int epoch = 0;             // 0-based
  int epochs = 0;            // total
  std::string augmentation;  // the name of the augmentation pipeline this epoch uses
};

class LIBREYOLO_SDK_API Detector : public torch::nn::Module {
 public:
  ~Detector() override;

  // The capturable region: a pure function of the image batch ([B, 3, H, W] float, converted
  // as the family's FamilyInfo::input declares, channels-last in memory) with static shapes and no host synchronisation or data-dependent shapes. For
  // YOLO-style families this is the whole network; for encoder-decoder families, backbone
  // and encoder.
  virtual std::vector<torch::Tensor> forward_capturable(const torch::Tensor& images) = 0;

  // The eager remainder. `targets` is set while training (denoising queries need them) and
  // null at inference. Most families have none and return their input unchanged.
  virtual std::vector<torch::Tensor> forward_remainder(std::vector<torch::Tensor> features,
                                                       const Targets* targets);

  // Called by the host before each training forward, eagerly (outside any CUDA graph), with
  // the batch's network input and targets (pixels of that input). A family whose network reads the
  // targets (a DETR decoder's denoising queries) prepares those inputs here, in tensors it
  // owns, and its next training forward_capturable runs the whole network on them. With
  // `static_shapes` (the host may record the region as a CUDA graph) it pads them to a size
  // that does not change from batch to batch and keeps each size's tensors at fixed addresses,
  // since a recorded graph reads them where they were. Returns what tells the region's shapes
  // apart besides the images' (the host records one graph per images shape and key). Default:
  // nothing to prepare, an empty key. Any forward without a preceding call (inference, tests)
  // works as before.
  virtual std::vector<std::int64_t> prepare_training_forward(const torch::Tensor& images, const Targets& targets,
                                                             bool static_shapes);

  // Network outputs (after forward_remainder) to candidate boxes and scores.
  virtual Candidates decode(const std::vector<torch::Tensor>& outputs) = 0;

  // Training phase notifications: the start of every epoch, and each change of the recipe's
  // epoch schedule that names a `detector_event` (YOLOX's "l1_loss_on"), at the start of its
  // epoch or, on resume, before the first epoch. When the schedule declares that the change
  // alters the captured region, the host drops its CUDA graphs itself; a change the schedule
  // cannot foresee calls announce_capture_change().
  virtual void on_epoch_start(const EpochContext& context);
  virtual void on_scheduled_change(const std::string& event);

  // True if the capturable region draws random numbers (stochastic depth, dropout in
  // training): a replayed CUDA graph then uses its own random stream, which the host logs.
  virtual bool capturable_region_is_stochastic() const;

  // Incremented by announce_capture_change(); the capture manager drops its graphs when the
  // generation differs from the one it captured.
  std::uint64_t capture_generation() const { return capture_generation_; }
  const std::string& last_capture_change_reason() const { return capture_change_reason_; }

 protected:
  void announce_capture_change(std::string reason);

 private:
  std::uint64_t capture_generation_ = 0;
  std::string capture_change_reason_;
};

}  // namespace libreyolo::sdk
