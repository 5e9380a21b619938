#include <algorithm>
#include <array>
#include <numeric>
#include <utility>

#include "libreyolo/core/config/option_table.hpp"

namespace libreyolo::core::config {
namespace {

size_t edit_distance(const std::string& a, const std::string& b) {
  // Levenshtein distance with one rolling row.
  std::vector<size_t> row(b.size() + 1);
  std::iota(row.begin(), row.end(), size_t{0});
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

// Names other trainers and habits give our options, which no edit distance finds
// ("bs" is 4 edits from "batch"). Only suggested when the command has the option; names that
// contain ours (batch_size, num_workers, max_epochs) need no entry.
constexpr std::array<std::pair<const char*, const char*>, 11> kSynonyms = {{
    {"bs", "batch"},       {"img_size", "imgsz"},     {"image_size", "imgsz"},   {"size", "imgsz"},
    {"gpu", "device"},     {"gpus", "device"},        {"dataset", "data"},       {"learning_rate", "lr0"},
    {"wd", "weight_decay"}, {"output", "project"},    {"config", "cfg"},
}};

std::optional<std::string> synonym_of(const std::string& word, const std::vector<std::string>& candidates) {
  for (const auto& [alias, target] : kSynonyms) {
    if (word == alias && std::find(candidates.begin(), candidates.end(), target) != candidates.end()) return target;
  }
  return std::nullopt;
}

// The longest option name (3 letters or more) inside a longer word: "batchsize", "train_epochs",
// "warmup_epochs_count" (warmup_epochs, not epochs), however many letters were added around it.
std::optional<std::string> contained_name(const std::string& word, const std::vector<std::string>& candidates) {
  std::optional<std::string> longest;
  for (const auto& candidate : candidates) {
    if (candidate.size() < 3 || word.find(candidate) == std::string::npos) continue;
    if (!longest || candidate.size() > longest->size()) longest = candidate;
  }
  return longest;
}

}  // namespace

std::optional<std::string> closest_match(const std::string& word,
                                         const std::vector<std::string>& candidates) {
  if (auto synonym = synonym_of(word, candidates)) return synonym;
  const size_t limit = std::max<size_t>(2, word.size() / 3);
  std::optional<std::string> best;
  size_t best_distance = limit + 1;
  for (const auto& candidate : candidates) {
    // A prefix is a strong hint ("lr" -> "lr0", "warmup" -> "warmup_epochs").
    const size_t distance = candidate.rfind(word, 0) == 0 && word.size() >= 2
                                ? 1
                                : edit_distance(word, candidate);
    if (distance < best_distance) {
      best_distance = distance;
      best = candidate;
    }
  }
  // A prefix or a one-letter typo says more than a name inside the word; farther edits less.
  if (best_distance <= 1) return best;
  if (auto inside = contained_name(word, candidates)) return inside;
  return best;
}

}  // namespace libreyolo::core::config
