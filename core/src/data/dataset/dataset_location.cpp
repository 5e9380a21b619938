// Finding a data.yaml from what the user typed after data=.
#include <algorithm>
#include <cstdlib>
#include <string>
#include <system_error>

#include "libreyolo/core/data/dataset/dataset_config.hpp"
#include "libreyolo/core/error.hpp"
#include "libreyolo/core/util/regular_file.hpp"

namespace libreyolo::core::data {
namespace fs = std::filesystem;
namespace {

bool looks_like_path(const std::string& spec) {
  const std::string ext = fs::path(spec).extension().string();
  std::error_code ec;
  return ext == ".yaml" || ext == ".yml" || spec.find('/') != std::string::npos ||
         fs::is_regular_file(spec, ec);
}

}  // namespace

void refuse_non_regular(const fs::path& yaml) {
  const std::string reason = util::not_regular_file_reason(yaml);
  if (reason.empty()) return;
  throw Error("Cannot read dataset file " + yaml.string(), reason,
              "Pass the path of the data.yaml file itself (reading a FIFO waits for a writer, a "
              "device is not a dataset description)");
}

std::vector<fs::path> dataset_search_dirs(const fs::path& bundled_dir) {
  std::vector<fs::path> dirs;
  std::error_code ec;
  const fs::path cwd = fs::current_path(ec);
  dirs.push_back(ec ? fs::path("datasets") : cwd / "datasets");
  if (const char* env = std::getenv("LIBREYOLO_DATASETS")) {
    const std::string value = env;
    std::size_t start = 0;
    while (start <= value.size()) {
      const std::size_t end = std::min(value.find(':', start), value.size());
      if (end > start) dirs.emplace_back(value.substr(start, end - start));
      start = end + 1;
    }
  }
  if (!bundled_dir.empty()) dirs.push_back(bundled_dir);
  return dirs;
}

fs::path resolve_dataset_yaml(const std::string& spec, const std::vector<fs::path>& search_dirs) {
  std::error_code ec;
  if (spec.empty()) {
    throw Error("No dataset given", "data= is empty",
                "Pass data=<path to data.yaml> or data=<dataset name>, e.g. data=coco128");
  }
  if (looks_like_path(spec)) {
    if (fs::is_regular_file(spec, ec)) return fs::absolute(spec, ec).lexically_normal();
    const bool is_dir = fs::is_directory(spec, ec);
    if (!is_dir) refuse_non_regular(spec);
    throw Error(
        "Dataset file " + spec + " not found",
        is_dir ? "it is a folder, not a data.yaml file" : "no file exists at that path",
        is_dir ? "Pass the data.yaml inside it: data=" + (fs::path(spec) / "data.yaml").string()
               : "Check the path, or pass a dataset name such as data=coco128");
  }
  std::string tried;
  for (const fs::path& dir : search_dirs) {
    const fs::path candidate = dir / spec / "data.yaml";
    if (fs::is_regular_file(candidate, ec)) return fs::absolute(candidate, ec).lexically_normal();
    if (!fs::is_directory(candidate, ec)) refuse_non_regular(candidate);
    tried += "\n  " + candidate.string();
  }
  throw Error("Dataset '" + spec + "' not found", "no data.yaml at any of these places:" + tried,
              "Pass a data.yaml path, put the dataset under ./datasets/" + spec +
                  "/, or add its parent folder to LIBREYOLO_DATASETS (colon-separated)");
}

DatasetConfig load_dataset(const std::string& spec, const fs::path& bundled_dir) {
  return load_dataset_config(resolve_dataset_yaml(spec, dataset_search_dirs(bundled_dir)));
}

}  // namespace libreyolo::core::data
