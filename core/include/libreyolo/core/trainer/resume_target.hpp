#pragma once
// Which run `resume=` continues, and what that run was started with. LibreYOLO and Ultralytics
// accept resume=true (the run in project=/name=, or the latest one) and resume=path/to/last.pt;
// both are read here, without LibTorch, by the CLI (which takes every option from the run) and
// by the trainer (which opens the run folder).

#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace libreyolo::core::trainer {

// false for "false", "False", "0" and empty text; true for anything else (true or a path).
bool resume_requested(const std::string& value);

// The run folder resume= names: for true, project/name when name= is given, else the run in
// project whose weights/last.pt was written last; for a path, the run holding that
// weights/last.pt (or the run folder itself). Throws core::Error when no such run exists.
std::filesystem::path resume_run_root(const std::string& value, const std::filesystem::path& project,
                                      const std::optional<std::string>& name);

// The options a run was started with, from its args.yaml, in file order. Throws core::Error when
// the file is missing (a run not made by libreyolo-host) or unreadable.
std::vector<std::pair<std::string, std::string>> read_run_arguments(const std::filesystem::path& run_root);

}  // namespace libreyolo::core::trainer
