// Options are resolved once, by the command line, into one config::TrainConfig: no command rewrites
// `train`'s arguments. profile run applies its rules to the typed config; the multi-GPU
// launcher hands its workers the user's arguments and carries its own decision (autobatch)
// separately.
#include <doctest/doctest.h>

#include <fstream>
#include <map>
#include <optional>
#include <set>

#include "libreyolo/core/config/command_line.hpp"
#include "libreyolo/core/config/option_table.hpp"
#include "libreyolo/core/config/user_options.hpp"
#include "libreyolo/core/distributed/rank_environment.hpp"
#include "libreyolo/core/distributed/spawn_training.hpp"
#include "libreyolo/core/trainer/launcher_handoff.hpp"
#include "libreyolo/core/trainer/profile_run_rules.hpp"
#include "libreyolo/core/config/train_config.hpp"
#include "../temp_dir.hpp"

using namespace libreyolo::core;

namespace {

using Args = std::vector<std::string>;

struct Resolved {
  config::UserOptions user;
  config::ResolvedOptions options;
};

Resolved resolve(const Args& args, const config::OptionTable& table) {
  Resolved r;
  r.user = config::read_user_options(args, table);
  r.options = config::resolve_options(table, r.user, "family test's recipe", {{"lr0", 0.02}, {"epochs", 50LL}});
  return r;
}

plugins::LoadedFamily spawnable_family() {
  plugins::LoadedFamily family;
  family.info.name = "example";
  family.policy.supports_spawn = true;
  return family;
}

}  // namespace

TEST_CASE("user_set: the options the cfg file or the command line set, by canonical name") {
  const libreyolo::test::TempDir dir;
  std::ofstream(dir / "cfg.yaml") << "epochs: 20\nmosaic_prob: 0.5\n";
  const auto table = config::train_options();
  const auto r = resolve({"cfg=" + (dir / "cfg.yaml").string(), "data=d", "lr=0.005", "--exist-ok"}, table);
  const auto config = config::make_train_config(r.options);
  const std::set<std::string> expected = {"cfg", "data", "lr0", "exist_ok", "epochs", "mosaic_prob"};
  CHECK(config.user_set == expected);  // the family's lr0 and epochs were overridden, so they count too
  CHECK(config.lr0 == 0.005);
  CHECK(config.epochs == 20);
  const auto family_only = config::make_train_config(resolve({"data=d"}, table).options);
  CHECK(family_only.user_set == std::set<std::string>{"data"});  // lr0 and epochs from the family: not the user's
}

TEST_CASE("profile run: its rules set the typed config; the user's arguments and layers stay as typed") {
  const auto table = config::profile_run_options();
  const Args args = {"coco16", "--model", "example", "--size", "n", "profile_skip=1", "profile_steps=4", "epochs=9"};
  const auto r = resolve(args, table);
  trainer::TrainRequest request;
  request.config = config::unchecked_train_config(r.options);
  request.sources = config::OptionSources(r.options);
  trainer::apply_profile_run_rules(request, {"coco16", "examplen", r.user.command_line});
  CHECK_NOTHROW(config::check_train_config(request.config));

  const auto& c = request.config;
  CHECK(c.profile);
  CHECK(c.no_aug_epochs == 0);
  CHECK(c.data == "coco16");
  CHECK(c.model == "examplen");
  CHECK(c.project == "runs/profile");
  CHECK(c.epochs == 9);         // the user's
  CHECK(c.eval_interval == 5);  // sized to the window: profile_skip + profile_steps
  CHECK(c.save_period == 0);
  CHECK(request.sources.of("profile") == config::OptionSource::command_line);
  CHECK(request.sources.of("epochs") == config::OptionSource::command_line);
  CHECK(c.user_set.count("profile") == 1);
  CHECK(c.user_set.count("no_aug_epochs") == 1);

  // Nothing was written back into the arguments or the option layers.
  CHECK(r.user.command_line == config::parse_command_line(args, table).options);
  CHECK_FALSE(r.options.get_bool("profile"));
  CHECK(r.options.get_int("no_aug_epochs") == 15);
  CHECK(r.options.get_text("project") == "runs/train");

  trainer::reuse_run_folder(request, "runs/profile/exp3");
  CHECK(request.config.project == "runs/profile");
  CHECK(request.config.name == "exp3");
  CHECK(request.config.exist_ok);
}

