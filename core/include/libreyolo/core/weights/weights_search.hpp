#pragma once
// Where a weight file named without a folder is looked for, in order: the working folder, its
// weights/ subfolder (where LibreYOLO itself keeps what it downloads), $LIBREYOLO_WEIGHTS, then
// the cache folder. The first regular file found wins.

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "libreyolo/core/weights/weights_environment.hpp"

namespace libreyolo::core::weights {

struct SearchPlace {
  std::string label;  // for messages: "the working folder", "$LIBREYOLO_WEIGHTS", "the cache"
  std::filesystem::path folder;
};

struct FoundWeights {
  std::filesystem::path file;
  const SearchPlace* place = nullptr;  // into the places searched
};

// The places of `env`, in search order; unset ones are left out.
std::vector<SearchPlace> search_places(const WeightsEnvironment& env);

// The first of `file_names` (the name as given, then LibreYOLO's spelling of it) in the first
// place that has one.
std::optional<FoundWeights> find_weights(const std::vector<std::string>& file_names,
                                         const std::vector<SearchPlace>& places);

// "the working folder (/a), $LIBREYOLO_WEIGHTS (/b), the cache (/c)" for messages.
std::string describe_places(const std::vector<SearchPlace>& places);

}  // namespace libreyolo::core::weights
