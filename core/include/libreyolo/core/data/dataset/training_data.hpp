#pragma once
// What `train`, `val` and `bench data` all start with: data= found and read (data.yaml or a
// bundled dataset's name), and the splits they need scanned (labels checked, scan cached) and
// served from the decode-once image cache at the run's imgsz. One function, so the three read
// a dataset the same way.

#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "libreyolo/core/data/cache/cache_mode.hpp"
#include "libreyolo/core/data/dataset/dataset_config.hpp"
#include "libreyolo/core/data/dataset/dataset_samples.hpp"

namespace libreyolo::core::data {

struct TrainingDataRequest {
  std::string data;                        // the data= option
  std::filesystem::path bundled_datasets;  // where dataset names (coco16) are looked up
  int imgsz = 640;
  CacheMode cache = CacheMode::none;
  std::vector<std::string> splits;         // "train", "val", "test": the ones to load
};

struct TrainingData {
  DatasetConfig dataset;
  std::map<std::string, std::shared_ptr<const SplitSamples>> splits;  // by name, as requested
};

// Throws core::Error when data= cannot be read or a requested split is not in the data.yaml.
// Logs one line: the images per split and the class count.
TrainingData load_training_data(const TrainingDataRequest& request);

}  // namespace libreyolo::core::data
