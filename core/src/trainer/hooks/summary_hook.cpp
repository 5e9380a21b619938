#include <chrono>
#include <filesystem>

#include "hooks.hpp"
#include "libreyolo/core/log/log.hpp"
#include "libreyolo/core/trainer/run_summary.hpp"

namespace libreyolo::core::trainer::hooks {
namespace {

namespace fs = std::filesystem;

std::optional<std::string> if_exists(const fs::path& file) {
  std::error_code ec;
  return fs::is_regular_file(file, ec) ? std::optional<std::string>(file.string()) : std::nullopt;
}

RunSummary summarize(const TrainLoop& loop, const LoggedResults& logged) {
  const Session& s = loop.session;
  RunSummary summary;
  summary.total_epochs = s.config.epochs;
  summary.epochs = loop.outcome.epochs;
  summary.logged_epochs = logged.epochs();
  summary.model_family = s.family->info.name;
  summary.model_size = s.size;
  summary.save_dir = s.run.root.string();
  if (s.progress.best_epoch >= 0) {
    summary.best_epoch = s.progress.best_epoch + 1;
    summary.best_metric = s.progress.best_fitness;
    summary.best_map50 = logged.value(*summary.best_epoch, "metrics/mAP50");
  }
  summary.total_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - s.started).count();
  summary.best_checkpoint = if_exists(s.run.weights / "best.pt");
  summary.last_checkpoint = if_exists(s.run.weights / "last.pt");
  return summary;
}

// Rank 0: summary.json when training returns (every epoch trained, or patience stopped it).
// LibreYOLO's artifact callback writes none when training raises, Ctrl-C included, so an
// interrupted run leaves none either; a fresh run removes an earlier run's (exist_ok=true)
// first, so that a summary in the folder always belongs to the run that wrote its results.csv.
class SummaryHook : public TrainHook {
 public:
  void before_train(TrainLoop& loop) override {
    if (loop.session.progress.start_epoch > 0) return;  // a resumed run keeps it until it ends
    std::error_code ec;
    fs::remove(loop.session.run.root / "summary.json", ec);
  }

  void after_train(TrainLoop& loop) override {
    if (loop.outcome.interrupted) return;
    const auto& root = loop.session.run.root;
    try {
      write_run_summary(root / "summary.json", summarize(loop, LoggedResults::read(root / "results.csv")));
    } catch (const std::exception& e) {
      // The weights and results.csv are what the run is for; like LibreYOLO, a summary that
      // cannot be written is reported and the run still ends as it trained.
      log::warn("summary.json not written: ", e.what());
    }
  }
};

}  // namespace

std::unique_ptr<TrainHook> summary() { return std::make_unique<SummaryHook>(); }

}  // namespace libreyolo::core::trainer::hooks
