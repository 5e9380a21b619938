#include "libreyolo/core/config/cfg_file.hpp"

#include <yaml-cpp/yaml.h>

#include <map>

#include "libreyolo/core/error.hpp"
#include "option_spelling.hpp"

namespace libreyolo::core::config {

std::vector<std::pair<std::string, std::string>> read_cfg_file(const std::filesystem::path& file,
                                                               const OptionTable& table) {
  const std::string origin = "cfg file " + file.string();
  std::error_code ec;
  if (std::filesystem::is_directory(file, ec)) {
    throw Error("cfg file " + file.string() + " is a folder", "cfg= must name a YAML file of options, not a folder",
                "pass the YAML file inside it: cfg=" + (file / "NAME.yaml").string());
  }
  if (!std::filesystem::is_regular_file(file, ec)) {
    throw Error("cfg file " + file.string() + " does not exist", "cfg= must name a YAML file",
                "check the path (relative paths start at the current folder)");
  }
  YAML::Node root;
  try {
    root = YAML::LoadFile(file.string());
  } catch (const YAML::Exception& e) {
    throw Error("cannot parse " + origin, e.what(), "fix the YAML syntax at that line");
  }
  if (root.IsNull()) return {};
  if (!root.IsMap()) {
    throw Error(origin + " is not a mapping", "it must be a list of key: value lines",
                "write one option per line, e.g. 'epochs: 100'");
  }
  std::vector<std::pair<std::string, std::string>> values;
  std::map<std::string, std::string> spelling_of;
  for (const auto& entry : root) {
    if (!entry.first.IsScalar()) {
      throw Error(origin + " has a key that is not a name", "each line must be 'option: value'",
                  "write one option per line, e.g. 'epochs: 100'");
    }
    const auto key = entry.first.Scalar();
    const auto& spec = table.require(key, origin);
    refuse_second_spelling(spec.name, key, spelling_of, origin);
    if (spec.name == "cfg") {
      throw Error(origin + " sets cfg", "cfg files do not nest", "remove the cfg line");
    }
    const auto& node = entry.second;
    std::string text;
    if (node.IsSequence()) {
      for (size_t i = 0; i < node.size(); ++i) {
        if (!node[i].IsScalar()) {
          throw Error("option '" + key + "' in " + origin + " holds a nested list or mapping",
                      "expected " + describe_type(spec), "write it like " + key + ": [0.1, 2.0] or " + key + ": <value>");
        }
        text += (i ? "," : "") + node[i].Scalar();
      }
    } else if (node.IsScalar()) {
      text = node.Scalar();
    } else if (!node.IsNull()) {
      throw Error("option '" + key + "' in " + origin + " is a nested mapping",
                  "expected " + describe_type(spec), "write it like " + key + ": <value>");
    }
    values.emplace_back(spec.name, text);
  }
  return values;
}

}  // namespace libreyolo::core::config
