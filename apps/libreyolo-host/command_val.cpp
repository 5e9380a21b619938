// `libreyolo-host val`: not built yet (the COCO evaluator and checkpoint loading land with
// the trainer issue). Options are still validated so scripts fail early and clearly.

#include "commands.hpp"
#include "host_setup.hpp"
#include "libreyolo/core/config/option_table.hpp"
#include "libreyolo/core/log/log.hpp"

namespace libreyolo::app {

int run_val(const Args& args) {
  resolve_model_run("val", args, core::config::val_options());
  core::log::error("val is not built yet in this version of libreyolo-host");
  return kExitNotBuiltYet;
}

}  // namespace libreyolo::app
