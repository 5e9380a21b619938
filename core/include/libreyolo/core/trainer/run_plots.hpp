#pragma once
// The pictures a run folder gets, as Ultralytics and LibreYOLO users look for them:
// results.png (every results.csv column per epoch), labels.jpg (what the training labels hold)
// and train_batch0.jpg (the first augmented batch with its boxes: the one picture that shows a
// broken augmentation at once); from a validation, PR_curve.png, F1_curve.png,
// confusion_matrix_normalized.png and val_batch0_pred.jpg (validation_plots.hpp writes those
// four together). Drawn with draw/canvas.hpp; no LibTorch here.

#include <filesystem>
#include <string>
#include <vector>

#include "libreyolo/core/data/dataset/label_file.hpp"
#include "libreyolo/core/data/image/image.hpp"
#include "libreyolo/core/draw/annotate.hpp"
#include "libreyolo/core/eval/coco_evaluator.hpp"
#include "libreyolo/core/eval/confusion_matrix.hpp"

namespace libreyolo::core::trainer {

// One panel per results.csv column but epoch, time and images/s (losses, mAP, precision,
// recall, learning rates: whatever the run wrote), against the epoch.
void plot_results(const std::filesystem::path& results_csv, const std::filesystem::path& png);

// Instances per class (classes with at least one), box centres and box sizes (normalised).
void plot_labels(const std::vector<std::vector<data::LabelBox>>& labels, const std::vector<std::string>& names,
                 const std::filesystem::path& jpg);

// Up to 16 images tiled in a square grid, each with its boxes and class names.
struct BatchTile {
  data::Image image;
  std::vector<draw::LabelledBox> boxes;
};
void plot_batch(const std::vector<BatchTile>& tiles, const std::filesystem::path& jpg);

// Precision against recall at IoU 0.50 (COCO's interpolated precision at its 101 recall
// thresholds, the table mAP50 is the mean of): a thin grey line per class with instances and
// their mean thick, "all classes 0.xxx mAP@0.5". kCurveWidth x kCurveHeight pixels.
inline constexpr int kCurveWidth = 900, kCurveHeight = 600;
void plot_pr_curve(const eval::CocoEvaluation& evaluation, const std::filesystem::path& png);

// F1 against the confidence threshold (eval/f1_precision_recall.hpp's curves): a thin grey
// line per class with instances and their mean, smoothed as Ultralytics draws it (a box
// filter of 5%), "all classes F1 0.xx at 0.xxx" at its maximum. kCurveWidth x kCurveHeight.
void plot_f1_curve(const eval::CocoEvaluation& evaluation, const std::filesystem::path& png);

// The confusion matrix with each true-class column divided by its sum, only the classes that
// occur (classes_present) and background; the shares printed in the cells while fewer than
// 30 rows are shown. kMatrixWidth x kMatrixHeight pixels whatever the class count.
inline constexpr int kMatrixWidth = 1200, kMatrixHeight = 900;
void plot_confusion_matrix(const eval::ConfusionMatrix& matrix, const std::vector<std::string>& names,
                           const std::filesystem::path& png);

// A validation image as the network saw it, with its detections in its own pixels.
struct PredictedImage {
  data::Image image;
  std::vector<eval::Detection> detections;
};

// The tiles of val_batch0_pred.jpg: each image with its detections scoring above `min_score`
// (Ultralytics' 0.25) as "name 0.87" boxes, the best drawn last (on top).
std::vector<BatchTile> prediction_tiles(const std::vector<PredictedImage>& images, const std::vector<std::string>& names,
                                        double min_score = 0.25);

}  // namespace libreyolo::core::trainer
