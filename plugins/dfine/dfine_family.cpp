// The D-FINE family plugin: LibreYOLO's D-FINE (models/dfine/), sizes n, s, m, l, x, with its
// training recipe (DFINEConfig + DFINETrainer), post-processing and checkpoint keys.

#include <libreyolo/sdk/sdk.hpp>

#include "config.hpp"
#include "dfine_criterion.hpp"
#include "dfine_detector.hpp"

namespace libreyolo::families::dfine {

namespace A = sdk::augment;

class DfineFamily : public sdk::Family {
 public:
  sdk::FamilyInfo info() const override {
    sdk::FamilyInfo info;
    info.name = "dfine";
    info.display_name = "D-FINE";
    info.description = "D-FINE n/s/m/l/x (HGNetv2 B0-B5), hybrid encoder + decoder with fine-grained "
                       "distribution refinement, LibreYOLO-compatible weights; no ImageNet backbone "
                       "download here: training starts from scratch";
    info.sizes = libreyolo::dfine::dfine_sizes();
    info.tasks = {"detect"};
    // RGB / 255, no mean or std (LibreYOLO's D-FINE preprocessing); 640 for every size.
    info.input.channel_order = sdk::InputFormat::ChannelOrder::rgb;
    info.input.scale = 1.0f / 255.0f;
    // As RT-DETR: the 300 best (query, class) scores, no NMS; validation stretches to the square.
    info.suppression = sdk::Suppression::none;
    info.eval_resize = sdk::EvalResize::stretch;
    info.multi_label_nms = true;
    return info;
  }

  sdk::Policy policy() const override {
    sdk::Policy policy;
    policy.amp = false;
    policy.amp_off_reason = "its decoder clamps activations at +-65504, float16's largest finite value, so "
                            "float16 activations can overflow to inf";
    policy.sync_bn = false;
    // The decoder too, its denoising queries padded to a fixed count (RT-DETR's seam,
    // docs/families/dfine.md); with multi-scale on, each size is its own graph.
    policy.capture = sdk::CaptureRegion::network_with_denoising;
    policy.supports_spawn = true;
    return policy;
  }

  // LibreYOLO's DFINEConfig and DFINETrainer: AdamW 2e-4 (betas 0.9, 0.999), weight decay 1e-4,
  // the backbone at x0.5; flat-cosine (2 warm-up epochs from 1e-6, flat, a cosine over the last
  // no_aug_epochs = 4 to 0.05 x); gradients clipped at 0.1; EMA 0.9999; 132 epochs of batch 16;
  // float32; multi-scale until 85% of the run.
  sdk::Recipe recipe(const std::string& size) const override {
    sdk::Recipe r;
    r.epochs = 132;
    r.batch = 16;
    r.optimizer = "adamw";
    r.lr0 = 2e-4;
    r.momentum = 0.9;  // AdamW's beta1
    r.weight_decay = 1e-4;
    r.clip_grad = 0.1;
    r.scheduler = "flatcosine";
    r.warmup_epochs = 2;
    r.warmup_lr_start = 1e-6;
    r.no_aug_epochs = 4;
    r.min_lr_ratio = 0.05;
    r.multi_scale = true;
    r.ema = true;
    r.ema_decay = 0.9999;
    r.augmentation = {strong_pipeline(), weak_pipeline()};
    r.schedule = schedule();
    r.multi_scale_sizes.around = sdk::MultiScale::Around::dfine_scales;
    r.multi_scale_sizes.base_repeat = 3;
    r.multi_scale_sizes.resize = sdk::MultiScale::Resize::bilinear;
    r.param_groups = param_groups();
    r.frozen = {"backbone.stem.*"};  // HGNetv2's freeze_stem_only, every size
    (void)size;
    return r;
  }

  std::shared_ptr<sdk::Detector> create_detector(const sdk::ModelSpec& spec) const override {
    return std::make_shared<libreyolo::dfine::DfineDetector>(spec.size, spec.num_classes);
  }

  std::shared_ptr<sdk::Criterion> create_criterion(sdk::Detector&, const sdk::CriterionSpec& spec) const override {
    libreyolo::dfine::DfineLossSettings settings;
    settings.num_classes = spec.num_classes;
    return std::make_shared<libreyolo::dfine::DfineCriterion>(settings);
  }

 private:
  // DFINETrainTransform: the strong transforms (skipped for an image without boxes), then the
  // flip and the stretch to imgsz, each followed by a 1-pixel box sanitiser; 120 labels at most.
  static A::Pipeline strong_pipeline() {
    A::PhotometricDistort distort;  // p 0.5 per adjustment
    distort.skip_without_boxes = true;
    A::ZoomOut zoom;  // fill 0, side 1-4, p 0.5 (torchvision's defaults)
    zoom.skip_without_boxes = true;
    A::IoUCrop crop;
    crop.prob = 0.8;  // LibreYOLO wraps RandomIoUCrop in RandomApply(p=0.8)
    crop.skip_without_boxes = true;
    return {"strong", {distort, zoom, crop, A::SanitizeBoxes{1.0}, A::Flip{0.5}, A::StretchResize{},
                       A::SanitizeBoxes{1.0}, A::MaxLabels{120}}};
  }

  static A::Pipeline weak_pipeline() {
    return {"weak", {A::Flip{0.5}, A::StretchResize{}, A::SanitizeBoxes{1.0}, A::MaxLabels{120}}};
  }

  // stop_epoch = int(epochs x aug_stop_epoch_ratio), 0.85 unless the user sets it (LibreYOLO's
  // option of that name; 0 trains without the strong augmentation at all): strong augmentation
  // and multi-scale end; the EMA restart (a constant decay from there on) comes with LibreYOLO's
  // on_mosaic_disable, no_aug_epochs before the end.
  static std::vector<sdk::EpochChange> schedule() {
    sdk::EpochChange stop_strong;
    stop_strong.at = sdk::EpochPoint::fraction(0.85);
    stop_strong.at.count_option = "aug_stop_epoch_ratio";
    stop_strong.what = "strong augmentation and multi-scale off";
    stop_strong.augmentation = "weak";
    stop_strong.multi_scale = false;
    sdk::EpochChange ema_restart;
    ema_restart.at = sdk::EpochPoint::from_end_option("no_aug_epochs");
    ema_restart.what = "EMA restart (constant decay 0.9999)";
    ema_restart.ema_decay = 0.9999;  // DFINEConfig.ema_restart_decay
    return {stop_strong, ema_restart};
  }

  // DFINETrainer._setup_optimizer's four groups: {backbone, the rest} x {decay, no decay}, where
  // "no decay" is any name containing norm, .bn., bias or lab.scale (substrings, as LibreYOLO).
  static std::vector<sdk::ParamGroupRule> param_groups() {
    return {
        {"backbone_no_decay", {"backbone.*norm*", "backbone.*.bn.*", "backbone.*bias*", "backbone.*lab.scale*"}, 0.5,
         0.0},
        {"backbone", {"backbone.*"}, 0.5, std::nullopt},
        {"no_decay", {"*norm*", "*.bn.*", "*bias*", "*lab.scale*"}, 1.0, 0.0},
    };
  }
};

}  // namespace libreyolo::families::dfine

LIBREYOLO_REGISTER_FAMILY(libreyolo::families::dfine::DfineFamily)
