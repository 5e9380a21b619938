// The scanner's side of plugin isolation: load one plugin exactly as the host would, in this
// (throw-away) process, and say whether the host may load it too.
#include "libreyolo/core/plugins/plugin_loader.hpp"
#include "libreyolo/core/plugins/plugin_scan.hpp"

namespace libreyolo::core::plugins {

ScanVerdict scan_in_this_process(const std::filesystem::path& plugin) {
  FamilyRegistry registry;
  load_plugin(plugin, registry);  // entry points, ABI stamp, factory, info, policy, validation
  if (!registry.refused().empty()) return {ScanOutcome::refused, registry.refused().front().reason};
  // Every command that names a model calls that size's recipe (`families NAME` every size's):
  // a recipe that crashes or hangs would take the host down there, so it runs here first. An
  // exception is no reason to refuse: the host reports it where it always has, for that size.
  const auto& family = registry.families().front();
  for (const auto& size : family.info.sizes) {
    try {
      family.family->recipe(size);
    } catch (...) {
    }
  }
  return {ScanOutcome::approved, ""};
}

}  // namespace libreyolo::core::plugins
