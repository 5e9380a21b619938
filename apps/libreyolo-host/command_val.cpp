// `libreyolo-host val model=best.pt data=coco128`: COCO mAP of a checkpoint on a split, the
// per-class table in Ultralytics' layout, and the predictions as a COCO results JSON (with the
// matching ground truth JSON) so any COCO tool can re-score them. Like train, it writes a run
// folder (runs/val/exp): args.yaml, val.log, the two JSON files and, with plots=true (the
// default, as Ultralytics'), PR_curve.png, F1_curve.png, confusion_matrix_normalized.png and
// val_batch0_pred.jpg.

#include <torch/torch.h>

#include <algorithm>
#include <iostream>
#include <sstream>

#include "commands.hpp"
#include "host_setup.hpp"
#include "libreyolo/core/checkpoint/checkpoint.hpp"
#include "libreyolo/core/checkpoint/state_dict.hpp"
#include "libreyolo/core/config/option_table.hpp"
#include "libreyolo/core/config/train_option_list.hpp"
#include "libreyolo/core/data/cache/cache_mode.hpp"
#include "libreyolo/core/data/dataset/training_data.hpp"
#include "libreyolo/core/device/cuda_info.hpp"
#include "libreyolo/core/device/device_choice.hpp"
#include "libreyolo/core/draw/annotate.hpp"
#include "libreyolo/core/config/train_config.hpp"
#include "libreyolo/core/error.hpp"
#include "libreyolo/core/eval/coco_dataset_ids.hpp"
#include "libreyolo/core/eval/confusion_matrix.hpp"
#include "libreyolo/core/eval/coco_json_writer.hpp"
#include "libreyolo/core/eval/report_format.hpp"
#include "libreyolo/core/log/log.hpp"
#include "libreyolo/core/log/log_hold.hpp"
#include "libreyolo/core/trainer/run_folder.hpp"
#include "libreyolo/core/trainer/validation_plots.hpp"
#include "libreyolo/core/trainer/validator.hpp"

namespace libreyolo::app {
namespace {

using core::config::ResolvedOptions;

// val reads its options untyped; the task check is the one train's typed config would run.
void check_task(const ResolvedOptions& o) {
  const auto* task = core::config::find_train_option("task");
  task->check(task->spec.name, o.at(task->spec.name).value);
}

// args.yaml as train writes it: every option that has a value, non-defaults with their source.
void write_val_args(const std::filesystem::path& file, const ResolvedOptions& o) {
  std::vector<core::config::ReportedOption> reported;
  for (const auto& [name, option] : o.entries()) {
    if (!option.is_set) continue;
    reported.push_back({name, core::config::format_option_value(option.value), option.source});
  }
  core::trainer::write_args_yaml(file, reported);
}

core::trainer::ValidationOptions validation_options(const ResolvedOptions& o, int imgsz, torch::Device device) {
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
  options.log_progress = true;
  options.keep_first_batch = o.get_bool("plots") && core::draw::drawing_available();
  return options;
}

// The COCO JSON files, with COCO's own image and category ids when the images are COCO's.
// The evaluation itself keeps its ids: the printed mAP stays exactly what it was.
void write_coco_files(const std::filesystem::path& folder, const core::trainer::Validator& validator,
                      const std::vector<std::string>& names) {
  const auto& evaluator = validator.evaluator();
  const auto ids = core::eval::coco_ids_for(evaluator.ground_truth(), names.size());
  core::eval::CocoJsonOptions json;
  json.category_ids = ids.category_ids;
  core::eval::write_coco_results_json(folder / "predictions.json",
                                      core::eval::with_ids(evaluator.detections(), ids), json);
  core::eval::write_coco_ground_truth_json(folder / "ground_truth.json",
                                           core::eval::with_ids(evaluator.ground_truth(), ids), names, json);
  if (ids.official) {
    core::log::info("COCO images: predictions.json uses COCO's image ids (from the file names) and category ids "
                    "(80 -> 91), so it re-scores against the official instances_*.json");
  }
}

// pycocotools' 12 lines print -1.000 where an area range has no ground-truth box; the lines
// keep its layout (scripts parse it), and this says what the -1 means.
std::string unmeasured_note(const core::eval::CocoStats& stats) {
  const bool any = std::any_of(stats.values.begin(), stats.values.end(), [](double v) { return v < 0; });
  return any ? "(-1.000 above: no ground-truth box of that size, nothing to measure; pycocotools prints it so)\n"
             : "";
}

}  // namespace

int run_val(const Args& args) {
  core::log::hold_for_file();  // val.log starts with the first line, not with the run folder
  const auto run = resolve_model_run("val", args, core::config::val_options());
  if (!run.weights) {
    throw core::Error("val needs trained weights", "model=" + run.options.get_text("model") + " names a family, not a .pt file",
                      "pass model=runs/train/exp/weights/best.pt (or a LibreYOLO .pt)");
  }
  const auto& o = run.options;
  check_task(o);
  core::config::check_shared_train_options(o);  // imgsz, batch, workers, ... as train checks them
  core::config::check_nms_options(o);
  const auto device = core::device::choose_device(o.get_text("device"));
  const auto& file = run.weights->file;
  const auto& saved = *run.weights->checkpoint;
  for (const auto& warning : saved.warnings) core::log::warn(warning);  // each names the file
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

  // A results folder, as predict's: val writes no weights.
  const auto folder = core::trainer::create_results_folder(o.get_text("project"), o.get_text("name"), o.get_bool("exist_ok"));
  core::log::set_file(folder / "val.log");
  write_val_args(folder / "args.yaml", o);
  core::log::info("val run folder: ", folder.string());

  core::trainer::Validator validator(data.splits.at(split_name), dataset.names,
                                     core::trainer::with_family_postprocess(validation_options(o, imgsz, device),
                                                                            run.family->info));
  const auto evaluation = validator.run(*model, run.family->info.input);
  write_coco_files(folder, validator, dataset.names);
  if (o.get_bool("plots")) {
    core::trainer::write_validation_plots(
        {evaluation, core::eval::confusion_matrix(validator.evaluator()), validator.first_batch()}, dataset.names,
        folder);
  }
  std::ostringstream report;
  report << core::eval::format_class_table(evaluation) << "\n" << core::eval::format_coco_summary(evaluation.stats)
         << unmeasured_note(evaluation.stats) << "\nmAP50 " << std::max(0.0, evaluation.stats.ap50()) << "  mAP50-95 " << std::max(0.0, evaluation.stats.ap())
         << (validator.left_out().empty() ? std::string() : "\n" + core::trainer::describe_left_out(validator))
         << "\npredictions: " << (folder / "predictions.json").string() << " (COCO results format; "
         << "ground truth beside it)";
  std::cout << report.str() << "\n";
  core::log::debug("\n", report.str());  // val.log keeps the report too (the console has it on stdout)
  core::log::close_file();
  return kExitOk;
}

}  // namespace libreyolo::app
