#pragma once
// `train resume=...`: the resumed run's options come from its own args.yaml, never from the
// defaults, so a resume cannot drift from the run it continues (the interrupted settings, not
// a 300-epoch default run). Options given again must match, except the few that change where and
// how fast the same run trains (device, workers, cache, verbose, plugin_dir), which are
// accepted and logged.

#include <string>
#include <vector>

#include "host_setup.hpp"

namespace libreyolo::app {

// The options whose change a resume accepts: they decide where and how fast, not what, it trains.
const std::vector<std::string>& options_a_resume_may_change();

// The run that `user`'s resume= names, resolved with its saved options (plus the user's changes
// from options_a_resume_may_change()). Throws core::Error listing every other option given with
// a value that differs from the run's.
ModelRun resolve_resumed_run(const core::config::UserOptions& user, const core::config::OptionTable& table);

}  // namespace libreyolo::app
