#include "libreyolo/core/weights/weights_search.hpp"

namespace libreyolo::core::weights {

std::vector<SearchPlace> search_places(const WeightsEnvironment& env) {
  std::vector<SearchPlace> places;
  places.push_back({"the working folder", env.working_folder});
  places.push_back({"its weights/ folder", env.working_folder / "weights"});
  if (!env.weights_folder.empty()) places.push_back({"$LIBREYOLO_WEIGHTS", env.weights_folder});
  if (!env.cache_folder.empty()) places.push_back({"the cache", env.cache_folder});
  return places;
}

std::optional<FoundWeights> find_weights(const std::vector<std::string>& file_names,
                                         const std::vector<SearchPlace>& places) {
  for (const auto& place : places) {
    for (const auto& name : file_names) {
      std::error_code ec;
      const auto candidate = place.folder / name;
      if (std::filesystem::is_regular_file(candidate, ec)) return FoundWeights{candidate, &place};
    }
  }
  return std::nullopt;
}

std::string describe_places(const std::vector<SearchPlace>& places) {
  std::string text;
  for (const auto& place : places) {
    if (!text.empty()) text += ", ";
    text += place.label + " (" + place.folder.string() + ")";
  }
  return text;
}

}  // namespace libreyolo::core::weights
