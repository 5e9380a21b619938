// The RTMDet family plugin: LibreYOLO's RTMDet (t, s, m, l, x) for detection, its recipe
// (LibreYOLO's RTMDetConfig, with mmdetection's choices where that snapshot is inconsistent:
// docs/families/rtmdet.md) and its criterion (rtmdet_loss.hpp).

#include <libreyolo/sdk/sdk.hpp>

#include "rtmdet_detector.hpp"
#include "rtmdet_loss.hpp"

namespace libreyolo::families::rtmdet {

class RtmdetFamily : public sdk::Family {
 public:
  sdk::FamilyInfo info() const override {
    sdk::FamilyInfo info;
    info.name = "rtmdet";
    info.display_name = "RTMDet";
    info.description = "RTMDet t/s/m/l/x, CSPNeXt + shared-conv SepBN head with dynamic soft-label assignment, "
                       "LibreYOLO-compatible weights";
    info.sizes = {"t", "s", "m", "l", "x"};
    info.tasks = {"detect"};
    // LibreRTMDet.INPUT_SIZES: 640 for every size (the host's default).
    // mmdetection's data_preprocessor, which LibreYOLO's RTMDet validation applies: BGR,
    // 0-255, mean and std per channel in BGR order. Training uses the same normalisation
    // (LibreYOLO's snapshot trained on un-normalised pixels: docs/families/rtmdet.md).
    info.input.channel_order = sdk::InputFormat::ChannelOrder::bgr;
    info.input.scale = 1.0f;
    const float mean[3] = {103.53f, 116.28f, 123.675f};
    const float std[3] = {57.375f, 57.12f, 58.395f};
    for (int c = 0; c < 3; ++c) {
      info.input.mean[c] = mean[c];
      info.input.std[c] = std[c];
    }
    // mmdetection's filter_scores_and_topk: every (prior, class) pair above conf is a
    // candidate, the best nms_pre of each level (decode() zeroes the others).
    info.multi_label_nms = true;
    info.nms_candidates = static_cast<int>(kStrides.size()) * kNmsPre;
    // LibreRTMDet.detect_size: the stem's first convolution has int(64 * widen) / 2 filters.
    info.size_signature = {"backbone.stem.0.conv.weight", {{12, "t"}, {16, "s"}, {24, "m"}, {32, "l"}, {40, "x"}}};
    return info;
  }

  sdk::Policy policy() const override {
    sdk::Policy policy;
    policy.amp = true;      // the criterion casts to float32 (rtmdet_loss.hpp)
    policy.sync_bn = true;  // mmdetection trains RTMDet with SyncBN; BatchNorm after every conv
    policy.capture = sdk::CaptureRegion::network;
    policy.supports_spawn = true;
    return policy;
  }

  // LibreYOLO's RTMDetConfig, every training field spelled out. Its scheduler is YOLOX's
  // warm-cos (LibreYOLO's WarmupCosineScheduler): quadratic warm-up from warmup_lr_start over
  // 1 epoch, cosine to min_lr_ratio x lr0, flat for the last no_aug_epochs.
  sdk::Recipe recipe(const std::string&) const override {
    sdk::Recipe r;
    r.epochs = 300;
    r.batch = 16;
    r.optimizer = "adamw";
    r.lr0 = 0.004;  // mmdetection's value for a total batch of 256, used as is (as LibreYOLO does)
    r.momentum = 0.9;  // AdamW's beta1
    r.weight_decay = 0.05;
    r.scheduler = "yoloxwarmcos";
    r.warmup_epochs = 1;
    r.warmup_lr_start = 4e-8;  // mmdetection's LinearLR start_factor 1e-5 x 0.004
    r.no_aug_epochs = 20;      // mmdetection's stage 2: epochs 280-300
    r.min_lr_ratio = 0.05;
    r.multi_scale = false;
    r.ema = true;
    r.ema_decay = 0.9998;
    r.augmentation = {mosaic_pipeline(), no_mosaic_pipeline()};
    sdk::EpochChange close_mosaic;
    close_mosaic.at = sdk::EpochPoint::from_end_option("no_aug_epochs");
    close_mosaic.what = "mosaic and mixup off";
    close_mosaic.augmentation = "no_mosaic";
    r.schedule = {close_mosaic};
    // mmdetection's paramwise_cfg (norm_decay_mult=0, bias_decay_mult=0): BatchNorm weights and
    // every bias without weight decay. LibreYOLO's snapshot used its default YOLO split instead,
    // which gives AdamW's no-decay group the default 0.01 (docs/families/rtmdet.md).
    r.param_groups = {{"no_decay", {"*.bn.*", "*.bias"}, 1.0, 0.0}};
    return r;
  }

  // LibreYOLO's MosaicMixupDataset + TrainTransform(max_labels=120) with RTMDetConfig's values:
  // YOLOX's mosaic without rotation, shear or translation (scale 0.1-2.0), YOLOX's pasted
  // mixup, HSV, flip, boxes over 1 px, at most 120 labels.
  static sdk::augment::Pipeline mosaic_pipeline() {
    namespace A = sdk::augment;
    A::Mosaic mosaic;
    mosaic.degrees = 0.0;
    mosaic.translate = 0.0;
    mosaic.shear = 0.0;
    mosaic.scale = {0.1, 2.0};
    A::Mixup mixup;  // prob 1, pasted, scale 0.5-1.5
    return {"mosaic", {mosaic, mixup, A::Letterbox{}, A::Hsv{}, A::Flip{0.5}, A::FilterBoxes{1.0}, A::MaxLabels{120}}};
  }

  // The final no_aug_epochs: letterbox, HSV and flip (LibreYOLO's close_mosaic keeps them).
  static sdk::augment::Pipeline no_mosaic_pipeline() {
    namespace A = sdk::augment;
    return {"no_mosaic", {A::Letterbox{}, A::Hsv{}, A::Flip{0.5}, A::FilterBoxes{1.0}, A::MaxLabels{120}}};
  }

  std::shared_ptr<sdk::Detector> create_detector(const sdk::ModelSpec& spec) const override {
    return std::make_shared<RtmdetDetector>(spec.size, spec.num_classes);
  }

  std::shared_ptr<sdk::Criterion> create_criterion(sdk::Detector&, const sdk::CriterionSpec& spec) const override {
    return make_rtmdet_criterion(spec.num_classes);
  }
};

}  // namespace libreyolo::families::rtmdet

LIBREYOLO_REGISTER_FAMILY(libreyolo::families::rtmdet::RtmdetFamily)
