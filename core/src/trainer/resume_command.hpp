#pragma once
// The command that continues a run, printed after Ctrl-C, SIGTERM or a failed save. It must
// work as printed: `train resume=<run>/weights/last.pt` takes every option from the run's
// args.yaml (apps/libreyolo-host/resume_setup.cpp), and names the run folder really used
// (exp2, not exp). Private to core/src/trainer/.

#include <string>

#include "libreyolo/core/trainer/run_folder.hpp"

namespace libreyolo::core::trainer {

std::string resume_command(const RunFolder& run);

}  // namespace libreyolo::core::trainer
