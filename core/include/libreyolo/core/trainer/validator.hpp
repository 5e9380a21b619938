#pragma once
// Validation: the model (in eval mode, EMA weights during training) over a split letterboxed
// without augmentation, candidates -> NMS -> original pixels -> COCO mAP. Shared by `train`
// (every eval_interval epochs) and `val`.

#include <memory>
#include <string>
#include <vector>

#include "libreyolo/core/amp/precision_plan.hpp"
#include "libreyolo/core/data/dataset/dataset_samples.hpp"
#include "libreyolo/core/data/loader/data_loader.hpp"
#include "libreyolo/core/eval/coco_evaluator.hpp"
#include "libreyolo/core/eval/nms.hpp"
#include "libreyolo/core/trainer/run_plots.hpp"
#include "libreyolo/sdk/detector.hpp"
#include "libreyolo/sdk/family.hpp"

namespace libreyolo::core::trainer {

struct ValidationOptions {
  int imgsz = 640;
  int batch = 16;
  int workers = 4;
  torch::Device device = torch::kCPU;
  amp::PrecisionPlan precision;
  eval::NmsOptions nms;
  sdk::EvalResize resize = sdk::EvalResize::letterbox;
  // A line "validating: 96/500 images" every few seconds (the val command; training's
  // validation is summarised by the epoch line instead).
  bool log_progress = false;
  // Keep the first batch's images and detections (val_batch0_pred.jpg): one device read of up
  // to 16 images per run.
  bool keep_first_batch = false;
};

// What the family declares for validation (its resize and post-processing) on top of `base`.
ValidationOptions with_family_postprocess(ValidationOptions base, const sdk::FamilyInfo& family);

// How an image of `original` size maps between the network input and its own pixels under the
// family's validation resize.
eval::InputToOriginal input_to_original(data::ImageSize original, int imgsz, sdk::EvalResize resize);

class Validator {
 public:
  Validator(std::shared_ptr<const data::SplitSamples> split, std::vector<std::string> class_names,
            const ValidationOptions& options);

  // Runs the whole split. The model is put in eval mode and left there.
  eval::CocoEvaluation run(sdk::Detector& model, const sdk::InputFormat& input);

  // The evaluator of the last run (ground truth and detections, for the JSON writers).
  const eval::CocoEvaluator& evaluator() const { return evaluator_; }

  // Images of the last run that could not be decoded: left out of the evaluation entirely
  // (their image, ground-truth instances and predictions), each with the error naming it.
  const std::vector<std::string>& left_out() const { return left_out_; }
  // keep_first_batch: the last run's first batch (its decodable images, up to 16) as the
  // network saw them, each with its detections mapped back into those pixels.
  const std::vector<PredictedImage>& first_batch() const { return first_batch_; }
  // Images of the split (evaluated = images() - left_out().size()).
  std::size_t images() const { return split_->labels.size(); }

 private:
  std::shared_ptr<const data::SplitSamples> split_;
  ValidationOptions options_;
  data::DataLoader loader_;
  eval::CocoEvaluator evaluator_;
  std::vector<std::string> left_out_;
  std::vector<PredictedImage> first_batch_;
};

// "7 of 8 images evaluated; 1 could not be decoded and was left out: ...", or empty when none was.
std::string describe_left_out(const Validator& validator);

}  // namespace libreyolo::core::trainer
