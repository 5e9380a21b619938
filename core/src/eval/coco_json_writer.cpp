#include "libreyolo/core/eval/coco_json_writer.hpp"

#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <functional>
#include <initializer_list>

#include "libreyolo/core/error.hpp"
#include "libreyolo/core/util/json_writer.hpp"

namespace libreyolo::core::eval {
namespace {

std::int64_t category_id(int class_id, const CocoJsonOptions& options) {
  if (class_id < 0) {
    throw Error("Cannot write class " + std::to_string(class_id) + " to COCO JSON",
                "class ids are indices and cannot be negative",
                "Check the labels or the model's class output");
  }
  if (options.category_ids.empty()) return class_id;
  if (static_cast<std::size_t>(class_id) >= options.category_ids.size()) {
    throw Error("Cannot write class " + std::to_string(class_id) + " to COCO JSON",
                "only " + std::to_string(options.category_ids.size()) + " category ids were given",
                "Give one category id per class, or none to use the class index");
  }
  return options.category_ids[static_cast<std::size_t>(class_id)];
}

void require_finite(double value, const char* what, std::int64_t image_id) {
  if (!std::isfinite(value)) {
    throw Error(std::string("Cannot write a non-finite ") + what + " of image " +
                    std::to_string(image_id) + " to COCO JSON",
                "JSON has no NaN or infinity",
                "Validate detections and labels before writing (CocoEvaluator::add_image does)");
  }
}

void require_finite(const Box& box, std::int64_t image_id) {
  for (double value : {box.x1, box.y1, box.x2, box.y2}) {
    require_finite(value, "box coordinate", image_id);
  }
}

// Everything that can make writing fail is checked before the first byte goes out, so a
// failure never leaves half a JSON file behind.
void validate_for_json(const std::vector<ImageDetections>& images, const CocoJsonOptions& options) {
  for (const ImageDetections& image : images) {
    for (const Detection& detection : image.detections) {
      require_finite(detection.box, image.image_id);
      require_finite(detection.score, "score", image.image_id);
      category_id(detection.class_id, options);
    }
  }
}

void validate_for_json(const std::vector<ImageGroundTruth>& images,
                       const std::vector<std::string>& class_names,
                       const CocoJsonOptions& options) {
  if (!options.category_ids.empty() && options.category_ids.size() != class_names.size()) {
    throw Error("Cannot write the COCO ground-truth JSON",
                std::to_string(options.category_ids.size()) + " category ids were given for " +
                    std::to_string(class_names.size()) + " classes",
                "Give one category id per class, or none to use the class index");
  }
  for (const ImageGroundTruth& image : images) {
    for (const GroundTruthObject& object : image.objects) {
      require_finite(object.box, image.image.id);
      require_finite(object.evaluation_area(), "area", image.image.id);
      category_id(object.class_id, options);
      // Otherwise the annotation would name a category the file does not list.
      if (static_cast<std::size_t>(object.class_id) >= class_names.size()) {
        throw Error("Cannot write class " + std::to_string(object.class_id) + " of image " +
                        std::to_string(image.image.id) + " to COCO JSON",
                    "only " + std::to_string(class_names.size()) + " class names were given",
                    "Pass the dataset's full class list");
      }
    }
  }
}

void write_xywh(util::JsonWriter& json, const Box& box, int decimals) {
  json.begin_array(true);
  for (double value : {box.x1, box.y1, box.x2 - box.x1, box.y2 - box.y1}) json.value(value, decimals);
  json.end_array();
}

void write_to_file(const std::filesystem::path& path, const char* what,
                   const std::function<void(std::ostream&)>& write) {
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  if (!file) {
    throw Error("Cannot create the " + std::string(what) + " file " + path.string(),
                std::strerror(errno), "Check that the folder exists and is writable");
  }
  write(file);
  file.close();
  if (!file) {
    throw Error("Cannot finish writing the " + std::string(what) + " file " + path.string(),
                "the write failed (disk full or the file was removed?)",
                "Free some disk space and run the evaluation again");
  }
}

}  // namespace

// Laid out as the COCO tools write them: one image, annotation or category per line.
void write_coco_results_json(std::ostream& out, const std::vector<ImageDetections>& images,
                             const CocoJsonOptions& options) {
  validate_for_json(images, options);
  util::JsonWriter json(out, 0);
  json.begin_array();
  for (const ImageDetections& image : images) {
    for (const Detection& detection : image.detections) {
      json.begin_object(true)
          .member("image_id", image.image_id)
          .member("category_id", category_id(detection.class_id, options))
          .key("bbox");
      write_xywh(json, detection.box, options.box_decimals);
      json.member("score", detection.score, options.score_decimals).end_object();
    }
  }
  json.end_array();
}

void write_coco_ground_truth_json(std::ostream& out, const std::vector<ImageGroundTruth>& images,
                                  const std::vector<std::string>& class_names,
                                  const CocoJsonOptions& options) {
  validate_for_json(images, class_names, options);
  util::JsonWriter json(out, 0);
  json.begin_object();
  // Some COCO tools copy "info" and "licenses" into their results object, so both are present.
  json.key("info").begin_object(true).member("description", "LibreYOLO Host ground truth").member("version", "1.0");
  json.end_object();
  json.key("licenses").begin_array().end_array();
  json.key("images").begin_array();
  for (const ImageGroundTruth& image : images) {
    const ImageInfo& info = image.image;
    json.begin_object(true)
        .member("id", info.id)
        .member("file_name", info.file_name)
        .member("width", info.width)
        .member("height", info.height)
        .end_object();
  }
  json.end_array();

  json.key("annotations").begin_array();
  std::int64_t annotation_id = 1;
  for (const ImageGroundTruth& image : images) {
    for (const GroundTruthObject& object : image.objects) {
      json.begin_object(true)
          .member("id", annotation_id++)
          .member("image_id", image.image.id)
          .member("category_id", category_id(object.class_id, options))
          .key("bbox");
      write_xywh(json, object.box, options.box_decimals);
      json.member("area", object.evaluation_area(), options.box_decimals)
          .member("iscrowd", object.iscrowd ? 1 : 0)
          .end_object();
    }
  }
  json.end_array();
  json.key("categories").begin_array();
  for (std::size_t k = 0; k < class_names.size(); ++k) {
    json.begin_object(true)
        .member("id", category_id(static_cast<int>(k), options))
        .member("name", class_names[k])
        .member("supercategory", "")
        .end_object();
  }
  json.end_array();
  json.end_object();
}

void write_coco_results_json(const std::filesystem::path& path,
                             const std::vector<ImageDetections>& images,
                             const CocoJsonOptions& options) {
  validate_for_json(images, options);  // before the file exists: no empty file left behind
  write_to_file(path, "COCO results",
                [&](std::ostream& out) { write_coco_results_json(out, images, options); });
}

void write_coco_ground_truth_json(const std::filesystem::path& path,
                                  const std::vector<ImageGroundTruth>& images,
                                  const std::vector<std::string>& class_names,
                                  const CocoJsonOptions& options) {
  validate_for_json(images, class_names, options);  // before the file exists: no empty file
  write_to_file(path, "COCO ground-truth", [&](std::ostream& out) {
    write_coco_ground_truth_json(out, images, class_names, options);
  });
}

}  // namespace libreyolo::core::eval
