#include "libreyolo/core/data/dataset/dataset_samples.hpp"

#include "libreyolo/core/data/augment/letterbox.hpp"
#include "libreyolo/core/data/augment/pipeline.hpp"
#include "libreyolo/core/data/augment/stretch_resize.hpp"
#include "libreyolo/core/error.hpp"
#include "libreyolo/core/data/cache/image_cache.hpp"
#include "libreyolo/core/data/dataset/image_paths.hpp"
#include "libreyolo/core/data/dataset/scan_report.hpp"
#include "libreyolo/core/log/log.hpp"

namespace libreyolo::core::data {
namespace {

// Serves augmentation from the image source; one per worker, so the scratch images (used
// when the source keeps no pixels of its own) need no lock.
class SplitAugmentSource : public AugmentSource {
 public:
  explicit SplitAugmentSource(std::shared_ptr<const SplitSamples> split) : split_(std::move(split)) {}

  std::size_t size() const override { return split_->labels.size(); }

  SampleView sample(std::size_t index, int slot) override {
    const auto view = split_->images->get(index, scratch_[slot]);
    return {view, boxes_in_view(split_->labels[index], view)};
  }

 private:
  std::shared_ptr<const SplitSamples> split_;
  Image scratch_[kSlots];
};

class TrainSampleMaker : public SampleMaker {
 public:
  TrainSampleMaker(std::shared_ptr<const SplitSamples> split,
                   std::shared_ptr<const std::vector<PreparedPipeline>> pipelines)
      : source_(std::move(split)), pipelines_(std::move(pipelines)) {}

  void make(std::size_t index, const EpochMode& mode, std::mt19937_64& rng, MutableImageView out,
            std::vector<PixelBox>& boxes) override {
    run_pipeline(source_, index, pipelines_->at(mode.pipeline), rng, scratch_, out, boxes);
  }

 private:
  SplitAugmentSource source_;
  std::shared_ptr<const std::vector<PreparedPipeline>> pipelines_;
  AugmentScratch scratch_;
};

// Validation input: the family's declared resize, nothing random.
class ValSampleMaker : public SampleMaker {
 public:
  ValSampleMaker(std::shared_ptr<const SplitSamples> split, int imgsz, sdk::EvalResize resize)
      : source_(std::move(split)), imgsz_(imgsz), resize_mode_(resize) {}

  void make(std::size_t index, const EpochMode&, std::mt19937_64&, MutableImageView out,
            std::vector<PixelBox>& boxes) override {
    const auto sample = source_.sample(index, 0);
    boxes.clear();
    if (resize_mode_ == sdk::EvalResize::stretch) {
      // LibreYOLO's DETR validation: cv2.resize to the square, bilinear without antialiasing.
      boxes = sample.boxes;
      stretch_resize(sample.image, sdk::augment::StretchResize{/*antialias=*/false}, out, boxes, interpolate_);
      return;
    }
    const auto info = letterbox(sample.image, imgsz_, out, LetterboxPad::top_left, resize_, 114);
    for (const auto& box : sample.boxes) boxes.push_back(to_letterbox(box, info));
  }

 private:
  SplitAugmentSource source_;
  int imgsz_;
  sdk::EvalResize resize_mode_;
  ResizeScratch resize_;
  InterpolateScratch interpolate_;
};

}  // namespace

SplitSamples make_split_samples(const ScanResult& scan, std::shared_ptr<const ImageSource> images) {
  SplitSamples split;
  split.images = std::move(images);
  for (const auto& image : scan.images) {
    split.labels.push_back(image.boxes);
    split.original_sizes.push_back({image.width, image.height});
    split.file_names.push_back(image.path.filename().string());
  }
  return split;
}

namespace {

// All background: the label files are missing (usually a labels/ folder that is not where the
// images/ path says) or empty. Training would learn that nothing is ever an object.
void check_has_boxes(const DatasetSplit& split, const ScanResult& scan) {
  if (scan.report.boxes > 0 || scan.images.empty()) return;
  const std::filesystem::path example = label_path_for_image(scan.images.front().path);
  const std::string why = "its " + std::to_string(scan.images.size()) +
                          " usable images have no box at all: every label file is missing or "
                          "empty (the first image's labels are looked for at " +
                          example.string() + ")";
  const std::string what_to_do =
      "Put one label file per image in the labels/ folder beside images/ (images/x.jpg -> "
      "labels/x.txt), one 'class cx cy w h' row per object";
  if (split.name == "train") {
    throw Error("Dataset split 'train' has no boxes to train on", why, what_to_do);
  }
  log::warn("dataset split '", split.name, "' has no boxes: ", why, ". ", what_to_do);
}

}  // namespace

std::shared_ptr<const SplitSamples> load_split_samples(const DatasetSplit& split, int num_classes,
                                                       const SplitLoadOptions& options) {
  ScanOptions scan_options;
  scan_options.dataset_root = options.dataset_root;
  scan_options.cache_dir = options.cache_dir;
  const auto scan = scan_split(split, num_classes, scan_options);
  if (scan.report.total_problems() > 0) log::warn(format_scan_report(scan.report));
  check_has_boxes(split, scan);
  std::vector<std::filesystem::path> paths;
  ImageSourceOptions source_options;
  for (const auto& image : scan.images) {
    paths.push_back(image.path);
    source_options.original_sizes.push_back({image.width, image.height});
  }
  source_options.local_ranks = options.local_ranks;
  source_options.disk_cache_name = split.name;
  std::shared_ptr<const ImageSource> images = make_image_source(
      options.cache, std::move(paths), options.imgsz, options.cache_dir, options.threads, source_options);
  return std::make_shared<const SplitSamples>(make_split_samples(scan, std::move(images)));
}

std::vector<PixelBox> boxes_in_view(const std::vector<LabelBox>& labels, const ImageView& view) {
  std::vector<PixelBox> boxes;
  boxes.reserve(labels.size());
  const auto w = static_cast<float>(view.width), h = static_cast<float>(view.height);
  for (const auto& l : labels) {
    boxes.push_back({(l.cx - l.w / 2) * w, (l.cy - l.h / 2) * h, (l.cx + l.w / 2) * w, (l.cy + l.h / 2) * h,
                     l.class_id});
  }
  return boxes;
}

SampleMakerFactory train_sample_makers(std::shared_ptr<const SplitSamples> split,
                                       std::vector<PreparedPipeline> pipelines) {
  if (pipelines.empty()) {
    throw Error("no augmentation pipeline to train with", "the list of prepared pipelines is empty",
                "declare at least one pipeline in the recipe (a Letterbox alone will do)");
  }
  auto shared = std::make_shared<const std::vector<PreparedPipeline>>(std::move(pipelines));
  return [split, shared] { return std::make_unique<TrainSampleMaker>(split, shared); };
}

SampleMakerFactory val_sample_makers(std::shared_ptr<const SplitSamples> split, int imgsz,
                                     sdk::EvalResize resize) {
  return [split, imgsz, resize] { return std::make_unique<ValSampleMaker>(split, imgsz, resize); };
}

}  // namespace libreyolo::core::data
