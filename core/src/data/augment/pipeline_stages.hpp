#pragma once
// Private to the pipeline (pipeline_run.cpp and the stage files): the sample between two
// transforms, and one function per transform kind.

#include <random>
#include <vector>

#include "libreyolo/core/data/augment/pipeline.hpp"

namespace libreyolo::core::data::pipeline {

// What every stage may use.
struct StageContext {
  AugmentSource& source;
  std::size_t index;  // the sample being made
  int imgsz;
  std::mt19937_64& rng;
  AugmentScratch& scratch;
  MutableImageView out;  // imgsz x imgsz, where the finished sample must end
};

// The sample as it moves through a pipeline: where its pixels are (still the source's memory,
// a scratch image, or the output slot), which part of them is image rather than letterbox
// padding, and what earlier transforms decided. The source's image is fetched only when a
// transform needs it, so a mosaic (which fetches its own four tiles) does not decode it twice.
class WorkingSample {
 public:
  // Fetched from `c.source` on first use.
  WorkingSample(StageContext& c, std::vector<PixelBox>& boxes) : context_(c), boxes_(boxes) {}
  // Already fetched (beta_blend's second sample).
  WorkingSample(StageContext& c, const SampleView& sample, std::vector<PixelBox>& boxes);

  ImageView pixels();
  std::vector<PixelBox>& boxes();
  bool at_output() const { return where_ == Where::output; }
  int width() { return pixels().width; }
  int height() { return pixels().height; }
  int content_width() { return at_output() ? content_width_ : width(); }
  int content_height() { return at_output() ? content_height_ : height(); }

  // The pixels, writable in place: a sample still in the source's memory is copied first.
  MutableImageView writable();
  // A scratch image that does not hold the sample's pixels, for a transform that makes a new
  // image out of them; hand it back to placed_in().
  Image& spare();
  // The pixels are now in `image` (one of the scratch work images), all of it image.
  void placed_in(Image& image);
  // The pixels are now in the output slot; the top-left content_w x content_h is image.
  void placed_at_output(int content_w, int content_h);
  // For a transform that makes a whole new sample (a mosaic): the source's image is never
  // fetched. Fill the returned boxes, then call placed_at_output().
  std::vector<PixelBox>& replace();

  bool made_by_mosaic = false;
  const sdk::augment::Mixup* blend_pending = nullptr;  // a beta_blend decided, not yet done

 private:
  enum class Where { source, work, output };
  void fetch();

  StageContext& context_;
  std::vector<PixelBox>& boxes_;
  bool fetched_ = false;
  Where where_ = Where::source;
  ImageView source_view_;
  Image* work_ = nullptr;
  int content_width_ = 0, content_height_ = 0;
};

void apply(const sdk::augment::Mosaic& t, StageContext& c, WorkingSample& s);
void apply(const sdk::augment::Mixup& t, StageContext& c, WorkingSample& s);
void apply(const sdk::augment::Letterbox& t, StageContext& c, WorkingSample& s);
void apply(const sdk::augment::Hsv& t, StageContext& c, WorkingSample& s);
void apply(const sdk::augment::Flip& t, StageContext& c, WorkingSample& s);
void apply(const sdk::augment::FilterBoxes& t, StageContext& c, WorkingSample& s);
void apply(const sdk::augment::PhotometricDistort& t, StageContext& c, WorkingSample& s);
void apply(const sdk::augment::ZoomOut& t, StageContext& c, WorkingSample& s);
void apply(const sdk::augment::IoUCrop& t, StageContext& c, WorkingSample& s);
void apply(const sdk::augment::SanitizeBoxes& t, StageContext& c, WorkingSample& s);
void apply(const sdk::augment::StretchResize& t, StageContext& c, WorkingSample& s);
void apply(const sdk::augment::MaxLabels& t, StageContext& c, WorkingSample& s);

// yolo9's mixup, after the rest of the pipeline: a Beta(beta, beta) blend with a second random
// sample that went through `transforms` without their Mosaic and Mixup.
void finish_beta_blend(const std::vector<sdk::augment::Transform>& transforms, StageContext& c, WorkingSample& s);

// Runs `transforms` on `s`; `plain` skips Mosaic and Mixup.
void run_transforms(const std::vector<sdk::augment::Transform>& transforms, StageContext& c, WorkingSample& s,
                    bool plain);

}  // namespace libreyolo::core::data::pipeline
