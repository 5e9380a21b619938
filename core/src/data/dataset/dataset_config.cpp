// data.yaml -> DatasetConfig: YAML structure, class names, and each split's images.
#include "libreyolo/core/data/dataset/dataset_config.hpp"

#include <yaml-cpp/yaml.h>

#include <fstream>
#include <map>
#include <system_error>

#include "libreyolo/core/data/dataset/class_count.hpp"
#include "libreyolo/core/data/dataset/image_paths.hpp"
#include "libreyolo/core/error.hpp"
#include "libreyolo/core/util/regular_file.hpp"
#include "yaml_duplicate_keys.hpp"

namespace libreyolo::core::data {
namespace fs = std::filesystem;
namespace {

// "ds/." and "images/val/" normalise with a trailing separator; drop it so folders compare
// and print the same however data.yaml spelled them.
fs::path normal_folder(const fs::path& path) {
  const fs::path normal = path.lexically_normal();
  return normal.has_filename() || !normal.has_parent_path() ? normal : normal.parent_path();
}

// yaml-cpp counts lines from 0; editors count from 1.
std::string where(const fs::path& yaml, const YAML::Mark& mark) {
  if (mark.is_null()) return yaml.string();
  return yaml.string() + ":" + std::to_string(mark.line + 1) + ":" +
         std::to_string(mark.column + 1);
}

[[noreturn]] void bad_yaml(const fs::path& yaml, const YAML::Node& node, const std::string& why,
                           const std::string& todo) {
  throw Error("Invalid dataset file " + where(yaml, node.Mark()), why, todo);
}

std::string scalar(const fs::path& yaml, const YAML::Node& node, const std::string& key) {
  if (!node.IsScalar())
    bad_yaml(yaml, node, "'" + key + "' must be a single value", "Fix data.yaml");
  return node.Scalar();
}

int parse_int(const fs::path& yaml, const YAML::Node& node, const std::string& what) {
  int value = 0;
  if (!node.IsScalar() || !YAML::convert<int>::decode(node, value)) {
    bad_yaml(yaml, node,
             what + " '" + (node.IsScalar() ? node.Scalar() : "") + "' is not an integer",
             "Fix data.yaml");
  }
  return value;
}

std::vector<std::string> parse_names(const fs::path& yaml, const YAML::Node& node) {
  std::vector<std::string> names;
  if (node.IsSequence()) {
    for (const YAML::Node& item : node) names.push_back(scalar(yaml, item, "names"));
  } else if (node.IsMap()) {
    std::map<int, std::string> by_id;
    for (const auto& entry : node) {
      const int id = parse_int(yaml, entry.first, "names key");
      by_id[id] = scalar(yaml, entry.second, "names");
    }
    const int count = static_cast<int>(by_id.size());
    for (int id = 0; id < count; ++id) {
      if (by_id.count(id) == 0) {
        bad_yaml(yaml, node,
                 "names has " + std::to_string(count) + " entries, so its keys must be 0.." +
                     std::to_string(count - 1) + ", but " + std::to_string(id) + " is missing",
                 "Number the classes 0..nc-1 without gaps");
      }
      names.push_back(by_id[id]);
    }
  } else {
    bad_yaml(yaml, node, "'names' must be a list or a map of class id to name", "Fix data.yaml");
  }
  return names;
}

// A .txt list: one image path per line, relative paths relative to the list's folder.
void read_list_file(const fs::path& list, DatasetSplit* split) {
  std::ifstream in(list);
  if (!in) {
    throw Error("Cannot read the image list " + list.string() + " of split '" + split->name + "'",
                "the file could not be opened", "Check that it is readable");
  }
  std::string line;
  while (std::getline(in, line)) {
    const auto first = line.find_first_not_of(" \t\r");
    if (first == std::string::npos || line[first] == '#') continue;
    const auto last = line.find_last_not_of(" \t\r");
    fs::path image(line.substr(first, last - first + 1));
    if (image.is_relative()) image = list.parent_path() / image;
    if (has_image_extension(image)) split->images.push_back(image.lexically_normal());
  }
}

void add_source(const fs::path& yaml, const fs::path& root, const YAML::Node& node,
                DatasetSplit* split) {
  const std::string written = scalar(yaml, node, split->name);
  fs::path source(written);
  if (source.is_relative()) source = root / source;
  source = normal_folder(source);
  std::error_code ec;
  if (fs::is_directory(source, ec)) {
    split->folders.push_back(source);
    std::vector<fs::path> images = list_images(source);
    split->images.insert(split->images.end(), images.begin(), images.end());
  } else if (fs::is_regular_file(source, ec)) {
    if (has_image_extension(source)) {
      split->images.push_back(source);
    } else {
      read_list_file(source, split);
    }
  } else if (const std::string reason = util::not_regular_file_reason(source); !reason.empty()) {
    throw Error("Split '" + split->name + "' of " + where(yaml, node.Mark()) + " cannot be read",
                "'" + written + "' resolves to " + source.string() + ": " + reason,
                "Point it at an image folder, an image or a .txt list of images");
  } else {
    throw Error("Split '" + split->name + "' of " + where(yaml, node.Mark()) + " not found",
                "'" + written + "' resolves to " + source.string() + ", which does not exist",
                "Fix the path in data.yaml (it is relative to 'path', here " + root.string() + ")");
  }
}

DatasetSplit parse_split(const fs::path& yaml, const fs::path& root, const YAML::Node& top,
                         const std::string& name) {
  DatasetSplit split;
  split.name = name;
  const YAML::Node node = top[name];
  split.written = static_cast<bool>(node);
  if (!node || node.IsNull()) return split;
  split.defined = true;
  if (node.IsSequence()) {
    for (const YAML::Node& item : node) add_source(yaml, root, item, &split);
  } else {
    add_source(yaml, root, node, &split);
  }
  return split;
}

DatasetConfig parse(const fs::path& yaml, const YAML::Node& top) {
  if (!top.IsMap()) {
    bad_yaml(yaml, top, "the file is not a YAML map of keys (path, train, val, names, ...)",
             "See the data.yaml of a bundled dataset for the expected layout");
  }
  DatasetConfig config;
  config.yaml_path = yaml;
  fs::path root = top["path"] && !top["path"].IsNull() ? fs::path(scalar(yaml, top["path"], "path"))
                                                       : fs::path(".");
  if (root.is_relative()) root = yaml.parent_path() / root;
  config.root = normal_folder(root);
  std::error_code ec;
  if (!fs::is_directory(config.root, ec)) {
    const bool exists = fs::exists(config.root, ec);
    throw Error("Dataset root " + config.root.string() + " of " + yaml.string() +
                    (exists ? " is not a folder" : " not found"),
                "'path' must name a folder (relative paths are relative to the yaml's folder)",
                "Fix 'path' in data.yaml");
  }

  const YAML::Node nc_node = top["nc"];
  const bool has_nc = nc_node && !nc_node.IsNull();
  const int nc = has_nc ? parse_int(yaml, nc_node, "nc") : 0;
  if (has_nc && nc <= 0) bad_yaml(yaml, nc_node, "nc must be positive", "Fix data.yaml");
  if (has_nc && nc > kMaxClasses) {
    bad_yaml(yaml, nc_node, "nc is " + std::to_string(nc) + ", more classes than this host accepts (" +
                                std::to_string(kMaxClasses) + ")",
             "Fix nc (a typo?), or list the classes under 'names'");
  }
  if (top["names"] && !top["names"].IsNull()) {
    config.names = parse_names(yaml, top["names"]);
    if (config.names.empty())
      bad_yaml(yaml, top["names"], "'names' is empty", "List the class names");
    if (has_nc && nc != config.nc()) {
      bad_yaml(yaml, nc_node,
               "nc is " + std::to_string(nc) + " but names lists " +
                   std::to_string(config.names.size()) + " classes",
               "Make nc match names, or remove nc");
    }
  } else if (has_nc) {
    for (int id = 0; id < nc; ++id) config.names.push_back("class" + std::to_string(id));
  } else {
    bad_yaml(yaml, top, "it has neither 'names' nor 'nc'", "Add the class names under 'names'");
  }

  config.train = parse_split(yaml, config.root, top, "train");
  config.val = parse_split(yaml, config.root, top, "val");
  config.test = parse_split(yaml, config.root, top, "test");
  if (!config.train.defined && !config.val.defined) {
    bad_yaml(yaml, top, "it defines neither a 'train' nor a 'val' split",
             "Add train: and val: entries pointing at image folders or lists");
  }
  return config;
}

}  // namespace

const DatasetSplit& DatasetConfig::split(std::string_view name) const {
  const DatasetSplit* found = name == "train"  ? &train
                              : name == "val"  ? &val
                              : name == "test" ? &test
                                               : nullptr;
  if (found == nullptr) {
    throw Error("Unknown dataset split '" + std::string(name) + "'",
                "splits are train, val and test", "Use one of those names");
  }
  if (!found->defined) {
    const std::string key = std::string(name) + ":";
    throw Error("Split '" + std::string(name) + "' is not defined in " + yaml_path.string(),
                found->written ? "its '" + key + "' entry is empty"
                               : "data.yaml has no '" + key + "' key (keys are case-sensitive)",
                "Add '" + key + " images/" + std::string(name) +
                    "' (an image folder, an image or a .txt list, relative to 'path') to data.yaml");
  }
  return *found;
}

DatasetConfig load_dataset_config(const fs::path& yaml_path) {
  std::error_code ec;
  const fs::path yaml = fs::absolute(yaml_path, ec).lexically_normal();
  refuse_non_regular(yaml);
  if (!fs::is_regular_file(yaml, ec)) {
    throw Error("Dataset file " + yaml.string() + " not found", "no file exists at that path",
                "Check the data= path");
  }
  YAML::Node top;
  try {
    top = YAML::LoadFile(yaml.string());
  } catch (const YAML::BadFile&) {
    throw Error("Cannot read dataset file " + yaml.string(), "the file could not be opened",
                "Check its permissions");
  } catch (const YAML::Exception& e) {
    throw Error("Malformed dataset file " + where(yaml, e.mark), e.msg, "Fix the YAML syntax");
  }
  try {
    refuse_duplicate_keys(yaml, top);
    return parse(yaml, top);
  } catch (const YAML::Exception& e) {
    throw Error("Invalid dataset file " + where(yaml, e.mark), e.msg, "Fix data.yaml");
  }
}

}  // namespace libreyolo::core::data
