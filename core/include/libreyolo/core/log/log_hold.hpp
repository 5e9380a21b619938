#pragma once
// Holding log lines for a file that does not exist yet (see log.hpp for the facade).

namespace libreyolo::core::log {

// Messages from now on are also kept in memory, and the next set_file writes them at the head
// of its file: a run creates its folder (and train.log) only after its preparation succeeded,
// and the log still starts at the beginning. close_file() drops them.
void hold_for_file();

}  // namespace libreyolo::core::log