TEST_CASE("profile run: a project and a run length the user gave are kept") {
  const auto table = config::profile_run_options();
  const auto r = resolve({"d", "--model", "example", "project=mine", "save_period=2"}, table);
  trainer::TrainRequest request;
  request.config = config::unchecked_train_config(r.options);
  request.sources = config::OptionSources(r.options);
  trainer::apply_profile_run_rules(request, {"d", "example", r.user.command_line});
  CHECK(request.config.project == "mine");
  CHECK(request.config.save_period == 2);
  CHECK(request.config.epochs == 25);  // default profile_skip 5 + profile_steps 20
  CHECK(request.sources.of("project") == config::OptionSource::command_line);  // the user's, as typed
}

TEST_CASE("spawn: the workers get the user's arguments, batch=-1 included; the autobatch result travels apart") {
  const auto family = spawnable_family();
  const Args args = {"model=examplen", "data=d", "batch=-1", "device=0,1"};
  const auto table = config::train_options();
  trainer::TrainRequest request;
  request.config = config::make_train_config(resolve(args, table).options);
  request.family = &family;
  REQUIRE(request.config.batch == -1);

  const auto spawn = trainer::make_spawn_request(request, args, {0, 1}, 64);
  CHECK(spawn.arguments == Args{"train", "model=examplen", "data=d", "batch=-1", "device=0,1"});
  CHECK(spawn.batch == 64);
  CHECK(spawn.autobatched);
  const auto decisions = distributed::worker_decisions(spawn);
  REQUIRE(decisions.size() == 1);
  CHECK(decisions.front().first == distributed::kLauncherAutobatchVariable);
  CHECK(decisions.front().second == "64");
  CHECK(spawn.launcher_example ==
        "torchrun --nproc_per_node=2 --no-python libreyolo-host train model=examplen data=d batch=-1 device=0,1");

  // A worker: its arguments resolve to batch=-1, its environment carries the decision.
  std::map<std::string, std::string> environment = {
      {"RANK", "1"}, {"WORLD_SIZE", "2"}, {"MASTER_ADDR", "127.0.0.1"}, {"MASTER_PORT", "29500"},
      {distributed::kSpawnedWorkerVariable, "1"}, {decisions.front().first, decisions.front().second}};
  const auto ranks = distributed::read_rank_environment([&](const char* name) -> const char* {
    const auto it = environment.find(name);
    return it == environment.end() ? nullptr : it->second.c_str();
  });
  REQUIRE(ranks);
  CHECK(ranks->launcher_autobatch == 64);
  const Args worker_args(spawn.arguments.begin() + 1, spawn.arguments.end());
  auto worker = config::make_train_config(resolve(worker_args, table).options);
  CHECK(worker.batch == -1);
  trainer::apply_launcher_decisions(worker, ranks);
  CHECK(worker.batch == 64);

  // Only the host's own workers take it, and only for batch=-1.
  auto external = *ranks;
  external.spawned_by_host = false;
  auto other = config::make_train_config(resolve(worker_args, table).options);
  trainer::apply_launcher_decisions(other, external);
  CHECK(other.batch == -1);
  auto given = config::make_train_config(resolve({"data=d", "batch=32"}, table).options);
  trainer::apply_launcher_decisions(given, ranks);
  CHECK(given.batch == 32);
}

TEST_CASE("spawn: a batch the user gave is the workers' batch, with no decision to carry") {
  const auto family = spawnable_family();
  const Args args = {"model=examplen", "data=d", "batch=32", "device=0,1"};
  trainer::TrainRequest request;
  request.config = config::make_train_config(resolve(args, config::train_options()).options);
  request.family = &family;
  const auto spawn = trainer::make_spawn_request(request, args, {0, 1}, std::nullopt);
  CHECK(spawn.arguments == Args{"train", "model=examplen", "data=d", "batch=32", "device=0,1"});
  CHECK(spawn.batch == 32);
  CHECK_FALSE(spawn.autobatched);
  CHECK(distributed::worker_decisions(spawn).empty());
}

TEST_CASE("spawn: bench train's workers run bench train, and the torchrun example says so") {
  const auto family = spawnable_family();
  const Args args = {"model=examplen", "data=d", "batch=32", "device=0,1"};
  trainer::TrainRequest request;
  request.config = config::make_train_config(resolve(args, config::bench_options()).options);
  request.family = &family;
  const auto spawn = trainer::make_spawn_request(request, args, {0, 1}, std::nullopt, {"bench", "train"});
  CHECK(spawn.arguments == Args{"bench", "train", "model=examplen", "data=d", "batch=32", "device=0,1"});
  CHECK(spawn.launcher_example ==
        "torchrun --nproc_per_node=2 --no-python libreyolo-host bench train model=examplen data=d batch=32 device=0,1");
}
