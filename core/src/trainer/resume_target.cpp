#include "libreyolo/core/trainer/resume_target.hpp"

#include <yaml-cpp/yaml.h>

#include <system_error>

#include "libreyolo/core/error.hpp"

namespace libreyolo::core::trainer {
namespace fs = std::filesystem;
namespace {

bool holds_last_checkpoint(const fs::path& root) {
  std::error_code ignored;
  return fs::is_regular_file(root / "weights" / "last.pt", ignored);
}

// The run under project whose last.pt is newest: what "resume the run I just stopped" means.
std::optional<fs::path> latest_run(const fs::path& project) {
  std::error_code error;
  std::optional<fs::path> best;
  fs::file_time_type best_time{};
  for (fs::directory_iterator it(project, error), end; !error && it != end; it.increment(error)) {
    if (!holds_last_checkpoint(it->path())) continue;
    const auto written = fs::last_write_time(it->path() / "weights" / "last.pt", error);
    if (error) continue;
    if (!best || written > best_time) best = it->path(), best_time = written;
  }
  return best;
}

fs::path run_of_path(const fs::path& given) {
  std::error_code ignored;
  if (fs::is_directory(given, ignored)) {
    if (holds_last_checkpoint(given)) return given;
    throw Error("cannot resume " + given.string(), "that folder has no weights/last.pt",
                "pass a run folder that holds weights/last.pt, or its weights/last.pt itself");
  }
  if (!fs::exists(given, ignored)) {
    throw Error("cannot resume " + given.string(), "no such file",
                "pass the weights/last.pt of the run to resume (e.g. resume=runs/train/exp/weights/last.pt)");
  }
  const auto weights = given.parent_path();
  if (weights.filename() != "weights" || !fs::exists(weights.parent_path() / "args.yaml", ignored)) {
    throw Error("cannot resume from " + given.string(), "it is not inside a run folder (<run>/weights/" +
                given.filename().string() + " beside <run>/args.yaml), so the run's options are unknown",
                "to train from these weights with options of your own, start a new run with model=" + given.string());
  }
  return weights.parent_path();
}

}  // namespace

bool resume_requested(const std::string& value) {
  return !(value.empty() || value == "false" || value == "False" || value == "0");
}

fs::path resume_run_root(const std::string& value, const fs::path& project, const std::optional<std::string>& name) {
  if (value != "true" && value != "True" && value != "1") return run_of_path(value);
  if (name) {
    const fs::path root = project / *name;
    if (holds_last_checkpoint(root)) return root;
    throw Error("cannot resume run " + root.string(), "it has no weights/last.pt",
                "pass the project= and name= of the run to resume, or resume=path/to/its/weights/last.pt");
  }
  if (auto latest = latest_run(project)) return *latest;
  throw Error("cannot resume: no run in " + project.string() + " has weights/last.pt",
              "resume=true without name= continues the latest run of project= (" + project.string() + ")",
              "pass resume=path/to/run/weights/last.pt, or the project= and name= of the run");
}

std::vector<std::pair<std::string, std::string>> read_run_arguments(const fs::path& run_root) {
  const auto file = run_root / "args.yaml";
  std::error_code ignored;
  if (!fs::is_regular_file(file, ignored)) {
    throw Error("cannot resume " + run_root.string(), "it has no args.yaml, so the options it was started with are unknown",
                "to continue training from its weights with options of your own, start a new run with model=" +
                    (run_root / "weights" / "last.pt").string());
  }
  YAML::Node root;
  try {
    root = YAML::LoadFile(file.string());
  } catch (const YAML::Exception& e) {
    throw Error("cannot read " + file.string(), e.what(), "restore the run's args.yaml (libreyolo-host writes it at the start of a run)");
  }
  if (!root.IsMap()) {
    throw Error("cannot read " + file.string(), "it is not a map of option: value", "restore the run's args.yaml");
  }
  std::vector<std::pair<std::string, std::string>> options;
  for (const auto& entry : root) {
    if (!entry.second.IsScalar()) continue;  // args.yaml holds scalars only; anything else is not ours
    options.emplace_back(entry.first.as<std::string>(), entry.second.as<std::string>());
  }
  return options;
}

}  // namespace libreyolo::core::trainer
