#pragma once
// The command that continues a run, printed after Ctrl-C, SIGTERM or a failed save. It must
// work as printed: `train` needs model= and data= again (resume=true restores the state from
// last.pt, not the options), so it repeats what the original command line set, names the run
// folder that was really used (exp2, not exp) and drops exist_ok. Private to core/src/trainer/.

#include <string>
#include <vector>

#include "libreyolo/core/config/option_report.hpp"
#include "libreyolo/core/trainer/run_folder.hpp"

namespace libreyolo::core::trainer {

std::string resume_command(const std::vector<config::ReportedOption>& options, const RunFolder& run);

}  // namespace libreyolo::core::trainer
