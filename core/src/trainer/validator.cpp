#include "libreyolo/core/trainer/validator.hpp"

#include <torch/torch.h>

#include <chrono>

#include "libreyolo/core/data/augment/letterbox.hpp"
#include "libreyolo/core/data/loader/network_input.hpp"
#include "libreyolo/core/log/log.hpp"

namespace libreyolo::core::trainer {
namespace {

data::LoaderOptions loader_options(std::size_t size, const ValidationOptions& o) {
  data::LoaderOptions options;
  options.sampler.dataset_size = size;
  // A batch larger than the split would only reserve buffers for images that do not exist;
  // it changes no prediction, so it is capped without a word.
  const bool larger = size > 0 && o.batch > 0 && static_cast<std::size_t>(o.batch) > size;
  options.sampler.batch_size = larger ? static_cast<int>(size) : o.batch;
  options.sampler.shuffle = false;
  options.imgsz = o.imgsz;
  options.workers = o.workers;
  options.device = o.device;
  options.reuse_batch_memory = true;
  options.replace_unusable = false;  // a broken image leaves the evaluation instead (Batch::unusable)
  return options;
}

// Ground truth in original pixels, from the normalised labels.
eval::ImageGroundTruth ground_truth(const data::SplitSamples& split, std::size_t index) {
  eval::ImageGroundTruth gt;
  const auto size = split.original_sizes[index];
  gt.image.id = static_cast<std::int64_t>(index);
  gt.image.width = size.width;
  gt.image.height = size.height;
  if (index < split.file_names.size()) gt.image.file_name = split.file_names[index];
  const double w = size.width, h = size.height;
  for (const auto& l : split.labels[index]) {
    eval::GroundTruthObject object;
    object.class_id = l.class_id;
    object.box = {(l.cx - l.w / 2) * w, (l.cy - l.h / 2) * h, (l.cx + l.w / 2) * w, (l.cy + l.h / 2) * h};
    gt.objects.push_back(object);
  }
  return gt;
}

// "validating: 96/500 images (19%)" at most every few seconds, then once at the end: readable
// in a log file or a pipe, where a per-image line or a redrawn bar would be noise.
class ValidationProgress {
 public:
  ValidationProgress(bool enabled, std::size_t total)
      : enabled_(enabled), total_(total), start_(Clock::now()), last_(start_) {}

  void advance(std::size_t images) {
    done_ += images;
    if (!enabled_ || Clock::now() - last_ < kEvery) return;
    last_ = Clock::now();
    log::info("validating: ", done_, "/", total_, " images (", total_ ? 100 * done_ / total_ : 100, "%)");
  }

  void finish() const {
    if (!enabled_) return;
    const double seconds = std::chrono::duration<double>(Clock::now() - start_).count();
    log::info("validated ", done_, " images in ", static_cast<long>(seconds * 10) / 10.0, " s");
  }

