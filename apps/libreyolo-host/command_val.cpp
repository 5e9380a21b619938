// `libreyolo-host val model=best.pt data=coco128`: COCO mAP of a checkpoint on a split, the
// per-class table, and the predictions as a COCO results JSON (with the matching ground
// truth JSON) so any COCO tool can re-score them.

#include <torch/torch.h>

#include <iostream>

#include "commands.hpp"
#include "host_setup.hpp"
#include "libreyolo/core/checkpoint/checkpoint.hpp"
#include "libreyolo/core/checkpoint/state_dict.hpp"
#include "libreyolo/core/config/option_table.hpp"
#include "libreyolo/core/data/cache/cache_mode.hpp"
#include "libreyolo/core/data/dataset/training_data.hpp"
#include "libreyolo/core/device/cuda_info.hpp"
#include "libreyolo/core/device/device_choice.hpp"
#include "libreyolo/core/error.hpp"
#include "libreyolo/core/eval/coco_json_writer.hpp"
#include "libreyolo/core/eval/report_format.hpp"
#include "libreyolo/core/log/log.hpp"
#include "libreyolo/core/trainer/run_folder.hpp"
#include "libreyolo/core/trainer/validator.hpp"

namespace libreyolo::app {

int run_val(const Args& args) {
  const auto run = resolve_model_run("val", args, core::config::val_options());
  if (!run.weights) {
    throw core::Error("val needs trained weights", "model=" + run.options.get_text("model") + " names a family, not a .pt file",
                      "pass model=runs/train/exp/weights/best.pt (or a LibreYOLO .pt)");
  }
  const auto& o = run.options;
  const auto device = core::device::choose_device(o.get_text("device"));
  const auto& file = run.weights->file;
  const auto& saved = *run.weights->checkpoint;
  for (const auto& warning : saved.warnings) core::log::warn(file.string(), ": ", warning);
  // Weights saved at one input size evaluate at another only if the user asks (imgsz=).
  const int imgsz = o.at("imgsz").source == core::config::OptionSource::command_line ? static_cast<int>(o.get_int("imgsz"))
                                                                                     : static_cast<int>(saved.metadata.imgsz);
  const auto& split_name = o.get_text("split");
  const auto data = core::data::load_training_data(
      {o.get_text("data"), bundled_datasets_dir(), imgsz, core::data::parse_cache_mode(o.get_text("cache")), {split_name}});
  const auto& dataset = data.dataset;
  if (saved.metadata.nc != dataset.nc()) {
    throw core::Error(file.string() + " predicts " + std::to_string(saved.metadata.nc) + " classes",
                      "the dataset " + o.get_text("data") + " has " + std::to_string(dataset.nc()),
                      "validate on the dataset the weights were trained for");
  }
  torch::manual_seed(0);
  auto model = run.family->family->create_detector({run.size, dataset.nc(), imgsz});
  core::checkpoint::load_state_dict_into(*model, saved.model, /*strict=*/true, file.string());
  model->to(device);
  const auto& samples = data.splits.at(split_name);

  core::trainer::ValidationOptions options;
  options.imgsz = imgsz;
  options.batch = static_cast<int>(std::max<long long>(1, o.get_int("batch")));
  options.workers = static_cast<int>(o.get_int("workers"));
  options.device = device;
  options.precision = core::amp::plan_precision(o.get_bool("amp"), o.get_text("amp_dtype"), device,
                                                core::device::cuda_supports_bfloat16(device));
  options.nms.conf = static_cast<float>(o.get_double("conf"));
  options.nms.iou = static_cast<float>(o.get_double("iou"));
  options.nms.max_det = static_cast<int>(o.get_int("max_det"));
  core::trainer::Validator validator(samples, dataset.names,
                                     core::trainer::with_family_postprocess(options, run.family->info));
  const auto evaluation = validator.run(*model, run.family->info.input);

  const auto folder = core::trainer::create_run_folder(o.get_text("project"), o.get_text("name"), o.get_bool("exist_ok"));
  core::eval::write_coco_results_json(folder.root / "predictions.json", validator.evaluator().detections());
  core::eval::write_coco_ground_truth_json(folder.root / "ground_truth.json", validator.evaluator().ground_truth(),
                                           dataset.names);
  std::cout << core::eval::format_class_table(evaluation) << "\n" << core::eval::format_coco_summary(evaluation.stats)
            << "\nmAP50 " << std::max(0.0, evaluation.stats.ap50()) << "  mAP50-95 " << std::max(0.0, evaluation.stats.ap())
            << (validator.left_out().empty() ? std::string() : "\n" + core::trainer::describe_left_out(validator))
            << "\npredictions: " << (folder.root / "predictions.json").string() << " (COCO results format; "
            << "ground truth beside it)\n";
  return kExitOk;
}

}  // namespace libreyolo::app
