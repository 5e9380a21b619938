#pragma once
// Text renderings of an evaluation for logs and the console: a per-class table and the
// 12-line COCO summary in pycocotools' own layout (so it reads like every COCO paper's log).

#include <string>

#include "libreyolo/core/eval/coco_evaluator.hpp"

namespace libreyolo::core::eval {

// Ultralytics' layout: Class, Images, Instances, P, R, mAP50, mAP50-95; first row "all" with
// the overall numbers, then the classes that have instances, in id order (a class with nothing
// to find has no AP to show). P and R are Ultralytics' (f1_precision_recall.hpp).
std::string format_class_table(const CocoEvaluation& evaluation);

// Twelve lines such as
//  " Average Precision  (AP) @[ IoU=0.50:0.95 | area=   all | maxDets=100 ] = 0.370"
// with -1.000 where a setting had no ground truth, exactly as pycocotools prints.
std::string format_coco_summary(const CocoStats& stats);

}  // namespace libreyolo::core::eval
