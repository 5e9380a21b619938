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
    // LibreYOLO's MosaicMixupDataset: random affine on the 2x mosaic canvas, mixup pasted,
    // small tiles enlarged (the AugmentStyle defaults, spelled out).
    info.augment.mosaic_warp = sdk::AugmentStyle::MosaicWarp::random_affine;
    info.augment.mixup = sdk::AugmentStyle::Mixup::paste;
    info.augment.upscale_mosaic_tiles = true;
    return info;
  }

  sdk::Policy policy() const override {
    sdk::Policy policy;
    policy.amp = true;
    policy.sync_bn = true;  // BatchNorm after every convolution
    policy.capture = sdk::CaptureRegion::network;
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
    r.mosaic_prob = 1.0;
    r.mixup_prob = 1.0;
    r.hsv_prob = 1.0;
    r.flip_prob = 0.5;
    r.degrees = 10.0;
    r.translate = 0.1;
    r.mosaic_scale = sdk::Range{0.1, 2.0};
    r.mixup_scale = sdk::Range{0.5, 1.5};
    r.shear = 2.0;
    r.ema = true;
    r.ema_decay = 0.9998;
    return r;
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
