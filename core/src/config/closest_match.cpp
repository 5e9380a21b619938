#include <algorithm>
#include <numeric>

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

}  // namespace

std::optional<std::string> closest_match(const std::string& word,
                                         const std::vector<std::string>& candidates) {
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
  return best;
}

}  // namespace libreyolo::core::config
