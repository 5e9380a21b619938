#include "libreyolo/core/predict/predictor.hpp"

#include <torch/torch.h>

#include <random>

#include "libreyolo/core/amp/precision_plan.hpp"
#include "libreyolo/core/data/cache/image_plan.hpp"
#include "libreyolo/core/data/cache/uncached_source.hpp"
#include "libreyolo/core/data/dataset/dataset_samples.hpp"
#include "libreyolo/core/data/loader/network_input.hpp"
#include "libreyolo/core/device/cuda_info.hpp"
#include "libreyolo/core/device/device_choice.hpp"
#include "libreyolo/core/eval/nms.hpp"
#include "libreyolo/core/predict/class_filter.hpp"
#include "libreyolo/core/trainer/validator.hpp"
#include "libreyolo/sdk/detector.hpp"
#include "libreyolo/sdk/family.hpp"

namespace libreyolo::core::predict {

struct Predictor::State {
  std::shared_ptr<sdk::Detector> model;
  sdk::InputFormat input;
  trainer::ValidationOptions options;  // what val would use: resize, post-processing, precision
  std::vector<int> classes;
  std::vector<std::filesystem::path> paths;
  std::shared_ptr<const data::SplitSamples> split;
  std::unique_ptr<data::SampleMaker> maker;  // validation's own sample maker
  torch::Tensor input_buffer;                // [1, imgsz, imgsz, 3] uint8, reused
};

namespace {

// The images as a split without labels, so validation's sample maker serves them unchanged.
std::shared_ptr<const data::SplitSamples> unlabelled_split(std::vector<std::filesystem::path> paths, int imgsz) {
  auto plan = data::plan_images(std::move(paths), imgsz, {}, 0);
  auto split = std::make_shared<data::SplitSamples>();
  for (const auto& image : plan.images) {
    split->labels.emplace_back();
    split->original_sizes.push_back(image.original);
  }
  split->images = data::make_uncached_source(std::move(plan));
  return split;
}

trainer::ValidationOptions validation_options(const PredictorSettings& s, const sdk::FamilyInfo& family) {
  trainer::ValidationOptions options;
  options.imgsz = s.imgsz;
  options.batch = 1;
  options.workers = 0;
  options.device = device::choose_device(s.device);
  options.precision = amp::plan_precision(s.amp, s.amp_dtype, options.device,
                                          device::cuda_supports_bfloat16(options.device));
  options.nms.conf = s.conf;
  options.nms.iou = s.iou;
  options.nms.max_det = s.max_det;
  return trainer::with_family_postprocess(options, family);
}

}  // namespace

Predictor::Predictor(std::shared_ptr<sdk::Detector> model, const sdk::FamilyInfo& family,
                     const PredictorSettings& settings, std::vector<std::filesystem::path> images)
    : state_(std::make_unique<State>()) {
  auto& s = *state_;
  s.options = validation_options(settings, family);
  s.model = std::move(model);
  s.model->to(s.options.device);
  s.model->eval();
  s.input = family.input;
  s.classes = settings.classes;
  s.paths = images;
  s.split = unlabelled_split(std::move(images), settings.imgsz);
  s.maker = data::val_sample_makers(s.split, settings.imgsz, s.options.resize)();
  s.input_buffer = torch::empty({1, settings.imgsz, settings.imgsz, 3}, torch::kUInt8);
}

Predictor::~Predictor() = default;

std::size_t Predictor::size() const { return state_->paths.size(); }

const std::filesystem::path& Predictor::path(std::size_t index) const { return state_->paths.at(index); }

std::string Predictor::device_name() const { return state_->options.device.str(); }

PredictedImage Predictor::predict(std::size_t index) {
  auto& s = *state_;
  const int imgsz = s.options.imgsz;
  std::vector<data::PixelBox> unused_boxes;
  std::mt19937_64 rng(0);  // validation's maker draws nothing
  s.maker->make(index, data::EpochMode{}, rng, {imgsz, imgsz, s.input_buffer.data_ptr<std::uint8_t>()}, unused_boxes);

  const auto start = std::chrono::steady_clock::now();
  torch::NoGradGuard no_grad;
  sdk::Candidates candidates;
  {
    amp::AutocastScope autocast(s.options.precision);
    const auto images = data::to_network_input(s.input_buffer.to(s.options.device), s.input);
    candidates = s.model->decode(s.model->forward_remainder(s.model->forward_capturable(images), nullptr));
  }
  const auto original = s.split->original_sizes[index];
  auto detections = eval::postprocess_detections(candidates.boxes, candidates.scores,
                                                 {trainer::input_to_original(original, imgsz, s.options.resize)},
                                                 s.options.nms);
  PredictedImage result;
  result.inference_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  result.prediction = {s.paths[index], original.width, original.height, std::move(detections.at(0))};
  keep_classes(result.prediction.detections, s.classes);
  return result;
}

}  // namespace libreyolo::core::predict
