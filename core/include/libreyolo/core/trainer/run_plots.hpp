#pragma once
// The pictures a run folder gets, as Ultralytics and LibreYOLO users look for them:
// results.png (every results.csv column per epoch), labels.jpg (what the training labels hold)
// and train_batch0.jpg (the first augmented batch with its boxes: the one picture that shows a
// broken augmentation at once). Drawn with draw/canvas.hpp; no LibTorch here.

#include <filesystem>
#include <string>
#include <vector>

#include "libreyolo/core/data/dataset/label_file.hpp"
#include "libreyolo/core/data/image/image.hpp"
#include "libreyolo/core/draw/annotate.hpp"

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

}  // namespace libreyolo::core::trainer
