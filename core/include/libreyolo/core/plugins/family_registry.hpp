#pragma once
// The families this process can train, as loaded from plugins, plus every plugin that was
// refused and why. Families are never unloaded: their code stays mapped until the process
// exits, so no tensor, module or vtable can outlive the library that made it.

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "libreyolo/sdk/family.hpp"

namespace libreyolo::core::plugins {

struct LoadedFamily {
  std::shared_ptr<sdk::Family> family;
  sdk::FamilyInfo info;
  sdk::Policy policy;
  std::filesystem::path file;  // the plugin it came from
};

struct RefusedPlugin {
  std::filesystem::path file;
  std::string reason;
};

// A model name resolved against the registry: "yolo9s" -> (yolo9, s).
struct ModelName {
  const LoadedFamily* family = nullptr;
  std::string size;
};

class FamilyRegistry {
 public:
  // Adds a family; a second family with a name already taken is refused (recorded in
  // refused(), first come first served) and false is returned.
  bool add(LoadedFamily family);
  void refuse(RefusedPlugin refused);

  const LoadedFamily* find(const std::string& name) const;
  // The family or an Error listing the families that are loaded and the plugins refused.
  const LoadedFamily& require(const std::string& name) const;

  // "yolo9s", "yolo9-s", "yolo9_s", "yolox-s": the longest family name that prefixes the
  // model name, then a declared size. Errors name the sizes or families available.
  ModelName resolve_model_name(const std::string& model) const;

  const std::vector<LoadedFamily>& families() const { return families_; }
  const std::vector<RefusedPlugin>& refused() const { return refused_; }

 private:
  std::string loaded_names() const;
  std::vector<LoadedFamily> families_;
  std::vector<RefusedPlugin> refused_;
};

}  // namespace libreyolo::core::plugins
