// `libreyolo-host predict model=best.pt source=images/`: a checkpoint's detections on images,
// made exactly as `val` makes them (core/predict/predictor.hpp), drawn into copies of the images
// and, on request, written as YOLO label files and one predictions.json.

#include <torch/torch.h>

#include <cstdio>
#include <fstream>
#include <iostream>

#include "commands.hpp"
#include "host_setup.hpp"
#include "libreyolo/core/checkpoint/checkpoint.hpp"
#include "libreyolo/core/checkpoint/state_dict.hpp"
#include "libreyolo/core/config/option_table.hpp"
#include "libreyolo/core/data/image/image_decode.hpp"
#include "libreyolo/core/draw/annotate.hpp"
#include "libreyolo/core/draw/box_style.hpp"
#include "libreyolo/core/draw/image_encode.hpp"
#include "libreyolo/core/config/train_config.hpp"
#include "libreyolo/core/error.hpp"
#include "libreyolo/core/log/log.hpp"
#include "libreyolo/core/predict/class_filter.hpp"
#include "libreyolo/core/predict/prediction_output.hpp"
#include "libreyolo/core/predict/prediction_sources.hpp"
#include "libreyolo/core/predict/predictor.hpp"
#include "libreyolo/core/trainer/run_folder.hpp"
#include "libreyolo/sdk/detector.hpp"

namespace libreyolo::app {
namespace {

namespace fs = std::filesystem;

struct OutputChoice {
  bool save = true;  // annotated images
  bool save_txt = false;
  bool save_json = false;
};

// One name per class id, the checkpoint's where it has them (class_filter and the labels read them).
std::vector<std::string> class_names(const core::checkpoint::Metadata& metadata) {
  std::vector<std::string> names;
  for (std::int64_t i = 0; i < metadata.nc; ++i) {
    const auto index = static_cast<std::size_t>(i);
    names.push_back(index < metadata.names.size() ? metadata.names[index] : "class" + std::to_string(i));
  }
  return names;
}

// Weights saved at one input size predict at another only if the user asks (imgsz=), as in val.
int checked_imgsz(const core::config::ResolvedOptions& o, const core::checkpoint::Metadata& metadata) {
  const bool asked = o.at("imgsz").source == core::config::OptionSource::command_line;
  const long long imgsz = asked ? o.get_int("imgsz") : metadata.imgsz;
  if (imgsz < 32 || imgsz > 8192 || imgsz % 32 != 0) {
    throw core::Error("imgsz=" + std::to_string(imgsz) + " cannot be used",
                      "the input size must be a multiple of 32 (the network stride) from 32 to 8192",
                      "pass e.g. imgsz=640");
  }
  return static_cast<int>(imgsz);
}

core::predict::PredictorSettings predictor_settings(const core::config::ResolvedOptions& o, int imgsz,
                                                    std::vector<int> classes) {
  core::config::check_nms_options(o);
  core::predict::PredictorSettings s;
  s.imgsz = imgsz;
  s.device = o.get_text("device");
  s.amp = o.get_bool("amp");
  s.amp_dtype = o.get_text("amp_dtype");
  s.conf = static_cast<float>(o.get_double("conf"));
  s.iou = static_cast<float>(o.get_double("iou"));
  s.max_det = static_cast<int>(o.get_int("max_det"));
  s.classes = std::move(classes);
  return s;
}

std::shared_ptr<sdk::Detector> load_detector(const ModelRun& run, int imgsz) {
  const auto& saved = *run.weights->checkpoint;
  torch::manual_seed(0);
  auto model = run.family->family->create_detector({run.size, static_cast<int>(saved.metadata.nc), imgsz});
  core::checkpoint::load_state_dict_into(*model, saved.model, /*strict=*/true, run.weights->file.string());
  return model;
}

void write_annotated(const fs::path& file, const core::predict::ImagePrediction& p, const std::vector<std::string>& names) {
  auto image = core::data::decode_image(p.file);
  std::vector<core::draw::LabelledBox> boxes;
  // Lowest score first, so the most confident box and label end up on top.
  for (auto it = p.detections.rbegin(); it != p.detections.rend(); ++it) {
    boxes.push_back({it->box.x1, it->box.y1, it->box.x2, it->box.y2, it->class_id,
                     core::draw::label_text(core::predict::class_name(names, it->class_id), it->score)});
  }
  core::draw::draw_labelled_boxes(image, boxes);
  core::draw::write_image(file, image);
}

void write_label_file(const fs::path& file, const core::predict::ImagePrediction& p) {
  std::ofstream out(file, std::ios::trunc);
  out << core::predict::yolo_label_lines(p.detections, p.width, p.height);
  out.close();
  if (!out) {
    throw core::Error("cannot write " + file.string(), "the file could not be created or fully written (disk full?)",
                      "free some space or choose another project= folder");
  }
}

std::string format_ms(double ms) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f ms", ms);
  return text;
}

// Predicts every image; one line each. Unreadable images are warned about and counted.
struct LoopResult {
  std::vector<core::predict::ImagePrediction> predictions;
  std::size_t skipped = 0;
  double inference_ms = 0;
};

LoopResult predict_all(core::predict::Predictor& predictor, const fs::path& folder, const OutputChoice& out,
                       const std::vector<std::string>& names) {
  LoopResult result;
  const std::string total = std::to_string(predictor.size());
  for (std::size_t i = 0; i < predictor.size(); ++i) {
    const std::string head = "image " + std::to_string(i + 1) + "/" + total + " " + predictor.path(i).string() + ": ";
    core::predict::PredictedImage predicted;
    try {
      predicted = predictor.predict(i);
    } catch (const core::Error& e) {
      core::log::warn(head, "skipped: ", e.why().empty() ? e.what() : e.why());  // why() already names no path
      ++result.skipped;
      continue;
    }
    const auto& p = predicted.prediction;
    const auto name = p.file.filename();
    if (out.save) write_annotated(folder / name, p, names);
    if (out.save_txt) write_label_file(folder / "labels" / fs::path(name).replace_extension(".txt"), p);
    std::cout << head << p.width << "x" << p.height << " " << core::predict::describe_counts(p.detections, names) << ", "
              << format_ms(predicted.inference_ms) << "\n";
    result.inference_ms += predicted.inference_ms;
    result.predictions.push_back(p);
  }
  return result;
}

void print_summary(const LoopResult& r, std::size_t images, const fs::path& folder, const OutputChoice& out) {
  const std::size_t done = r.predictions.size();
  std::cout << done << " of " << images << " images predicted, " << format_ms(done ? r.inference_ms / done : 0.0)
            << " inference per image on average";
  if (r.skipped > 0) std::cout << "; " << r.skipped << " could not be read and " << (r.skipped == 1 ? "was" : "were")
                               << " skipped (warnings above)";
  std::cout << "\nresults saved to " << folder.string();
  if (out.save_txt) std::cout << " (labels in " << (folder / "labels").string() << ")";
  if (out.save_json) std::cout << " (" << (folder / "predictions.json").string() << ")";
  std::cout << "\n";
}

}  // namespace

