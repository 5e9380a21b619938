// The YOLOX family plugin: LibreYOLO's YOLOX (n, t, s, m, l, x) for detection, its recipe
// (LibreYOLO's YOLOXConfig) and its criterion (yolox_loss.hpp).

#include <libreyolo/sdk/sdk.hpp>

#include "yolox_detector.hpp"
#include "yolox_loss.hpp"

namespace libreyolo::families::yolox {

class YoloxFamily : public sdk::Family {
 public:
  sdk::FamilyInfo info() const override {
    sdk::FamilyInfo info;
    info.name = "yolox";
    info.display_name = "YOLOX";
    info.description = "YOLOX n/t/s/m/l/x, decoupled anchor-free head with SimOTA, LibreYOLO-compatible weights";
    info.sizes = {"n", "t", "s", "m", "l", "x"};
    info.tasks = {"detect"};
    // LibreYOLOX.INPUT_SIZES: the nano and tiny models work at 416.
    info.default_imgsz = {{"n", 416}, {"t", 416}, {"s", 640}, {"m", 640}, {"l", 640}, {"x", 640}};
    // LibreYOLO's YOLOX preprocessing (models/yolox/utils.py, YOLOXValPreprocessor): BGR, pixel
    // values 0-255 as they are, no mean/std.
    info.input.channel_order = sdk::InputFormat::ChannelOrder::bgr;
    info.input.scale = 1.0f;
    // The stem's convolution has int(64 * width) filters (LibreYOLOX's size detection).
    info.size_signature = {"backbone.backbone.stem.conv.conv.weight",
                           {{16, "n"}, {24, "t"}, {32, "s"}, {48, "m"}, {64, "l"}, {80, "x"}}};
    return info;
  }

  sdk::Policy policy() const override {
    sdk::Policy policy;
    policy.amp = true;
    policy.sync_bn = true;  // BatchNorm after every convolution
    policy.capture = sdk::CaptureRegion::step;
    policy.supports_spawn = true;
    return policy;
  }

  // LibreYOLO's YOLOXConfig (libreyolo/training/config.py), every training field it defines,
  // spelled out even where it equals the host's default, so `families yolox` shows the recipe.
  // lr0 is used as is: LibreYOLO's trainer does not scale it with the batch (effective_lr = lr0).
  sdk::Recipe recipe(const std::string&) const override {
    sdk::Recipe r;
    r.epochs = 300;
    r.batch = 16;
    r.optimizer = "sgd";
    r.lr0 = 0.01;
    r.momentum = 0.9;
    r.weight_decay = 5e-4;
    r.nesterov = true;
    r.scheduler = "yoloxwarmcos";
    r.warmup_epochs = 5;
    r.warmup_lr_start = 0.0;
    r.no_aug_epochs = 15;
    r.min_lr_ratio = 0.05;
    r.ema = true;
    r.ema_decay = 0.9998;
    r.augmentation = {mosaic_pipeline(), no_mosaic_pipeline()};
    // LibreYOLO's close_mosaic for the final no_aug_epochs: mosaic and mixup stop, and YOLOX
    // turns on its L1 loss (on_mosaic_disable), which changes the step the captured graphs hold.
    sdk::EpochChange close_mosaic;
    close_mosaic.at = sdk::EpochPoint::from_end_option("no_aug_epochs");
    close_mosaic.what = "mosaic and mixup off, L1 loss on";
    close_mosaic.augmentation = "no_mosaic";
    close_mosaic.detector_event = kL1LossOn;
    close_mosaic.changes_captured_region = true;
    r.schedule = {close_mosaic};
    return r;
  }

  // LibreYOLO's MosaicMixupDataset + TrainTransform: mosaic with a random affine of the 2x
  // canvas (small tiles enlarged), YOLOX's pasted mixup, then HSV and flip of the image part
  // of the letterboxed square, boxes over 1 px kept.
  static sdk::augment::Pipeline mosaic_pipeline() {
    namespace A = sdk::augment;
    A::Mosaic mosaic;  // the SDK defaults are YOLOX's: prob 1, degrees 10, translate 0.1, scale 0.1-2, shear 2
    A::Mixup mixup;    // prob 1, pasted, scale 0.5-1.5
    return {"mosaic", {mosaic, mixup, A::Letterbox{}, A::Hsv{}, A::Flip{0.5}, A::FilterBoxes{1.0}}};
  }

  // The final no_aug_epochs: letterbox, HSV and flip (LibreYOLO's close_mosaic keeps them).
  static sdk::augment::Pipeline no_mosaic_pipeline() {
    namespace A = sdk::augment;
    return {"no_mosaic", {A::Letterbox{}, A::Hsv{}, A::Flip{0.5}, A::FilterBoxes{1.0}}};
  }

  std::shared_ptr<sdk::Detector> create_detector(const sdk::ModelSpec& spec) const override {
    return std::make_shared<YoloxDetector>(spec.size, spec.num_classes);
  }

  // The criterion reads the detector's L1 switch, which on_epoch_start flips when augmentation
  // stops. A detector of another family (never from this host) gets a criterion without L1.
  std::shared_ptr<sdk::Criterion> create_criterion(sdk::Detector& detector,
                                                   const sdk::CriterionSpec& spec) const override {
    const auto* yolox = dynamic_cast<const YoloxDetector*>(&detector);
    if (!yolox) return make_yolox_criterion(spec.num_classes, nullptr);
    return make_yolox_criterion(yolox->num_classes(), yolox->l1_switch());
  }
};

}  // namespace libreyolo::families::yolox

LIBREYOLO_REGISTER_FAMILY(libreyolo::families::yolox::YoloxFamily)
