// The RT-DETR family plugin: LibreYOLO's RT-DETR v1 (models/rtdetr/), sizes r18-r101 and l/x,
// with its training recipe, post-processing and checkpoint keys.

#include <libreyolo/sdk/sdk.hpp>

#include "config.hpp"
#include "rtdetr_criterion.hpp"
#include "rtdetr_detector.hpp"

namespace libreyolo::families::rtdetr {

using libreyolo::rtdetr::RtdetrCriterion;
using libreyolo::rtdetr::RtdetrDetector;
using libreyolo::rtdetr::RtdetrLossSettings;

class RtdetrFamily : public sdk::Family {
 public:
  sdk::FamilyInfo info() const override {
    sdk::FamilyInfo info;
    info.name = "rtdetr";
    info.display_name = "RT-DETR";
    info.description = "RT-DETR r18/r34/r50/r50m/r101 (PResNet-vd) and l/x (HGNetv2), hybrid encoder + "
                       "deformable decoder with denoising, LibreYOLO-compatible weights; no ImageNet "
                       "backbone download here: training starts from scratch";
    info.sizes = libreyolo::rtdetr::rtdetr_sizes();
    info.tasks = {"detect"};
    // LibreRTDETR.INPUT_SIZES: 640 for every size (the host's default). RGB / 255, no mean/std.
    info.input.channel_order = sdk::InputFormat::ChannelOrder::rgb;
    info.input.scale = 1.0f / 255.0f;
    // LibreYOLO's RT-DETR post-processing: the 300 best (query, class) scores, no NMS; its
    // validation stretches the image to the square.
    info.suppression = sdk::Suppression::none;
    info.eval_resize = sdk::EvalResize::stretch;
    info.multi_label_nms = true;
    // No size signature: LibreRTDETR.detect_size needs several tensors (block counts, widths),
    // which one tensor's first dimension cannot say; the checkpoint's metadata names the size.
    return info;
  }

  sdk::Policy policy() const override {
    sdk::Policy policy;
    policy.amp = true;       // the criterion casts to float32; the decoder clamps before its last norm
    policy.sync_bn = false;  // LibreYOLO / the official recipe: no SyncBN for the DETRs
    // The decoder too: its denoising queries are padded to a fixed count (rtdetr_decoder.hpp),
    // which takes the decoder and its backward off the host (docs/families/rtdetr.md).
    policy.capture = sdk::CaptureRegion::network_with_denoising;
    policy.supports_spawn = true;
    return policy;
  }

  // LibreYOLO's RTDETRConfig: AdamW at a constant 1e-4 (no warm-up, no no-aug tail), the
  // backbone at 5e-6 (x0.05), weight decay 1e-4, gradients clipped at 0.1, EMA 0.9999.
  sdk::Recipe recipe(const std::string& size) const override {
    sdk::Recipe r;
    r.epochs = 72;
    r.batch = 4;
    r.optimizer = "adamw";
    r.lr0 = 1e-4;
    r.momentum = 0.9;  // AdamW's beta1 (betas 0.9, 0.999)
    r.weight_decay = 1e-4;
    r.clip_grad = 0.1;
    r.scheduler = "constant";
    r.warmup_epochs = 0;
    r.no_aug_epochs = 0;
    r.multi_scale = false;
    r.ema = true;
    r.ema_decay = 0.9999;
    r.augmentation = {train_pipeline()};
    // RTDETRTrainer._setup_optimizer's rules, first match wins: backbone norms (lr x0.05, no
    // decay), the rest of the backbone (lr x0.05), encoder / decoder norms and biases (no
    // decay), everything else at lr0 with decay. LibreYOLO's regexes test the substrings
    // "backbone", "norm" / "bn", "encoder" / "decoder", "bias" anywhere in the name; every name
    // starts with backbone., encoder. or decoder., so the globs need only that order. Like
    // LibreYOLO, enc_output.1 (a LayerNorm whose name says neither) keeps its decay.
    r.param_groups = {
        {"backbone_norm", {"*backbone*norm*", "*backbone*bn*"}, 0.05, 0.0},
        {"backbone", {"*backbone*"}, 0.05, std::nullopt},
        {"no_decay", {"*encoder*norm*", "*encoder*bias*", "*decoder*norm*", "*decoder*bias*"}, 1.0, 0.0},
    };
    // freeze_at=0 (every size): the stem never trains (PResNet's conv1, HGNetv2's stem).
    const auto config = libreyolo::rtdetr::rtdetr_config(size);
    r.frozen = {config.backbone == "presnet" ? "backbone.conv1.*" : "backbone.stem.*"};
    return r;
  }

  // LibreYOLO's RT-DETR trains with YOLO9TrainTransform(max_labels=300) and RTDETRConfig's
  // probabilities: HSV 0.5, flip 0.5, letterbox (pad 114), boxes over 1 px, no mosaic or mixup.
  static sdk::augment::Pipeline train_pipeline() {
    namespace A = sdk::augment;
    A::Hsv hsv;
    hsv.prob = 0.5;
    return {"detr", {A::Letterbox{}, hsv, A::Flip{0.5}, A::FilterBoxes{1.0}, A::MaxLabels{300}}};
  }

  std::shared_ptr<sdk::Detector> create_detector(const sdk::ModelSpec& spec) const override {
    return std::make_shared<RtdetrDetector>(spec.size, spec.num_classes);
  }

  std::shared_ptr<sdk::Criterion> create_criterion(sdk::Detector&, const sdk::CriterionSpec& spec) const override {
    RtdetrLossSettings settings;
    settings.num_classes = spec.num_classes;
    return std::make_shared<RtdetrCriterion>(settings);
  }
};

}  // namespace libreyolo::families::rtdetr

LIBREYOLO_REGISTER_FAMILY(libreyolo::families::rtdetr::RtdetrFamily)
