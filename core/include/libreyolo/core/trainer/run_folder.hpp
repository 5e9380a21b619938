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

// The folder of an existing run (resume=true): must hold weights/last.pt.
RunFolder existing_run_folder(const std::filesystem::path& project, const std::string& name);

// args.yaml: every resolved option (config::report_options), and where its value came from,
// for reproducing the run.
void write_args_yaml(const std::filesystem::path& file, const std::vector<config::ReportedOption>& options);

}  // namespace libreyolo::core::trainer
