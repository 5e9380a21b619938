#pragma once
// Plain data the COCO evaluator consumes: what is really in each image (ground truth) and what
// the model claims (detections). Boxes are xyxy in pixels of the original image, the space both
// YOLO labels and de-letterboxed predictions end up in, so nothing here knows about resizing.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace libreyolo::core::eval {

struct Box {
  double x1 = 0.0;
  double y1 = 0.0;
  double x2 = 0.0;
  double y2 = 0.0;

  double width() const { return x2 - x1; }
  double height() const { return y2 - y1; }
  double area() const { return width() * height(); }
};

struct GroundTruthObject {
  Box box;
  int class_id = 0;
  // Crowd regions are never counted as objects to find; detections inside them are forgiven.
  bool iscrowd = false;
  // COCO annotations carry their own area (the segmentation's); YOLO labels do not, so the
  // box area stands in. Only the area-range (small/medium/large) split uses it.
  std::optional<double> area;

  double evaluation_area() const { return area ? *area : box.area(); }
};

struct Detection {
  Box box;
  double score = 0.0;
  int class_id = 0;
};

// What a COCO ground-truth file says about an image; only `id` matters for scoring, the rest
// goes into the ground-truth JSON so other tools can show the image.
struct ImageInfo {
  std::int64_t id = 0;
  std::string file_name;
  int width = 0;
  int height = 0;
};

struct ImageGroundTruth {
  ImageInfo image;
  std::vector<GroundTruthObject> objects;
};

struct ImageDetections {
  std::int64_t image_id = 0;
  std::vector<Detection> detections;
};

}  // namespace libreyolo::core::eval
