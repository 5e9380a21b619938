#include "saved_checkpoints.hpp"

namespace libreyolo::core::trainer {
namespace {

std::string relative_name(const std::filesystem::path& file, const std::filesystem::path& root) {
  return file.lexically_relative(root).string();
}

std::string holds(int epochs) {
  if (epochs < 0) return "not written";
  if (epochs == 0) return "the starting weights, before epoch 1";
  return "after epoch " + std::to_string(epochs);
}

}  // namespace

bool TrainOutcome::save_failed() const {
  for (const auto& file : checkpoints) {
    if (!file.failure.empty()) return true;
  }
  return false;
}

CheckpointOnDisk& SavedCheckpoints::entry(const std::filesystem::path& file) {
  for (auto& known : files_) {
    if (known.path == file) return known;
  }
  files_.push_back({file, -1, {}});
  return files_.back();
}

void SavedCheckpoints::saved(const std::filesystem::path& file, int epochs) {
  auto& known = entry(file);
  known.epochs = epochs;
  known.failure.clear();  // a later successful save of the same file makes up for a failed one
}

void SavedCheckpoints::failed(const std::filesystem::path& file, const std::string& error) { entry(file).failure = error; }

int SavedCheckpoints::epochs_on_disk(const std::filesystem::path& file) const {
  for (const auto& known : files_) {
    if (known.path == file) return known.epochs;
  }
  return -1;
}

std::string describe_on_disk(const std::vector<CheckpointOnDisk>& files, const std::filesystem::path& root) {
  std::string text;
  for (const auto& file : files) {
    if (file.epochs < 0) continue;
    text += (text.empty() ? "" : ", ") + relative_name(file.path, root) + " (" + holds(file.epochs) + ")";
  }
  return text.empty() ? "no checkpoint" : text;
}

std::vector<std::string> describe_failures(const std::vector<CheckpointOnDisk>& files, const std::filesystem::path& root) {
  std::vector<std::string> lines;
  for (const auto& file : files) {
    if (file.failure.empty()) continue;
    const std::string kept = file.epochs < 0 ? "it was never written" : "it holds " + holds(file.epochs);
    lines.push_back("the latest save of " + relative_name(file.path, root) + " failed, so " + kept + ": " + file.failure);
  }
  return lines;
}

}  // namespace libreyolo::core::trainer