int run_predict(const Args& args) {
  const auto run = resolve_model_run("predict", args, core::config::predict_options());
  if (!run.weights) {
    throw core::Error("predict needs trained weights",
                      "model=" + run.options.get_text("model") + " names a family, not a .pt file",
                      "pass model=runs/train/exp/weights/best.pt (or a LibreYOLO .pt)");
  }
  const auto& o = run.options;
  const auto& saved = *run.weights->checkpoint;
  for (const auto& warning : saved.warnings) core::log::warn(warning);  // each names the file
  const auto names = class_names(saved.metadata);
  const OutputChoice out{o.get_bool("save"), o.get_bool("save_txt"), o.get_bool("save_json")};
  // Everything that can be refused is refused before the run folder exists.
  auto classes = core::predict::parse_class_filter(o.get_text("classes"), names);
  if (out.save) core::draw::require_drawing();
  const int imgsz = checked_imgsz(o, saved.metadata);
  auto settings = predictor_settings(o, imgsz, std::move(classes));
  auto sources = core::predict::list_prediction_sources(o.get_text("source"));
  const std::size_t images = sources.size();
  core::predict::Predictor predictor(load_detector(run, imgsz), run.family->info, settings, std::move(sources));

  const auto folder = core::trainer::create_results_folder(o.get_text("project"), o.get_text("name"), o.get_bool("exist_ok"));
  if (out.save_txt) fs::create_directories(folder / "labels");
  core::log::info("predicting ", images, " image", images == 1 ? "" : "s", " at imgsz ", imgsz, " on ",
                  predictor.device_name(), " (conf ", settings.conf, ", iou ", settings.iou, ", max_det ",
                  settings.max_det, ")");
  const auto result = predict_all(predictor, folder, out, names);
  if (out.save_json) core::predict::write_predictions_json(folder / "predictions.json", result.predictions, names);
  print_summary(result, images, folder, out);
  if (result.predictions.empty()) {
    throw core::Error("no image could be predicted", "each of the " + std::to_string(images) + " images failed to read",
                      "check the warnings above: the files may be corrupt or not images");
  }
  return kExitOk;
}

}  // namespace libreyolo::app
