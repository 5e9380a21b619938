#include "libreyolo/core/trainer/run_folder.hpp"

#include <yaml-cpp/yaml.h>

#include <fstream>

#include "libreyolo/core/error.hpp"
#include "libreyolo/core/util/writable_folder.hpp"

namespace fs = std::filesystem;

namespace libreyolo::core::trainer {
namespace {

RunFolder make(const fs::path& root, bool with_weights = true) {
  // Permission bits say what the owner wants, even to root, who could write anyway (the scan
  // and disk caches follow the same rule: util/writable_folder.hpp).
  if (!util::may_write_into(root)) {
    throw Error("cannot create the run folder " + root.string(),
                "the folder it goes into is read-only (no write permission, or a read-only file system)",
                "choose another project= folder (e.g. project=$HOME/runs), or make it writable");
  }
  std::error_code ec;
  fs::create_directories(with_weights ? root / "weights" : root, ec);
  if (ec) {
    throw Error("cannot create the run folder " + root.string(), ec.message(),
                "choose another project= folder, or fix its permissions");
  }
  return {root, root / "weights"};
}

// fs::exists() that reports a folder it may not look into (no x permission) as an Error, not as a
// std::filesystem_error.
bool taken(const fs::path& path) {
  std::error_code ec;
  const bool found = fs::exists(path, ec);
  if (ec) {
    throw Error("cannot look into " + path.parent_path().string(), ec.message(),
                "choose another project= folder, or fix its permissions");
  }
  return found;
}

fs::path free_run_folder(const fs::path& project, const std::string& name, bool exist_ok) {
  if (name.empty() || name.find('/') != std::string::npos) {
    throw Error("invalid run name '" + name + "'", "name= must be one folder name",
                "use e.g. name=exp or project=runs/mine name=exp");
  }
  fs::path root = project / name;
  if (!exist_ok && taken(root)) {
    for (int i = 2;; ++i) {
      root = project / (name + std::to_string(i));
      if (!taken(root)) break;
    }
  }
  return root;
}

}  // namespace

RunFolder create_run_folder(const fs::path& project, const std::string& name, bool exist_ok) {
  return make(free_run_folder(project, name, exist_ok));
}

fs::path create_results_folder(const fs::path& project, const std::string& name, bool exist_ok) {
  return make(free_run_folder(project, name, exist_ok), /*with_weights=*/false).root;
}

RunFolder existing_run_folder(const fs::path& root) { return {root, root / "weights"}; }

void write_args_yaml(const fs::path& file, const std::vector<config::ReportedOption>& options) {
  YAML::Emitter out;
  out << YAML::BeginMap;
  for (const auto& option : options) {
    out << YAML::Key << option.name << YAML::Value << option.value;
    if (option.source != config::OptionSource::global_default) {
      out << YAML::Comment(std::string("from ") + config::to_string(option.source));
    }
  }
  out << YAML::EndMap;
  std::ofstream stream(file);
  stream << out.c_str() << "\n";
  if (!stream) {
    throw Error("cannot write " + file.string(), "the file could not be written",
                "check free disk space and permissions");
  }
}

}  // namespace libreyolo::core::trainer
