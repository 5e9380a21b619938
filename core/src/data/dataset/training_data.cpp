#include "libreyolo/core/data/dataset/training_data.hpp"

#include "libreyolo/core/log/log.hpp"

namespace libreyolo::core::data {

TrainingData load_training_data(const TrainingDataRequest& request) {
  TrainingData data;
  data.dataset = load_dataset(request.data, request.bundled_datasets);
  SplitLoadOptions options;
  options.imgsz = request.imgsz;
  options.cache = request.cache;
  options.cache_dir = data.dataset.root / ".libreyolo-cache";
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
