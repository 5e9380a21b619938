#include "libreyolo/core/trainer/run_folder.hpp"

#include <yaml-cpp/yaml.h>

#include <fstream>

#include "libreyolo/core/error.hpp"

namespace fs = std::filesystem;

namespace libreyolo::core::trainer {
namespace {

RunFolder make(const fs::path& root) {
  std::error_code ec;
  fs::create_directories(root / "weights", ec);
  if (ec) {
    throw Error("cannot create the run folder " + root.string(), ec.message(),
                "choose another project= folder, or fix its permissions");
  }
  return {root, root / "weights"};
}

}  // namespace

RunFolder create_run_folder(const fs::path& project, const std::string& name, bool exist_ok) {
  if (name.empty() || name.find('/') != std::string::npos) {
    throw Error("invalid run name '" + name + "'", "name= must be one folder name",
                "use e.g. name=exp or project=runs/mine name=exp");
  }
  fs::path root = project / name;
  if (!exist_ok && fs::exists(root)) {
    for (int i = 2;; ++i) {
      root = project / (name + std::to_string(i));
      if (!fs::exists(root)) break;
    }
  }
  return make(root);
}

RunFolder existing_run_folder(const fs::path& project, const std::string& name) {
  const fs::path root = project / name;
  if (!fs::is_regular_file(root / "weights" / "last.pt")) {
    throw Error("cannot resume run " + root.string(), "it has no weights/last.pt",
                "pass the project= and name= of the run to resume (its folder holds weights/last.pt)");
  }
  return {root, root / "weights"};
}

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
