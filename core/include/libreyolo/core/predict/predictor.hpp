#pragma once
// Predictions for a list of image files with a loaded detector, exactly as validation makes
// them: the same decode + resize (the uncached image source), the family's declared eval
// resize (letterbox or stretch), the same network calls and the family's post-processing
// (class NMS for YOLOs, top-k for set predictors) with predict's conf / iou / max_det, and the
// same inverse mapping to original pixels (trainer/validator.hpp). One image per forward.
// No LibTorch in this header: the command that uses it only passes settings and file names.

#include <chrono>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "libreyolo/core/predict/prediction_output.hpp"

namespace libreyolo::sdk {
class Detector;
struct FamilyInfo;
}  // namespace libreyolo::sdk

namespace libreyolo::core::predict {

struct PredictorSettings {
  int imgsz = 640;
  std::string device = "auto";  // as device= takes it
  bool amp = false;
  std::string amp_dtype = "float16";
  float conf = 0.25f;
  float iou = 0.45f;
  int max_det = 300;
  std::vector<int> classes;  // parse_class_filter's result; empty keeps every class
};

struct PredictedImage {
  ImagePrediction prediction;
  double inference_ms = 0;  // network + post-processing, not decoding
};

class Predictor {
 public:
  // Moves `model` to the device and puts it in eval mode. Reads every image's header now (the
  // source's plan); an image whose header is unreadable fails only when predicted.
  Predictor(std::shared_ptr<sdk::Detector> model, const sdk::FamilyInfo& family, const PredictorSettings& settings,
            std::vector<std::filesystem::path> images);
  ~Predictor();
  Predictor(const Predictor&) = delete;
  Predictor& operator=(const Predictor&) = delete;

  std::size_t size() const;
  const std::filesystem::path& path(std::size_t index) const;
  // "cpu", "cuda:0".
  std::string device_name() const;

  // Throws core::Error naming the file when image `index` cannot be read or decoded.
  PredictedImage predict(std::size_t index);

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace libreyolo::core::predict
