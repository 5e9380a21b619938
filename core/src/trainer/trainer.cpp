#include "libreyolo/core/trainer/trainer.hpp"

#include <cstdlib>
#include <fstream>
#include <iomanip>
#include <optional>
#include <sstream>

#include "hooks/hooks.hpp"
#include "libreyolo/core/checkpoint/checkpoint_io.hpp"
#include "libreyolo/core/distributed/replica_state.hpp"
#include "libreyolo/core/distributed/spawn_training.hpp"
#include "libreyolo/core/error.hpp"
#include "libreyolo/core/log/log.hpp"
#include "libreyolo/core/log/log_hold.hpp"
#include "libreyolo/core/trainer/interrupt.hpp"
#include "libreyolo/core/trainer/out_of_memory.hpp"
#include "libreyolo/core/trainer/resume_target.hpp"
#include "session.hpp"
#include "resume_command.hpp"
#include "train_loop.hpp"
#include "training_state.hpp"

namespace libreyolo::core::trainer {
namespace {

bool resuming(const config::TrainConfig& c) { return resume_requested(c.resume); }

// resume=true without name= means the latest run, so the default name does not count.
std::optional<std::string> name_if_set(const config::TrainConfig& c) {
  if (c.user_set.count("name") == 0) return std::nullopt;
  return c.name;
}

// Rank 0 creates the run folder (or finds the one to resume) and writes args.yaml; the other
// ranks of a distributed run receive its path, so every rank agrees on one folder.
void establish_run_folder(Session& s, const TrainRequest& request) {
  const auto& c = s.config;
  if (s.main_rank()) {
    s.run = resuming(c) ? existing_run_folder(resume_run_root(c.resume, c.project, name_if_set(c)))
                        : create_run_folder(c.project, c.name, c.exist_ok);
    s.run_lock = std::make_unique<RunFolderLock>(s.run.root);  // before anything in it is written
    if (!resuming(c)) write_args_yaml(s.run.root / "args.yaml", config::report_options(request.config, request.sources));
    if (const char* file = std::getenv(distributed::kRunFolderFileVariable); file && *file) {
      std::ofstream(file) << s.run.root.string();  // tells the launcher where rank 0's results are
    }
  }
  if (!s.collectives) return;
  const std::filesystem::path root = distributed::broadcast_text(*s.collectives, s.run.root.string());
  s.run.root = root;
  s.run.weights = root / "weights";
}

// pretrained=false with model=FILE.pt: LibreYOLO starts from the file's weights whatever
// pretrained says, Ultralytics' habit says it would not. Either reading surprises someone, so
// the host asks for the unambiguous spelling instead of picking one.
void refuse_unpretrained_weights(const config::TrainConfig& c, const TrainRequest& request) {
  if (c.pretrained || !request.weights || resuming(c)) return;
  throw Error("pretrained=false with model=" + c.model,
              "a .pt's weights are the starting point (LibreYOLO ignores pretrained=false then)",
              "for a fresh start name the family and size instead (e.g. model=yolo9s); to fine-tune, drop "
              "pretrained=false");
}

// Everything before the first epoch: ranks joined, the session's objects, run folder, train.log,
// and on resume the state of weights/last.pt. A fresh run creates its folder only after options,
// data and model proved good, so a run that fails to start leaves no folder behind (its log lines
// so far are held and open train.log). A resume checks its folder and last.pt first instead:
// that creates nothing, and a wrong name= should fail before minutes of data scanning.
void begin_run(Session& s, const TrainRequest& request) {
  s.config = request.config;
  refuse_unpretrained_weights(s.config, request);
  join_ranks(s, request);
  if (s.main_rank()) log::hold_for_file();
  std::optional<checkpoint::Checkpoint> resume_from;
  if (resuming(s.config)) {
    establish_run_folder(s, request);
    resume_from = checkpoint::load_checkpoint(s.run.weights / "last.pt");
  }
  prepare_session(s, request);
  if (!resuming(s.config)) establish_run_folder(s, request);
  if (s.main_rank()) {
    log::set_file(s.run.root / "train.log");
    log::info("run folder: ", s.run.root.string());
    // model=yolo9t: said once, so that nobody mistakes a cold start for fine-tuning (a run
    // from weights says "starting from FILE" instead; bench, which builds the same session, is
    // not training anyone's model and says neither).
    if (!request.weights && !resuming(s.config)) log::info("training from scratch (no pretrained weights)");
  }
  if (resume_from) {
    restore_training_state(s, *resume_from);
    if (s.progress.start_epoch >= s.config.epochs) {  // Ultralytics refuses this; here it is a no-op that says so
      log::info(s.run.root.string(), " already trained all its ", s.config.epochs,
                " epochs: nothing to resume. To train longer, start a new run from its weights: model=",
                (s.run.weights / "last.pt").string(), " epochs=N");
    } else {
      log::info("resuming ", s.run.root.string(), " after epoch ", s.progress.start_epoch);
    }
    // What this run inherits on disk, so its end reports it even when no new save succeeds.
    s.saved.saved(s.run.weights / "last.pt", s.progress.start_epoch);
    if (s.progress.best_epoch >= 0 && std::filesystem::is_regular_file(s.run.weights / "best.pt")) {
      s.saved.saved(s.run.weights / "best.pt", s.progress.best_epoch + 1);
    }
  }
}

// A failed save is never reported as success: each file whose latest save failed is named with
// what it holds instead, and the CLI exits 1 (TrainOutcome::save_failed).
void report_failed_saves(const TrainOutcome& outcome) {
  const auto failures = describe_failures(outcome.checkpoints, outcome.run.root);
  if (failures.empty()) return;
  for (const auto& line : failures) log::error(line);
  log::error("the run did not save everything it should have; on disk: ",
             describe_on_disk(outcome.checkpoints, outcome.run.root),
             ". Free disk space (or raise the file size limit) and continue with: ", outcome.resume_command);
}

// "best mAP50-95 0.4123 at epoch 7", or why there is none.
std::string best_result(const Session& s) {
  if (s.progress.best_epoch < 0) return s.config.val ? "not validated yet" : "val=false: not validated";
  std::ostringstream text;
  text << "best mAP50-95 " << std::fixed << std::setprecision(4) << s.progress.best_fitness << " at epoch "
       << s.progress.best_epoch + 1;
  return text.str();
}

TrainOutcome end_run(TrainLoop& loop) {
  auto& outcome = loop.outcome;
  const Session& s = loop.session;
  outcome.run = s.run;
  if (s.progress.best_epoch >= 0) outcome.best_map50_95 = s.progress.best_fitness;
  outcome.checkpoints = s.saved.files();
  outcome.resume_command = resume_command(s.run);
  if (s.main_rank()) report_failed_saves(outcome);
  log::info("done: ", s.run.root.string(), " (", best_result(s), ")");
  log::close_file();
  return outcome;
}

// The run itself: every policy is a hook around the epoch loop.
TrainOutcome train_session(Session& s, const TrainRequest& request) {
  begin_run(s, request);
  TrainLoop loop(s, request);
  InterruptGuard interrupts;  // Ctrl-C: see hooks::interrupt and hooks::distributed_decision
  Hooks policies;
  policies.push_back(hooks::epoch_schedule());
  policies.push_back(hooks::progress_line());
  if (auto profiler = hooks::step_profiler(s)) policies.push_back(std::move(profiler));
  if (!s.collectives) policies.push_back(hooks::interrupt());
  if (s.main_rank()) {  // rank 0 owns every side effect
    policies.push_back(hooks::validation());
    policies.push_back(hooks::results());
    policies.push_back(hooks::checkpoints());
    policies.push_back(hooks::early_stop());
    policies.push_back(hooks::summary());
    if (s.config.plots) policies.push_back(hooks::plots());
  }
  policies.push_back(hooks::capture_report());  // after the epoch's own line
  if (s.collectives) policies.push_back(hooks::distributed_decision());
  run_epochs(loop, policies);
  return end_run(loop);
}

}  // namespace

TrainOutcome train(const TrainRequest& request) {
  Session s;
  try {
    return train_session(s, request);
  } catch (const std::exception& e) {
    // Wherever it struck (the loader's buffers, the model, a step, validation), running out of
    // memory is the user's batch or imgsz, never "a bug".
    if (const auto detail = allocation_failure(e)) {
      throw out_of_memory_error(s.config.batch, s.config.imgsz, s.device.str(), *detail);
    }
    throw;
  }
}

}  // namespace libreyolo::core::trainer
