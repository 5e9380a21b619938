#pragma once
// COCO-format files so any COCO tool (pycocotools, faster-coco-eval, ...) can re-score our
// predictions: a results file (list of {image_id, category_id, bbox, score}) and a matching
// ground-truth file (images, annotations, categories). Boxes are written as [x, y, w, h].

#include <cstdint>
#include <filesystem>
#include <ostream>
#include <string>
#include <vector>

#include "libreyolo/core/eval/types.hpp"

namespace libreyolo::core::eval {

struct CocoJsonOptions {
  // COCO category id written for class k; empty means the class index itself (right for our
  // own ground-truth JSON). Use coco80_to_coco91_category_ids() against official COCO files.
  std::vector<std::int64_t> category_ids;
  // Decimals after the point. The defaults follow the common YOLO tooling (3 for boxes in
  // pixels, 5 for scores); raise them for bit-closer re-scoring.
  int box_decimals = 3;
  int score_decimals = 5;
};

// Detections in the order given (per image, in vector order), which keeps pycocotools'
// tie-breaking identical to CocoEvaluator's. Throws core::Error on non-finite values or a
// class without a category id.
void write_coco_results_json(std::ostream& out, const std::vector<ImageDetections>& images,
                             const CocoJsonOptions& options = {});

// Annotation ids start at 1: pycocotools treats a matched id of 0 as "no match".
void write_coco_ground_truth_json(std::ostream& out, const std::vector<ImageGroundTruth>& images,
                                  const std::vector<std::string>& class_names,
                                  const CocoJsonOptions& options = {});

// File versions; throw core::Error when the file cannot be created or fully written.
void write_coco_results_json(const std::filesystem::path& path,
                             const std::vector<ImageDetections>& images,
                             const CocoJsonOptions& options = {});
void write_coco_ground_truth_json(const std::filesystem::path& path,
                                  const std::vector<ImageGroundTruth>& images,
                                  const std::vector<std::string>& class_names,
                                  const CocoJsonOptions& options = {});

}  // namespace libreyolo::core::eval
