#include "libreyolo/core/data/dataset/training_data.hpp"

#include "libreyolo/core/log/log.hpp"

namespace libreyolo::core::data {

namespace {

// `path:` may lead anywhere (Ultralytics' own yamls say path: ../datasets/coco128), but derived
// files follow it: say where, once, when it leaves the yaml's folder.
void log_root_outside_yaml_folder(const DatasetConfig& dataset, const std::filesystem::path& cache_dir) {
  const std::filesystem::path relative =
      dataset.root.lexically_relative(dataset.yaml_path.parent_path());
  if (!relative.empty() && *relative.begin() != "..") return;
  log::info("data: 'path' in ", dataset.yaml_path.string(), " leads outside its folder, to ",
            dataset.root.string(), "; that is the dataset root, and caches are written only inside it (",
            cache_dir.string(), " and beside its labels folders) or not at all");
}

}  // namespace

TrainingData load_training_data(const TrainingDataRequest& request) {
  TrainingData data;
  data.dataset = load_dataset(request.data, request.bundled_datasets);
  SplitLoadOptions options;
  options.imgsz = request.imgsz;
  options.cache = request.cache;
  options.cache_dir = data.dataset.root / ".libreyolo-cache";
  options.dataset_root = data.dataset.root;
  log_root_outside_yaml_folder(data.dataset, options.cache_dir);
  std::string counts;
  for (const auto& name : request.splits) {
    auto samples = load_split_samples(data.dataset.split(name), data.dataset.nc(), options);
    counts += (counts.empty() ? "" : ", ") + std::to_string(samples->labels.size()) + " " + name;
    data.splits[name] = std::move(samples);
  }
  log::info("data: ", counts, " images, ", data.dataset.nc(), " classes (", data.dataset.yaml_path.string(), ")");
  return data;
}

}  // namespace libreyolo::core::data
