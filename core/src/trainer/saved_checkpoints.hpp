#pragma once
// What each checkpoint file of the run really holds on disk, and which saves failed: a failed
// save keeps the previous file, so "last.pt" is not necessarily the last epoch. The run's end
// reports from here and fails when a file's latest save failed. Private to core/src/trainer/.

#include <filesystem>
#include <string>
#include <vector>

#include "libreyolo/core/trainer/trainer.hpp"

namespace libreyolo::core::trainer {

class SavedCheckpoints {
 public:
  // `epochs`: epochs of training the file holds (0: the starting weights).
  void saved(const std::filesystem::path& file, int epochs);
  void failed(const std::filesystem::path& file, const std::string& error);
  // Epochs the file holds on disk; -1 when this run has not written it.
  int epochs_on_disk(const std::filesystem::path& file) const;
  const std::vector<CheckpointOnDisk>& files() const { return files_; }

 private:
  CheckpointOnDisk& entry(const std::filesystem::path& file);
  std::vector<CheckpointOnDisk> files_;
};

// One line per file whose latest save failed: what the file holds instead, and the error.
std::vector<std::string> describe_failures(const std::vector<CheckpointOnDisk>& files, const std::filesystem::path& root);

}  // namespace libreyolo::core::trainer
