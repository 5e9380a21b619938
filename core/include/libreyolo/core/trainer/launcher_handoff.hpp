#pragma once
// `train device=0,1` (or `bench train device=0,1`) without a launcher around it: what the host's
// own launcher hands its workers. The workers run the user's arguments unchanged (argv is never
// rewritten); what the launcher decided for them travels separately, in their environment, and
// each worker applies it to its config::TrainConfig. Today that is one decision: the global batch
// autobatch chose for batch=-1 (probed once, in the launcher, before any worker exists).
// docs/multi-gpu.md.

#include <optional>
#include <string>
#include <vector>

#include "libreyolo/core/distributed/rank_environment.hpp"
#include "libreyolo/core/distributed/spawn_training.hpp"
#include "libreyolo/core/trainer/trainer.hpp"

namespace libreyolo::core::trainer {

// The spawn request for `request` (its family, its batch) on `gpus`: the workers' arguments
// are `command` ("train", or "bench" "train") and `user_arguments`, as the user typed them.
// `autobatch` is the global batch the launcher's probe chose when the user passed batch=-1.
distributed::SpawnRequest make_spawn_request(const TrainRequest& request, const std::vector<std::string>& user_arguments,
                                             const std::vector<int>& gpus, std::optional<int> autobatch,
                                             const std::vector<std::string>& command = {"train"});

// A worker of the host's launcher takes the launcher's decisions: batch=-1 becomes the
// autobatched global batch. Nothing changes for other processes (torchrun's ranks probe on rank
// 0 themselves) or for a batch the user gave.
void apply_launcher_decisions(config::TrainConfig& config, const std::optional<distributed::RankEnvironment>& ranks);

}  // namespace libreyolo::core::trainer
