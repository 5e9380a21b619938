// The SDK's worked example: a complete family in one file, small enough to read in one
// sitting. It is a real (if weak) detector: a three-convolution stride-8 backbone and a
// single-scale anchor-free head, trained with centre-cell assignment. Real families live in
// plugins/ and share their building blocks through the SDK library.

#include <torch/torch.h>

#include <libreyolo/sdk/sdk.hpp>

namespace libreyolo::families::example {

constexpr int64_t kStride = 8;

// Appends Conv(3x3) -> BatchNorm -> SiLU, the block every YOLO backbone is made of.
void add_conv_bn_silu(torch::nn::Sequential& layers, int64_t in, int64_t out, int64_t stride) {
  layers->push_back(
      torch::nn::Conv2d(torch::nn::Conv2dOptions(in, out, 3).stride(stride).padding(1).bias(false)));
  layers->push_back(sdk::BatchNorm2d(out));  // the SDK's: multi-GPU sync_bn can reach it
  layers->push_back(torch::nn::SiLU());
}

// Output channels per cell: dx, dy (offset from the cell centre, in cells, through tanh),
// log-w, log-h (in cells), objectness, then one logit per class.
class ExampleDetector : public sdk::Detector {
 public:
  ExampleDetector(int64_t num_classes, int64_t width) : num_classes_(num_classes) {
    torch::nn::Sequential backbone;
    add_conv_bn_silu(backbone, 3, width, 2);
    add_conv_bn_silu(backbone, width, 2 * width, 2);
    add_conv_bn_silu(backbone, 2 * width, 4 * width, 2);
    backbone_ = register_module("backbone", backbone);
    head_ = register_module("head", torch::nn::Conv2d(torch::nn::Conv2dOptions(4 * width, 5 + num_classes, 1)));
  }

  std::vector<torch::Tensor> forward_capturable(const torch::Tensor& images) override {
    return {head_->forward(backbone_->forward(images))};
  }

  sdk::Candidates decode(const std::vector<torch::Tensor>& outputs) override {
    const auto p = cells(outputs.front());  // [B, HW, 5 + C]
    const auto centres = cell_centres(outputs.front());
    const auto xy = centres + torch::tanh(p.narrow(2, 0, 2)) * kStride;
    const auto wh = torch::exp(p.narrow(2, 2, 2).clamp_max(8.0)) * kStride;
    auto boxes = torch::cat({xy - wh / 2, xy + wh / 2}, 2);
    auto scores = torch::sigmoid(p.narrow(2, 4, 1)) * torch::sigmoid(p.narrow(2, 5, num_classes_));
    return {boxes, scores};
  }

  // [B, 5 + C, H, W] -> [B, H*W, 5 + C] in float32 (loss and decoding math in float32).
  static torch::Tensor cells(const torch::Tensor& raw) {
    return raw.to(torch::kFloat32).flatten(2).transpose(1, 2);
  }

  // [H*W, 2] pixel centres of the cells, row-major like cells().
  static torch::Tensor cell_centres(const torch::Tensor& raw) {
    const auto options = torch::TensorOptions().dtype(torch::kFloat32).device(raw.device());
    const auto ys = (torch::arange(raw.size(2), options) + 0.5) * kStride;
    const auto xs = (torch::arange(raw.size(3), options) + 0.5) * kStride;
    const auto grid = torch::meshgrid({ys, xs}, "ij");
    return torch::stack({grid[1].flatten(), grid[0].flatten()}, 1);
  }

 private:
  int64_t num_classes_;
  torch::nn::Sequential backbone_{nullptr};
  torch::nn::Conv2d head_{nullptr};
};

// Each ground-truth box is assigned to the cell containing its centre. Vectorised over the
// padded batch: padding rows are sent to a spare cell that is dropped, so no host sync.
class ExampleCriterion : public sdk::Criterion {
 public:
  explicit ExampleCriterion(int64_t num_classes) : num_classes_(num_classes) {}

