#pragma once
// The run folder: <project>/<name>, or <name>2, <name>3, ... when it exists and exist_ok is
// off (LibreYOLO's rule), with weights/ inside. Only rank 0 creates it; other ranks receive the
// name it chose.

#include <filesystem>
#include <string>
#include <vector>

#include "libreyolo/core/config/option_report.hpp"

namespace libreyolo::core::trainer {

struct RunFolder {
  std::filesystem::path root;     // runs/train/exp2
  std::filesystem::path weights;  // runs/train/exp2/weights
};

// Creates the folder (and weights/) and returns it. Errors say what could not be created.
RunFolder create_run_folder(const std::filesystem::path& project, const std::string& name,
                            bool exist_ok);

// The same naming rule for a command that writes no weights (predict): <project>/<name>, or
// <name>2, ... unless exist_ok; created, without weights/.
std::filesystem::path create_results_folder(const std::filesystem::path& project, const std::string& name,
                                            bool exist_ok);

// The folder of an existing run (resume_run_root() found it holding weights/last.pt).
RunFolder existing_run_folder(const std::filesystem::path& root);

// An exclusive lock on a run folder (flock on <root>/.lock, which holds the owner's pid), held
// for the whole run: two runs writing one folder (name=x exist_ok=true twice at once) would
// interleave results.csv and overwrite each other's args.yaml and weights. A second run is
// refused with the holder's pid. The lock goes when the process ends, however it ends.
class RunFolderLock {
 public:
  explicit RunFolderLock(const std::filesystem::path& root);  // throws core::Error when held
  ~RunFolderLock();
  RunFolderLock(const RunFolderLock&) = delete;
  RunFolderLock& operator=(const RunFolderLock&) = delete;

 private:
  int fd_ = -1;
};

// args.yaml: every resolved option (config::report_options), and where its value came from,
// for reproducing the run.
void write_args_yaml(const std::filesystem::path& file, const std::vector<config::ReportedOption>& options);

}  // namespace libreyolo::core::trainer
