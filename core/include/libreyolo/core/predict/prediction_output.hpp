#pragma once
// What predict writes and prints about one image's detections: the console's "2 persons, 1 dog",
// YOLO label lines (Ultralytics' save_txt with save_conf), and predictions.json.

#include <filesystem>
#include <string>
#include <vector>

#include "libreyolo/core/eval/types.hpp"

namespace libreyolo::core::predict {

// One predicted image: its file, its upright size in pixels and its detections in those pixels.
struct ImagePrediction {
  std::filesystem::path file;
  int width = 0;
  int height = 0;
  std::vector<eval::Detection> detections;
};

// The name of class `id`, or "class<id>" when the model has no name for it.
std::string class_name(const std::vector<std::string>& names, int id);

// "2 persons, 1 dog" in class-id order (a plain 's' for more than one, as Ultralytics prints),
// "no detections" when there is none.
std::string describe_counts(const std::vector<eval::Detection>& detections, const std::vector<std::string>& names);

// One "class cx cy w h conf" line per detection, box normalised by the image size, numbers as
// printf's %g writes them (six significant digits), each line ending in '\n'.
std::string yolo_label_lines(const std::vector<eval::Detection>& detections, int width, int height);

// predictions.json: a list with, per image, its file, width, height and detections (class id,
// class name, confidence, box [x1, y1, x2, y2] in pixels). Throws core::Error naming the file
// when it cannot be written.
void write_predictions_json(const std::filesystem::path& path, const std::vector<ImagePrediction>& images,
                            const std::vector<std::string>& names);

}  // namespace libreyolo::core::predict
