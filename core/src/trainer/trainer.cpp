#include "libreyolo/core/trainer/trainer.hpp"

#include <torch/torch.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <random>

#include "libreyolo/core/checkpoint/checkpoint_io.hpp"
#include "libreyolo/core/data/loader/data_loader.hpp"
#include "libreyolo/core/data/loader/epoch_sampler.hpp"
#include "libreyolo/core/device/cuda_info.hpp"
#include "libreyolo/core/distributed/replica_state.hpp"
#include "libreyolo/core/distributed/spawn_training.hpp"
#include "libreyolo/core/eval/report_format.hpp"
#include "libreyolo/core/log/log.hpp"
#include "libreyolo/core/optim/accumulation.hpp"
#include "libreyolo/core/trainer/interrupt.hpp"
#include "libreyolo/core/trainer/progress_display.hpp"
#include "libreyolo/core/trainer/results_log.hpp"
#include "libreyolo/core/trainer/training_profiler_setup.hpp"
#include "session.hpp"
#include "training_state.hpp"

namespace libreyolo::core::trainer {
namespace {

// What rank 0 tells the other ranks at the end of every epoch of a distributed run.
enum class StopDecision : std::int64_t { go_on = 0, early_stop = 1, interrupted = 2 };

// Rank 0 creates the run folder (or finds the one to resume) and writes args.yaml; the other
// ranks of a distributed run receive its path, so every rank agrees on one folder.
void establish_run_folder(Session& s, const TrainRequest& request) {
  const auto& c = s.config;
  if (s.main_rank()) {
    s.run = c.resume ? existing_run_folder(c.project, c.name) : create_run_folder(c.project, c.name, c.exist_ok);
    if (!c.resume) write_args_yaml(s.run.root / "args.yaml", request.options);
    if (const char* file = std::getenv(distributed::kRunFolderFileVariable); file && *file) {
      std::ofstream(file) << s.run.root.string();  // tells the launcher where rank 0's results are
    }
  }
  if (!s.collectives) return;
  const std::filesystem::path root = distributed::broadcast_text(*s.collectives, s.run.root.string());
  s.run.root = root;
  s.run.weights = root / "weights";
}

using Clock = std::chrono::steady_clock;

// One epoch of training. Returns the epoch's mean loss components.
std::vector<std::pair<std::string, double>> train_one_epoch(Session& s, int epoch, ProgressDisplay& display,
                                                            double& seconds, std::size_t& images_seen,
                                                            profiler::TrainingProfiler* step_profiler, bool stop_when_profiled) {
  const auto& c = s.config;
  const bool mosaic = epoch < c.epochs - c.no_aug_epochs;
  s.model->train();
  s.model->on_epoch_start({epoch, c.epochs, mosaic});
  s.loader->start_epoch({epoch, mosaic});
  display.start_epoch(epoch);
  const auto names = s.criterion->component_names();
  const auto steps = static_cast<std::int64_t>(s.loader->steps_per_epoch());
  auto sums = torch::zeros({static_cast<int64_t>(names.size())}, torch::TensorOptions().device(s.device));
  std::mt19937_64 scale_rng(data::mix_seed(static_cast<std::uint64_t>(c.seed), static_cast<std::uint64_t>(epoch), 0x5CA1E));
  std::int64_t counted = 0;
  const auto start = Clock::now();
  images_seen = 0;

  auto read_means = [&]() {
    std::vector<std::pair<std::string, double>> means;
    const auto host = (sums / std::max<std::int64_t>(counted, 1)).to(torch::kCPU);
    for (std::size_t i = 0; i < names.size(); ++i) means.emplace_back(names[i], host[static_cast<int64_t>(i)].item<double>());
    return means;
  };

  std::int64_t step = 0;
  for (;;) {
    if (s.observer) {
      s.observer->step_begins();
      s.observer->phase_begins(profiler::StepPhase::data_wait);
    }
    auto batch = s.loader->next();
    if (!batch) break;
    const auto window = optim::accumulation_window(epoch, step, steps, s.accumulate);
    sums += train_step(s, *batch, window, scale_rng);
    if (s.observer) {
      s.observer->step_ends();
      if (step_profiler && step_profiler->finished()) {
        s.observer = nullptr;  // the window is reported: the profiler's hooks come off
        if (stop_when_profiled) break;
      }
    }
    ++counted;
    images_seen += static_cast<std::size_t>(batch->images.size(0));
    ++step;
    if (display.interactive() && (step % c.log_interval == 0 || step == steps)) {
      display.update(static_cast<std::size_t>(step), images_seen, read_means(), device::reserved_memory_gb(s.device));
    }
    // Distributed ranks leave together at the epoch's end, where rank 0 decides (trainer loop).
    if (InterruptGuard::requested() && !s.collectives) break;
  }
  display.finish_epoch();
  seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return read_means();
}

}  // namespace

Error out_of_memory_error(int batch, int imgsz, const std::string& device, const std::string& detail) {
  const auto first_line = detail.substr(0, detail.find('\n'));
  return Error("out of memory on " + device + " at batch=" + std::to_string(batch) + " imgsz=" + std::to_string(imgsz),
               first_line,
               "lower batch (e.g. batch=" + std::to_string(std::max(1, batch / 2)) +
                   ", with nbs= to keep the nominal batch), lower imgsz, or keep amp=true (half the activation memory)");
}

TrainOutcome train(const TrainRequest& request) {
  Session s;
  s.config = make_train_config(request.options);
  join_ranks(s, request);
  const auto& config = s.config;
  std::optional<checkpoint::Checkpoint> resume_from;
  establish_run_folder(s, request);
  if (config.resume) resume_from = checkpoint::load_checkpoint(s.run.weights / "last.pt");
  if (s.main_rank()) {
    log::set_file(s.run.root / "train.log");
    log::info("run folder: ", s.run.root.string());
  }

  prepare_session(s, request);
  // world_size 1: distributed training does not exist yet; the profiler ignores it (warning) then.
#ifndef LIBREYOLO_WITHOUT_STEP_PROFILER
  const auto step_profiler =
      profiler::make_training_profiler(s.config, s.family->info.name + s.size, s.device, s.run.root, s.world_size);
  s.observer = step_profiler.get();
#else
  // A build without the step profiler (LIBREYOLO_STEP_PROFILER=OFF), for measuring its cost.
  if (s.config.profile) {
    throw Error("profile=true in a build without the step profiler", "it was configured with -DLIBREYOLO_STEP_PROFILER=OFF",
                "use a default build (the profiler costs nothing while profile=false)");
  }
  const std::unique_ptr<profiler::TrainingProfiler> step_profiler;
#endif
  if (resume_from) {
    restore_training_state(s, *resume_from);
    log::info("resuming ", s.run.root.string(), " after epoch ", s.progress.start_epoch);
  }
  if (s.main_rank()) s.results = std::make_unique<ResultsLog>(s.run.root, s.criterion->component_names(), s.config.resume);

  TrainOutcome outcome;
  outcome.run = s.run;
  InterruptGuard interrupts;
  ProgressDisplay display(s.config.epochs, s.loader->steps_per_epoch(), s.main_rank());
  int epochs_without_improvement = 0;
  for (int epoch = s.progress.start_epoch; epoch < s.config.epochs; ++epoch) {
    double seconds = 0;
    std::size_t images = 0;
    std::vector<std::pair<std::string, double>> losses;
    try {
      losses = train_one_epoch(s, epoch, display, seconds, images, step_profiler.get(), request.stop_when_profiled);
    } catch (const c10::OutOfMemoryError& e) {
      throw out_of_memory_error(s.config.batch, s.config.imgsz, s.device.str(), e.what());
    }
    if (request.stop_when_profiled && step_profiler && step_profiler->finished()) break;  // measured: no validation, no save
    if (InterruptGuard::requested() && !s.collectives) {
      save_checkpoint_file(s, s.run.weights / "last.pt", epoch - 1);
      log::warn("interrupted during epoch ", epoch + 1, ": saved ", (s.run.weights / "last.pt").string(),
                ". Resume with: libreyolo-host train resume=true project=", s.config.project, " name=",
                s.run.root.filename().string());
      outcome.interrupted = true;
      break;
    }
    if (!s.main_rank()) {
      // Rank 0 validates, saves and decides whether to stop; the others wait for that decision.
      const auto decision = static_cast<StopDecision>(distributed::broadcast_integer(*s.collectives, 0));
      outcome.epochs_completed = epoch + 1;
      if (decision == StopDecision::early_stop) outcome.stopped_early = true;
      if (decision == StopDecision::interrupted) outcome.interrupted = true;
      if (decision != StopDecision::go_on) break;
      continue;
    }
    EpochRecord record;
    record.epoch = epoch + 1;
    record.seconds = seconds;
    // Every rank trains as many images as rank 0: the run's throughput is world_size times its own.
    record.images_per_second = seconds > 0 ? static_cast<double>(images) * s.world_size / seconds : 0;
    record.learning_rate = s.optimizer->groups().front().lr;
    record.train_losses = losses;
    const bool last_epoch = epoch + 1 == s.config.epochs;
    if ((epoch + 1) % s.config.eval_interval == 0 || last_epoch) {
      sdk::Detector& evaluated = s.ema ? *s.eval_model : *s.model;
      if (s.ema) s.ema->copy_to(*s.eval_model);
      const auto evaluation = s.validator->run(evaluated, s.family->info.input);
      record.validated = true;
      record.map50 = std::max(0.0, evaluation.stats.ap50());
      record.map50_95 = std::max(0.0, evaluation.stats.ap());
      if (last_epoch) log::info("\n", eval::format_class_table(evaluation));
      if (record.map50_95 > s.progress.best_fitness || s.progress.best_epoch < 0) {
        s.progress.best_fitness = record.map50_95;
        s.progress.best_epoch = epoch;
        epochs_without_improvement = 0;
        save_checkpoint_file(s, s.run.weights / "best.pt", epoch);
      } else {
        epochs_without_improvement += s.config.eval_interval;
      }
    }
    s.results->write(record);
    outcome.epochs.push_back(record);
    std::string summary;
    for (const auto& [name, value] : losses) summary += " " + name + " " + std::to_string(value);
    log::info("epoch ", epoch + 1, "/", s.config.epochs, ":", summary, ", ", static_cast<long>(record.images_per_second),
              " img/s", record.validated ? ", mAP50 " + std::to_string(record.map50) + " mAP50-95 " +
                                                std::to_string(record.map50_95)
                                          : std::string());
    save_checkpoint_file(s, s.run.weights / "last.pt", epoch);
    if (s.config.save_period > 0 && (epoch + 1) % s.config.save_period == 0) {
      save_checkpoint_file(s, s.run.weights / ("epoch" + std::to_string(epoch + 1) + ".pt"), epoch);
    }
    outcome.epochs_completed = epoch + 1;
    auto decision = StopDecision::go_on;
    if (s.config.patience > 0 && epochs_without_improvement >= s.config.patience) {
      log::info("stopping early: no improvement in mAP50-95 for ", epochs_without_improvement,
                " epochs (patience=", s.config.patience, ")");
      outcome.stopped_early = true;
      decision = StopDecision::early_stop;
    } else if (s.collectives && InterruptGuard::requested()) {
      log::warn("interrupted: every rank stops after epoch ", epoch + 1, " (saved ", (s.run.weights / "last.pt").string(),
                "). Resume with: libreyolo-host train resume=true project=", s.config.project, " name=",
                s.run.root.filename().string());
      outcome.interrupted = true;
      decision = StopDecision::interrupted;
    }
    if (s.collectives) distributed::broadcast_integer(*s.collectives, static_cast<std::int64_t>(decision));
    if (decision != StopDecision::go_on) break;
  }
  if (step_profiler) step_profiler->run_ended();
  outcome.best_map50_95 = s.progress.best_epoch >= 0 ? s.progress.best_fitness : -1;
  log::info("done: ", s.run.root.string(), " (best mAP50-95 ", outcome.best_map50_95, ")");
  log::close_file();
  return outcome;
}

}  // namespace libreyolo::core::trainer
