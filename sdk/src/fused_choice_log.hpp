#pragma once
// How a fused kernel's call site reports its first decision: one info line per process (per the
// caller's once_flag), naming the path taken and, for the composed one, why the kernel refused.
// SDK-internal: every fused kernel's dispatcher (pools, BatchNorm + SiLU, deformable sampling,
// Hungarian matching) says it the same way.

#include <mutex>
#include <string>

#include "libreyolo/sdk/log.hpp"

namespace libreyolo::sdk {

inline void log_first_fused_choice(std::once_flag& once, const std::string& refusal, const char* fused_line,
                                   const char* composed_line) {
  std::call_once(once, [&] {
    if (refusal.empty())
      log::info(fused_line);
    else
      log::info(composed_line, " (", refusal, ")");
  });
}

}  // namespace libreyolo::sdk
