#include <filesystem>
#include <string>

#include "../training_state.hpp"
#include "hooks.hpp"
#include "libreyolo/core/log/log.hpp"

namespace libreyolo::core::trainer::hooks {
namespace {

// "last.pt.tmp-4242": the temporary name of an atomic save (checkpoint/atomic_file.hpp).
bool is_leftover_temp(const std::filesystem::path& file) {
  const auto name = file.filename().string();
  const auto mark = name.rfind(".pt.tmp-");
  if (mark == std::string::npos || mark + 8 == name.size()) return false;
  return name.find_first_not_of("0123456789", mark + 8) == std::string::npos;
}

// Temporary files of a save that a killed process never finished. The run folder is locked
// (RunFolderLock), so no live process is writing them.
void remove_leftover_temps(const std::filesystem::path& weights) {
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(weights, ec)) {
    if (!entry.is_regular_file(ec) || !is_leftover_temp(entry.path())) continue;
    if (std::filesystem::remove(entry.path(), ec)) {
      log::info("removed ", entry.path().string(), ", left by a save that did not finish");
    }
  }
}

class CheckpointsHook : public TrainHook {
 public:
  void before_train(TrainLoop& loop) override {
    Session& s = loop.session;
    remove_leftover_temps(s.run.weights);
    // A fresh run saves its starting state, so Ctrl-C, SIGTERM or kill -9 in the first epoch
    // still leaves a last.pt that resumes exactly (hooks::interrupt never saves mid-epoch).
    if (s.progress.start_epoch == 0) save_checkpoint_file(s, s.run.weights / "last.pt", -1);
  }

  void after_epoch(TrainLoop& loop) override {
    Session& s = loop.session;
    save_checkpoint_file(s, s.run.weights / "last.pt", loop.epoch);
    const int finished = loop.epoch + 1;
    if (s.config.save_period > 0 && finished % s.config.save_period == 0) {
      save_checkpoint_file(s, s.run.weights / ("epoch" + std::to_string(finished) + ".pt"), loop.epoch);
    }
  }
};

}  // namespace

std::unique_ptr<TrainHook> checkpoints() { return std::make_unique<CheckpointsHook>(); }

}  // namespace libreyolo::core::trainer::hooks