  sdk::LossOutput operator()(const std::vector<torch::Tensor>& outputs, const sdk::Targets& targets,
                             const torch::Tensor&) override {
    const auto& raw = outputs.front();
    const auto p = ExampleDetector::cells(raw);  // [B, HW, 5 + C]
    const int64_t batch = p.size(0), height = raw.size(2), width = raw.size(3), hw = height * width;
    const auto valid = sdk::valid_mask(targets);           // [B, M]
    const auto validf = valid.to(torch::kFloat32);
    const auto num_boxes = validf.sum().clamp_min(1.0);
    const auto& gt = targets.boxes;                        // [B, M, 5]
    const auto cx = gt.select(2, 1), cy = gt.select(2, 2);
    const auto col = (cx / kStride).floor().clamp(0, width - 1).to(torch::kLong);
    const auto row = (cy / kStride).floor().clamp(0, height - 1).to(torch::kLong);
    const auto cell = torch::where(valid, row * width + col, torch::full_like(col, hw));

    auto objectness_target = torch::zeros({batch, hw + 1}, p.options());
    objectness_target.scatter_(1, cell, 1.0);
    const auto loss_obj = torch::binary_cross_entropy_with_logits(
        p.select(2, 4), objectness_target.narrow(1, 0, hw));

    const auto at_cell = p.gather(1, cell.clamp_max(hw - 1).unsqueeze(2).expand({batch, cell.size(1), p.size(2)}));
    const auto centres = ExampleDetector::cell_centres(raw).index_select(0, cell.clamp_max(hw - 1).flatten())
                             .view({batch, cell.size(1), 2});
    const auto offset_target = (torch::stack({cx, cy}, 2) - centres) / kStride;  // in (-0.5, 0.5]
    const auto size_target = torch::log(gt.narrow(2, 3, 2).clamp_min(1.0) / kStride);
    const auto box_error =
        torch::smooth_l1_loss(torch::tanh(at_cell.narrow(2, 0, 2)), offset_target, at::Reduction::None).sum(2) +
        torch::smooth_l1_loss(at_cell.narrow(2, 2, 2), size_target, at::Reduction::None).sum(2);
    const auto loss_box = (box_error * validf).sum() / num_boxes;

    const auto classes = gt.select(2, 0).to(torch::kLong).clamp(0, num_classes_ - 1);
    const auto class_target = torch::one_hot(classes, num_classes_).to(torch::kFloat32);
    const auto class_error = torch::binary_cross_entropy_with_logits(
        at_cell.narrow(2, 5, num_classes_), class_target, {}, {}, at::Reduction::None).sum(2);
    const auto loss_cls = (class_error * validf).sum() / num_boxes;

    const auto total = loss_box * 5.0 + loss_obj * 1.0 + loss_cls * 1.0;
    return {total, {{"box", loss_box.detach()}, {"obj", loss_obj.detach()}, {"cls", loss_cls.detach()}}};
  }

  std::vector<std::string> component_names() const override { return {"box", "obj", "cls"}; }

 private:
  int64_t num_classes_;
};

class ExampleFamily : public sdk::Family {
 public:
  sdk::FamilyInfo info() const override {
    sdk::FamilyInfo info;
    info.name = "example";
    info.display_name = "Example";
    info.description = "the SDK's worked example: a tiny single-scale detector (examples/minimal_family)";
    info.sizes = {"n", "s"};
    info.tasks = {"detect"};
    info.default_imgsz = {{"n", 320}, {"s", 320}};
    return info;
  }

  sdk::Policy policy() const override {
    sdk::Policy policy;
    policy.amp = true;
    policy.sync_bn = true;  // BatchNorm everywhere, like the conv families it imitates
    policy.capture = sdk::CaptureRegion::network;
    policy.supports_spawn = true;
    return policy;
  }

  sdk::Recipe recipe(const std::string&) const override {
    sdk::Recipe recipe;
    recipe.scheduler = "linear";
    recipe.warmup_epochs = 1;
    recipe.no_aug_epochs = 1;
    recipe.ema_decay = 0.999;
    // Augmentation is declared as a list of the host's transforms: a mosaic (random affine, no
    // rotation or shear) for most epochs, then a plain letterbox for the last no_aug_epochs.
    namespace A = sdk::augment;
    A::Mosaic mosaic;
    mosaic.degrees = 0.0;
    mosaic.shear = 0.0;
    mosaic.scale = sdk::Range{0.5, 1.5};
    recipe.augmentation = {
        {"mosaic", {mosaic, A::Letterbox{}, A::Hsv{}, A::Flip{0.5}, A::FilterBoxes{1.0}}},
        {"plain", {A::Letterbox{}, A::Hsv{}, A::Flip{0.5}, A::FilterBoxes{1.0}}},
    };
    sdk::EpochChange close_mosaic;
    close_mosaic.at = sdk::EpochPoint::from_end_option("no_aug_epochs");
    close_mosaic.what = "mosaic off";
    close_mosaic.augmentation = "plain";
    recipe.schedule = {close_mosaic};
    return recipe;
  }

  std::shared_ptr<sdk::Detector> create_detector(const sdk::ModelSpec& spec) const override {
    return std::make_shared<ExampleDetector>(spec.num_classes, spec.size == "s" ? 32 : 16);
  }

  std::shared_ptr<sdk::Criterion> create_criterion(sdk::Detector&, const sdk::CriterionSpec& spec) const override {
    return std::make_shared<ExampleCriterion>(spec.num_classes);
  }
};

}  // namespace libreyolo::families::example

LIBREYOLO_REGISTER_FAMILY(libreyolo::families::example::ExampleFamily)
