#pragma once
// The dataset a run trains on, as described by an Ultralytics-style data.yaml:
//   path: .                      # dataset root, relative to the yaml's folder (default ".")
//   train: images/train2017      # a folder, a .txt list of image paths, or a YAML list of those
//   val: images/val2017
//   test:                        # optional
//   names: {0: person, 1: bicycle}   # or a list; optional nc must agree
// Everything is resolved eagerly when loaded, so a typo fails before any training starts.

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace libreyolo::core::data {

struct DatasetSplit {
  std::string name;      // "train", "val" or "test"
  bool defined = false;  // false when data.yaml has no (or an empty) entry for it
  bool written = false;  // data.yaml has the key, perhaps with an empty value
  // Image folders named directly in data.yaml. The scan checks their labels folders for
  // label files without an image and keeps its cache next to the first one.
  std::vector<std::filesystem::path> folders;
  // Every image: each folder's images sorted by path, list files' entries in their written
  // order (a list may repeat a line on purpose to oversample), sources in yaml order.
  std::vector<std::filesystem::path> images;
};

struct DatasetConfig {
  std::filesystem::path yaml_path;  // absolute
  std::filesystem::path root;       // absolute, from `path`
  DatasetSplit train;
  DatasetSplit val;
  DatasetSplit test;
  std::vector<std::string> names;  // index = class id

  int nc() const { return static_cast<int>(names.size()); }
  // "train", "val" or "test"; throws libreyolo::core::Error for another name or a split that
  // data.yaml does not define.
  const DatasetSplit& split(std::string_view name) const;
};

// Where a dataset given by name is looked for, in order: ./datasets, each folder of
// $LIBREYOLO_DATASETS (colon-separated), then `bundled_dir` (the install's
// share/libreyolo/datasets; skipped when empty).
std::vector<std::filesystem::path> dataset_search_dirs(const std::filesystem::path& bundled_dir);

// `spec` is a yaml path (it ends in .yaml/.yml, contains a '/', or names an existing file) or a
// dataset name resolved to <dir>/<name>/data.yaml in `search_dirs`. Throws
// libreyolo::core::Error for a missing file or an unknown name, listing every place tried.
std::filesystem::path resolve_dataset_yaml(const std::string& spec,
                                           const std::vector<std::filesystem::path>& search_dirs);

// Parses and validates a data.yaml and lists the images of every split. Throws
// libreyolo::core::Error for malformed YAML (with the line), bad names/nc, missing split
// folders or list files.
DatasetConfig load_dataset_config(const std::filesystem::path& yaml_path);

// Throws libreyolo::core::Error naming what `yaml` is when it exists but is not a regular file
// (a FIFO, a device, a socket); does nothing otherwise.
void refuse_non_regular(const std::filesystem::path& yaml);

// resolve_dataset_yaml(spec, dataset_search_dirs(bundled_dir)) then load_dataset_config.
DatasetConfig load_dataset(const std::string& spec, const std::filesystem::path& bundled_dir = {});

}  // namespace libreyolo::core::data
