// `libreyolo-host profile run|summary|phases|kernels`: not built yet (the profiler issue).

#include "commands.hpp"
#include "libreyolo/core/log/log.hpp"

namespace libreyolo::app {

int run_profile(const Args&) {
  core::log::error("profile is not built yet in this version of libreyolo-host (planned: "
                   "profile run DATA --weights W --size S, profile summary|phases|kernels FILE)");
  return kExitNotBuiltYet;
}

}  // namespace libreyolo::app