 private:
  using Clock = std::chrono::steady_clock;
  static constexpr std::chrono::seconds kEvery{5};
  bool enabled_;
  std::size_t total_;
  std::size_t done_ = 0;
  Clock::time_point start_, last_;
};

constexpr std::int64_t kMostPictured = 16;  // plot_batch's grid

// The first batch as pictures, the detections moved from original pixels back into the
// network input's (the inverse of input_to_original), for val_batch0_pred.jpg.
std::vector<PredictedImage> predicted_images(const data::Batch& batch, const std::vector<std::vector<eval::Detection>>& detections,
                                             const std::vector<eval::InputToOriginal>& mapping,
                                             const std::vector<bool>& unusable) {
  const auto count = std::min<std::int64_t>(batch.images.size(0), kMostPictured);
  const auto images = batch.images.slice(0, 0, count).to(torch::kCPU).contiguous();
  std::vector<PredictedImage> pictures;
  for (std::int64_t i = 0; i < count; ++i) {
    if (unusable[i]) continue;  // a blank stand-in, not the image
    PredictedImage picture;
    picture.image.height = static_cast<int>(images.size(1));
    picture.image.width = static_cast<int>(images.size(2));
    const auto* pixels = images[i].data_ptr<std::uint8_t>();
    picture.image.pixels.assign(pixels, pixels + images[i].numel());
    const auto& m = mapping[i];
    for (auto d : detections[i]) {
      d.box = {d.box.x1 * m.scale_x + m.pad_x, d.box.y1 * m.scale_y + m.pad_y, d.box.x2 * m.scale_x + m.pad_x,
               d.box.y2 * m.scale_y + m.pad_y};
      picture.detections.push_back(d);
    }
    pictures.push_back(std::move(picture));
  }
  return pictures;
}

}  // namespace

ValidationOptions with_family_postprocess(ValidationOptions base, const sdk::FamilyInfo& family) {
  base.nms.multi_label = family.multi_label_nms;
  base.nms.max_candidates = family.nms_candidates;
  base.nms.suppress = family.suppression == sdk::Suppression::class_nms;
  base.resize = family.eval_resize;
  return base;
}

eval::InputToOriginal input_to_original(data::ImageSize original, int imgsz, sdk::EvalResize resize) {
  if (resize == sdk::EvalResize::stretch) {
    return {static_cast<double>(imgsz) / original.width, static_cast<double>(imgsz) / original.height, 0.0, 0.0,
            original.width, original.height};
  }
  const auto info = data::letterbox_info(original, imgsz);
  return {info.scale, info.scale, static_cast<double>(info.pad_x), static_cast<double>(info.pad_y), original.width,
          original.height};
}

Validator::Validator(std::shared_ptr<const data::SplitSamples> split, std::vector<std::string> class_names,
                     const ValidationOptions& options)
    : split_(std::move(split)),
      options_(options),
      loader_(loader_options(split_->labels.size(), options), data::val_sample_makers(split_, options.imgsz, options.resize)),
      evaluator_(std::move(class_names)) {}

eval::CocoEvaluation Validator::run(sdk::Detector& model, const sdk::InputFormat& input) {
  evaluator_.clear();
  left_out_.clear();
  first_batch_.clear();
  bool first = true;
  model.eval();
  torch::NoGradGuard no_grad;
  loader_.start_epoch({0, false});
  ValidationProgress progress(options_.log_progress, images());
  while (auto batch = loader_.next()) {
    progress.advance(batch->indices.size());
    sdk::Candidates candidates;
    {
      amp::AutocastScope autocast(options_.precision);
      const auto images = data::to_network_input(batch->images, input);
      candidates = model.decode(model.forward_remainder(model.forward_capturable(images), nullptr));
    }
    std::vector<eval::InputToOriginal> mapping;
    for (auto index : batch->indices) {
      mapping.push_back(input_to_original(split_->original_sizes[index], options_.imgsz, options_.resize));
    }
    auto detections = eval::postprocess_detections(candidates.boxes, candidates.scores, mapping, options_.nms);
    std::vector<bool> unusable(batch->indices.size(), false);
    for (const auto& sample : batch->unusable) {
      unusable[sample.position] = true;
      left_out_.push_back(sample.reason);
    }
    if (first && options_.keep_first_batch) first_batch_ = predicted_images(*batch, detections, mapping, unusable);
    first = false;
    for (std::size_t i = 0; i < batch->indices.size(); ++i) {
      if (!unusable[i]) evaluator_.add_image(ground_truth(*split_, batch->indices[i]), std::move(detections[i]));
    }
  }
  progress.finish();
  if (!left_out_.empty()) log::warn(describe_left_out(*this));
  return evaluator_.evaluate();
}

std::string describe_left_out(const Validator& validator) {
  const auto& left_out = validator.left_out();
  if (left_out.empty()) return {};
  std::string text = std::to_string(validator.images() - left_out.size()) + " of " + std::to_string(validator.images()) +
                     " images evaluated; " + std::to_string(left_out.size()) +
                     (left_out.size() == 1 ? " could not be decoded and was" : " could not be decoded and were") +
                     " left out (image, instances and predictions): ";
  constexpr std::size_t kNamed = 5;
  for (std::size_t i = 0; i < left_out.size() && i < kNamed; ++i) text += (i == 0 ? "" : "; ") + left_out[i];
  if (left_out.size() > kNamed) text += "; ... (" + std::to_string(left_out.size() - kNamed) + " more)";
  return text;
}

}  // namespace libreyolo::core::trainer
