#pragma once
// What `train` and `bench train` share about ranks: reading a launcher's rank environment into
// the request, and, for device=0,1 without a launcher, becoming the launcher (one worker per GPU
// running the same command with the user's arguments). docs/multi-gpu.md.

#include <string>
#include <vector>

#include "commands.hpp"
#include "libreyolo/core/trainer/trainer.hpp"

namespace libreyolo::app {

// The rank environment of a launcher around this process (none for a single process), the guard
// against spawning from inside a worker, and the launcher's decisions (autobatch), into `request`.
void take_rank_environment(core::trainer::TrainRequest& request);

// Whether this process should start the workers itself: several GPUs and no launcher around it.
bool becomes_launcher(const core::trainer::TrainRequest& request);

// Probes autobatch here if asked (before any worker exists), then starts one worker per GPU of
// `request.config.device` running `command` ("train", or "bench" "train") with the user's
// arguments as typed, and waits for them. Returns the command's exit code.
int spawn_workers(const core::trainer::TrainRequest& request, const std::vector<std::string>& command, const Args& args);

// Whether this process reports for the run: a single process, or rank 0.
bool main_rank(const core::trainer::TrainRequest& request);

}  // namespace libreyolo::app
