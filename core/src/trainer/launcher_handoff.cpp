#include "libreyolo/core/trainer/launcher_handoff.hpp"

namespace libreyolo::core::trainer {
namespace {

// The external-launcher command line equivalent to this one, for the refusal message.
std::string torchrun_example(const std::vector<std::string>& command, const std::vector<std::string>& arguments,
                             std::size_t gpus) {
  std::string line = "torchrun --nproc_per_node=" + std::to_string(gpus) + " --no-python libreyolo-host";
  for (const auto& word : command) line += " " + word;
  for (const auto& argument : arguments) line += " " + argument;
  return line;
}

}  // namespace

distributed::SpawnRequest make_spawn_request(const TrainRequest& request, const std::vector<std::string>& user_arguments,
                                             const std::vector<int>& gpus, std::optional<int> autobatch,
                                             const std::vector<std::string>& command) {
  distributed::SpawnRequest spawn;
  spawn.gpus = gpus;
  spawn.arguments = command;
  spawn.arguments.insert(spawn.arguments.end(), user_arguments.begin(), user_arguments.end());
  spawn.batch = autobatch.value_or(request.config.batch);
  spawn.autobatched = autobatch.has_value();
  spawn.family = request.family->info.name;
  spawn.family_supports_spawn = request.family->policy.supports_spawn;
  spawn.launcher_example = torchrun_example(command, user_arguments, gpus.size());
  return spawn;
}

void apply_launcher_decisions(config::TrainConfig& config, const std::optional<distributed::RankEnvironment>& ranks) {
  if (!ranks || !ranks->spawned_by_host || !ranks->launcher_autobatch) return;
  if (config.batch < 0) config.batch = *ranks->launcher_autobatch;
}

}  // namespace libreyolo::core::trainer
