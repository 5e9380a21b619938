#pragma once
// The training loop every family runs through (docs/design.md#one-training-step-as-data).
// A short loop; the policies around it (logging, checkpoints, evaluation, early stop) are
// small functions named after what they do.

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "libreyolo/core/config/option_sources.hpp"
#include "libreyolo/core/distributed/rank_environment.hpp"
#include "libreyolo/core/error.hpp"
#include "libreyolo/core/plugins/family_registry.hpp"
#include "libreyolo/core/trainer/results_log.hpp"
#include "libreyolo/core/trainer/run_folder.hpp"
#include "libreyolo/core/config/train_config.hpp"

namespace libreyolo::core::checkpoint {
struct Checkpoint;
}

namespace libreyolo::core::trainer {

// A .pt file given as model=, read once (the CLI reads it to learn the family and size).
struct StartWeights {
  std::filesystem::path file;
  std::shared_ptr<const checkpoint::Checkpoint> checkpoint;
};

struct TrainRequest {
  // The resolved `train` options, typed and checked once by the command line
  // (config::make_train_config). Nothing past the command line resolves or checks options again.
  config::TrainConfig config;
  config::OptionSources sources;  // which layer set each option: for args.yaml and last.pt
  const plugins::LoadedFamily* family = nullptr;
  std::string size;
  std::filesystem::path bundled_datasets;       // share/libreyolo/datasets of this install
  std::optional<StartWeights> weights;  // model=file.pt: start from these weights
  bool stop_when_profiled = false;      // `profile run`: end once the profiler's window is reported
  // Set when a launcher started this process as one rank of a distributed run (RANK, WORLD_SIZE,
  // ... in the environment): `train` then joins the other ranks.
  std::optional<distributed::RankEnvironment> ranks;
};

// A checkpoint file of the run as it is on disk when the run ends.
struct CheckpointOnDisk {
  std::filesystem::path path;
  // Epochs of training it holds (0: the run's starting weights); -1: this run never wrote it.
  int epochs = -1;
  // The error of the latest save of this file when that save failed (the file on disk is then
  // older, see epochs); empty when the latest save succeeded.
  std::string failure;
};

struct TrainOutcome {
  RunFolder run;
  int epochs_completed = 0;
  std::optional<double> best_map50_95;  // none: never validated
  bool interrupted = false;   // Ctrl-C: last.pt saved, exit code 130
  bool stopped_early = false; // patience ran out
  std::vector<EpochRecord> epochs;  // what results.csv got, epoch by epoch
  std::vector<CheckpointOnDisk> checkpoints;  // every file a save was attempted for, in order
  std::string resume_command;  // the command line that continues this run, as it would be typed
  // Whether some file's latest save failed: the run then ends with an error (exit code 1).
  bool save_failed() const;
};

TrainOutcome train(const TrainRequest& request);

// "weights/last.pt (after epoch 3), weights/best.pt (after epoch 2)": what the run's checkpoint
// files hold on disk, paths relative to `root` ("no checkpoint" when none was written).
std::string describe_on_disk(const std::vector<CheckpointOnDisk>& files, const std::filesystem::path& root);

// The error a run ends with when the device runs out of memory: names the batch size and
// input size and says what to lower. `detail` is the allocator's own first line.
core::Error out_of_memory_error(int batch, int imgsz, const std::string& device, const std::string& detail);

}  // namespace libreyolo::core::trainer
