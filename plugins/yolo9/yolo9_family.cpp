// The YOLOv9 family plugin: LibreYOLO's YOLOv9 (t, s, m, c) for detection, its recipe
// (LibreYOLO's YOLO9Config) and its criterion (yolo9_loss.hpp).

#include <libreyolo/sdk/sdk.hpp>

#include "yolo9_detector.hpp"
#include "yolo9_loss.hpp"

namespace libreyolo::families::yolo9 {

class Yolo9Family : public sdk::Family {
 public:
  sdk::FamilyInfo info() const override {
    sdk::FamilyInfo info;
    info.name = "yolo9";
    info.display_name = "YOLOv9";
    info.description = "YOLOv9 (GELAN) t/s/m/c, anchor-free DFL head, LibreYOLO-compatible weights";
    info.sizes = {"t", "s", "m", "c"};
    info.tasks = {"detect"};
    info.default_imgsz = {{"t", 640}, {"s", 640}, {"m", 640}, {"c", 640}};
    // LibreYOLO's yolo9 preprocessing: RGB, / 255, no mean/std.
    info.input.channel_order = sdk::InputFormat::ChannelOrder::rgb;
    info.input.scale = 1.0f / 255.0f;
    // LibreYOLO's YOLOv9 post-processing (predict and its validator) keeps every class above
    // the threshold, at most 30000 candidates, then per-class NMS.
    info.multi_label_nms = true;
    return info;
  }

  sdk::Policy policy() const override {
    sdk::Policy policy;
    policy.amp = true;
    policy.sync_bn = true;  // BatchNorm in every block
    policy.capture = sdk::CaptureRegion::step;
    policy.supports_spawn = true;
    return policy;
  }

  // LibreYOLO's YOLO9Config (libreyolo/training/config.py): only the fields it sets differently
  // from TrainConfig; the rest (sgd, lr0 0.01, weight_decay 5e-4, nesterov, ...) are the host's
  // defaults, which mirror TrainConfig.
  sdk::Recipe recipe(const std::string&) const override {
    sdk::Recipe recipe;
    recipe.momentum = 0.937;
    recipe.scheduler = "linear";
    recipe.warmup_epochs = 3;
    recipe.warmup_lr_start = 0.0001;
    recipe.no_aug_epochs = 15;
    recipe.min_lr_ratio = 0.01;
    recipe.ema_decay = 0.9999;
    recipe.augmentation = {mosaic_pipeline(), no_mosaic_pipeline()};
    // LibreYOLO's close_mosaic for the final no_aug_epochs.
    sdk::EpochChange close_mosaic;
    close_mosaic.at = sdk::EpochPoint::from_end_option("no_aug_epochs");
    close_mosaic.what = "mosaic and mixup off";
    close_mosaic.augmentation = "no_mosaic";
    recipe.schedule = {close_mosaic};
    recipe.freeze_groups = freeze_groups();
    return recipe;
  }

  // LibreYOLO's YOLO9Trainer.get_freeze_groups: what freeze=N counts is the backbone's ten
  // stages, the neck's six, then the head (17 at every size), not the three top-level modules.
  static std::vector<sdk::FreezeGroup> freeze_groups() {
    return sdk::module_freeze_groups({"backbone.conv0", "backbone.conv1", "backbone.elan1", "backbone.down2",
                                      "backbone.elan2", "backbone.down3", "backbone.elan3", "backbone.down4",
                                      "backbone.elan4", "backbone.spp", "neck.elan_up1", "neck.elan_up2",
                                      "neck.down1", "neck.elan_down1", "neck.down2", "neck.elan_down2", "head"});
  }

  // LibreYOLO's YOLO9MosaicMixupDataset: the 2x mosaic canvas is halved (no random affine),
  // small tiles are not enlarged, boxes under 2 px dropped after the mosaic; mixup blends with
  // a Beta(32, 32) ratio (probability 0 in YOLO9Config); HSV and flip; boxes over 1 px kept.
  static sdk::augment::Pipeline mosaic_pipeline() {
    namespace A = sdk::augment;
    A::Mosaic mosaic;
    mosaic.warp = A::Mosaic::Warp::half_resize;
    mosaic.upscale_tiles = false;
    mosaic.min_box_side = 2.0;
    // YOLO9Config's affine ranges, unused by the halved canvas: shown by `families yolo9`, and
    // the starting point of a user who switches to a random affine.
    mosaic.degrees = 0.0;
    mosaic.translate = 0.1;
    mosaic.scale = sdk::Range{0.5, 1.5};
    mosaic.shear = 0.0;
    A::Mixup mixup;
    mixup.style = A::Mixup::Style::beta_blend;
    mixup.prob = 0.0;
    mixup.beta = 32.0;
    return {"mosaic", {mosaic, mixup, A::Letterbox{}, A::Hsv{}, A::Flip{0.5}, A::FilterBoxes{1.0}}};
  }

  // The final no_aug_epochs: letterbox, HSV and flip.
  static sdk::augment::Pipeline no_mosaic_pipeline() {
    namespace A = sdk::augment;
    return {"no_mosaic", {A::Letterbox{}, A::Hsv{}, A::Flip{0.5}, A::FilterBoxes{1.0}}};
  }

  std::shared_ptr<sdk::Detector> create_detector(const sdk::ModelSpec& spec) const override {
    return std::make_shared<Yolo9Detector>(spec.size, spec.num_classes);
  }

  std::shared_ptr<sdk::Criterion> create_criterion(sdk::Detector& detector,
                                                   const sdk::CriterionSpec& spec) const override {
    const auto* yolo9 = dynamic_cast<const Yolo9Detector*>(&detector);
    const int num_classes = yolo9 ? static_cast<int>(yolo9->num_classes()) : spec.num_classes;
    return make_yolo9_criterion(num_classes, static_cast<int>(kRegMax),
                                std::vector<int64_t>(kStrides.begin(), kStrides.end()));
  }
};

}  // namespace libreyolo::families::yolo9

LIBREYOLO_REGISTER_FAMILY(libreyolo::families::yolo9::Yolo9Family)
