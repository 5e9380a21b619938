#include "libreyolo/core/predict/prediction_output.hpp"

#include <cstdio>
#include <fstream>
#include <map>

#include "libreyolo/core/error.hpp"
#include "libreyolo/core/util/json_writer.hpp"

namespace libreyolo::core::predict {

std::string class_name(const std::vector<std::string>& names, int id) {
  if (id >= 0 && static_cast<std::size_t>(id) < names.size()) return names[static_cast<std::size_t>(id)];
  return "class" + std::to_string(id);
}

namespace {

bool ends_with(const std::string& text, const std::string& tail) {
  return text.size() >= tail.size() && text.compare(text.size() - tail.size(), tail.size(), tail) == 0;
}

// COCO's names in the plural as a reader expects them: buses, benches, boxes; names that are
// plural already (skis, scissors) stay as they are.
std::string plural(const std::string& name) {
  for (const char* tail : {"us", "ss", "x", "z", "ch", "sh"}) {
    if (ends_with(name, tail)) return name + "es";
  }
  return ends_with(name, "s") ? name : name + "s";
}

}  // namespace

std::string describe_counts(const std::vector<eval::Detection>& detections, const std::vector<std::string>& names) {
  std::map<int, int> counts;
  for (const auto& d : detections) ++counts[d.class_id];
  if (counts.empty()) return "no detections";
  std::string text;
  for (const auto& [id, count] : counts) {
    if (!text.empty()) text += ", ";
    const auto name = class_name(names, id);
    text += std::to_string(count) + " " + (count > 1 ? plural(name) : name);
  }
  return text;
}

std::string yolo_label_lines(const std::vector<eval::Detection>& detections, int width, int height) {
  std::string text;
  const double w = width > 0 ? width : 1, h = height > 0 ? height : 1;
  for (const auto& d : detections) {
    char line[160];
    std::snprintf(line, sizeof line, "%d %g %g %g %g %g\n", d.class_id, (d.box.x1 + d.box.x2) / 2 / w,
                  (d.box.y1 + d.box.y2) / 2 / h, d.box.width() / w, d.box.height() / h, d.score);
    text += line;
  }
  return text;
}

void write_predictions_json(const std::filesystem::path& path, const std::vector<ImagePrediction>& images,
                            const std::vector<std::string>& names) {
  std::ofstream out(path, std::ios::trunc);
  {
    util::JsonWriter json(out, 2);
    json.begin_array();
    for (const auto& image : images) {
      json.begin_object().member("file", image.file.string()).member("width", image.width);
      json.member("height", image.height).key("detections").begin_array();
      for (const auto& d : image.detections) {
        json.begin_object(/*inline_container=*/true).member("class_id", d.class_id);
        json.member("class_name", class_name(names, d.class_id)).member("confidence", d.score, 5);
        json.key("box").begin_array(true).value(d.box.x1, 3).value(d.box.y1, 3).value(d.box.x2, 3);
        json.value(d.box.y2, 3).end_array().end_object();
      }
      json.end_array().end_object();
    }
    json.end_array();
  }
  out.close();
  if (!out) {
    throw Error("cannot write " + path.string(), "the file could not be created or fully written (disk full?)",
                "free some space or choose another project= folder");
  }
}

}  // namespace libreyolo::core::predict
