#pragma once
// The four pictures of a validation, written together into a run folder: PR_curve.png,
// F1_curve.png, confusion_matrix_normalized.png and val_batch0_pred.jpg. `val` writes them
// into its run folder; `train` after its run, from its last validation. No LibTorch here.

#include <filesystem>
#include <string>
#include <vector>

#include "libreyolo/core/eval/coco_evaluator.hpp"
#include "libreyolo/core/eval/confusion_matrix.hpp"
#include "libreyolo/core/trainer/run_plots.hpp"

namespace libreyolo::core::trainer {

// What the pictures are drawn from: the evaluation (its curves), the confusion matrix counted
// over the same images, and the first batch with its detections.
struct ValidationPictures {
  eval::CocoEvaluation evaluation;
  eval::ConfusionMatrix confusion;
  std::vector<PredictedImage> first_batch;
};

// The file names, in the order they are written.
const std::vector<std::string>& validation_picture_names();

// Writes the four pictures into `folder`. Without OpenCV one log line says why there are none
// and nothing is written; a picture that cannot be drawn is a warning naming it, and the others
// are still written (a picture is never worth failing a run or a val).
void write_validation_plots(const ValidationPictures& pictures, const std::vector<std::string>& names,
                            const std::filesystem::path& folder);

}  // namespace libreyolo::core::trainer
