#include "libreyolo/core/plugins/family_registry.hpp"

#include <algorithm>

#include "libreyolo/core/error.hpp"
#include "libreyolo/core/log/log.hpp"

namespace libreyolo::core::plugins {

bool FamilyRegistry::add(LoadedFamily family) {
  if (const auto* existing = find(family.info.name)) {
    refuse({family.file, "family '" + family.info.name + "' is already provided by " +
                             existing->file.string() + " (loaded first, so it is kept)"});
    return false;
  }
  families_.push_back(std::move(family));
  return true;
}

void FamilyRegistry::refuse(RefusedPlugin refused) {
  log::warn("plugin ", refused.file.string(), " not loaded: ", refused.reason);
  refused_.push_back(std::move(refused));
}

const LoadedFamily* FamilyRegistry::find(const std::string& name) const {
  auto it = std::find_if(families_.begin(), families_.end(),
                         [&](const LoadedFamily& f) { return f.info.name == name; });
  return it == families_.end() ? nullptr : &*it;
}

std::string FamilyRegistry::loaded_names() const {
  if (families_.empty()) return "none";
  std::string names;
  for (const auto& f : families_) names += (names.empty() ? "" : ", ") + f.info.name;
  return names;
}

const LoadedFamily& FamilyRegistry::require(const std::string& name) const {
  if (const auto* family = find(name)) return *family;
  std::string why = "loaded families: " + loaded_names();
  if (!refused_.empty()) why += "; " + std::to_string(refused_.size()) + " plugin(s) refused";
  throw Error("family '" + name + "' is not loaded", why,
              "run 'libreyolo-host families' to see what was found and why plugins were "
              "refused; add plugin folders with --plugin-dir or LIBREYOLO_PLUGIN_PATH");
}

ModelName FamilyRegistry::resolve_model_name(const std::string& model) const {
  const LoadedFamily* best = nullptr;
  for (const auto& family : families_) {
    const auto& name = family.info.name;
    if (model.rfind(name, 0) == 0 && (!best || name.size() > best->info.name.size())) {
      best = &family;
    }
  }
  if (!best) {
    throw Error("model '" + model + "' names no loaded family",
                "loaded families: " + loaded_names(),
                "write the family then the size, e.g. model=yolo9s, or pass a .pt file");
  }
  std::string size = model.substr(best->info.name.size());
  if (!size.empty() && (size.front() == '-' || size.front() == '_')) size.erase(0, 1);
  const auto& sizes = best->info.sizes;
  if (std::find(sizes.begin(), sizes.end(), size) == sizes.end()) {
    std::string listed;
    for (const auto& s : sizes) listed += (listed.empty() ? "" : ", ") + best->info.name + s;
    throw Error("model '" + model + "' has no size '" + size + "' in family '" +
                    best->info.name + "'",
                "its sizes are: " + listed, "pick one of those");
  }
  return {best, size};
}

}  // namespace libreyolo::core::plugins
