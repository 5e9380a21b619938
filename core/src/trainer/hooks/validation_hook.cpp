#include "../training_state.hpp"
#include "hooks.hpp"
#include "libreyolo/core/draw/annotate.hpp"
#include "libreyolo/core/eval/confusion_matrix.hpp"
#include "libreyolo/core/eval/report_format.hpp"
#include "libreyolo/core/log/log.hpp"
#include "libreyolo/core/trainer/validation_plots.hpp"
#include "libreyolo/core/trainer/validator.hpp"

namespace libreyolo::core::trainer::hooks {
namespace {

// Validates the EMA weights (the model's own without EMA) every eval_interval epochs and at
// the last, and keeps the best as weights/best.pt.
class ValidationHook : public TrainHook {
 public:
  void before_train(TrainLoop& loop) override {
    Session& s = loop.session;
    if (!s.config.val) {  // LibreYOLO's val=false: no validation at all, so no best.pt either
      log::info("val=false: no validation during training (no mAP in results.csv, no best.pt)");
      return;
    }
    ValidationOptions options;
    options.imgsz = s.config.imgsz;
    options.batch = s.config.batch;
    options.workers = s.config.workers;
    options.device = s.device;
    options.precision = s.precision;
    pictures_ = s.config.plots && draw::drawing_available();
    options.keep_first_batch = pictures_;
    validator_ = std::make_unique<Validator>(s.val_split, s.dataset.names,
                                             with_family_postprocess(options, s.family->info));
    if (s.ema) {  // a second detector holds the EMA weights while they are validated
      eval_model_ = s.family->family->create_detector({s.size, s.dataset.nc(), s.config.imgsz});
      eval_model_->to(s.device);
    }
  }

  void after_epoch(TrainLoop& loop) override {
    Session& s = loop.session;
    const bool last_epoch = loop.epoch + 1 == s.config.epochs;
    if (!validator_) return;  // val=false
    if ((loop.epoch + 1) % s.config.eval_interval != 0 && !last_epoch) return;
    if (s.ema) s.ema->copy_to(*eval_model_);
    auto evaluation = validator_->run(s.ema ? *eval_model_ : *s.model, s.family->info.input);
    auto& record = loop.record;
    record.validated = true;
    record.stats = evaluation.stats;
    const double fitness = std::max(0.0, evaluation.stats.ap());
    if (last_epoch) log::info("\n", eval::format_class_table(evaluation));
    if (fitness > s.progress.best_fitness || s.progress.best_epoch < 0) {
      s.progress.best_fitness = fitness;
      s.progress.best_epoch = loop.epoch;
      loop.improved = true;
      record.is_best = true;
      save_checkpoint_file(s, s.run.weights / "best.pt", loop.epoch);
    }
    if (pictures_) {
      loop.last_validation = std::make_shared<const ValidationPictures>(ValidationPictures{
          std::move(evaluation), eval::confusion_matrix(validator_->evaluator()), validator_->first_batch()});
    }
  }

 private:
  std::unique_ptr<Validator> validator_;
  std::shared_ptr<sdk::Detector> eval_model_;
  bool pictures_ = false;  // plots=true in a build that can draw them
};

}  // namespace

std::unique_ptr<TrainHook> validation() { return std::make_unique<ValidationHook>(); }

}  // namespace libreyolo::core::trainer::hooks
