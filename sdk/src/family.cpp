#include "libreyolo/sdk/family.hpp"

#include <algorithm>
#include <cctype>

namespace libreyolo::sdk {

const char* to_string(CaptureRegion region) {
  switch (region) {
    case CaptureRegion::none: return "none";
    case CaptureRegion::network: return "network";
    case CaptureRegion::backbone_encoder: return "backbone_encoder";
    case CaptureRegion::step: return "step";
    case CaptureRegion::network_with_denoising: return "network_with_denoising";
  }
  return "unknown";
}

const char* to_string(EvalResize resize) {
  switch (resize) {
    case EvalResize::letterbox: return "letterbox";
    case EvalResize::stretch: return "stretch";
  }
  return "unknown";
}

const char* to_string(Suppression suppression) {
  switch (suppression) {
    case Suppression::class_nms: return "class_nms";
    case Suppression::none: return "none";
  }
  return "unknown";
}

std::string validate(const FamilyInfo& info) {
  if (info.name.empty()) return "the family name is empty";
  const bool spelled_ok = std::all_of(info.name.begin(), info.name.end(), [](unsigned char c) {
    return std::islower(c) || std::isdigit(c) || c == '_';
  });
  if (!spelled_ok || !std::islower(static_cast<unsigned char>(info.name.front()))) {
    return "family name '" + info.name +
           "' must start with a lower-case letter and use only [a-z0-9_] (users type it in "
           "model=" + info.name + "s)";
  }
  if (info.sizes.empty()) return "family '" + info.name + "' declares no sizes";
  for (const auto& size : info.sizes) {
    if (size.empty()) return "family '" + info.name + "' declares an empty size name";
  }
  if (info.tasks.empty()) return "family '" + info.name + "' declares no tasks";
  for (const auto& [size, imgsz] : info.default_imgsz) {
    if (std::find(info.sizes.begin(), info.sizes.end(), size) == info.sizes.end()) {
      return "family '" + info.name + "' gives a default input size for undeclared size '" +
             size + "'";
    }
    if (imgsz <= 0 || imgsz % 32 != 0) {
      return "family '" + info.name + "' default input size " + std::to_string(imgsz) +
             " for size '" + size + "' is not a positive multiple of 32";
    }
  }
  for (const auto& [channels, size] : info.size_signature.sizes) {
    if (std::find(info.sizes.begin(), info.sizes.end(), size) == info.sizes.end()) {
      return "family '" + info.name + "' reads undeclared size '" + size + "' from " +
             std::to_string(channels) + " channels of " + info.size_signature.key;
    }
  }
  if (info.nms_candidates <= 0) {
    return "family '" + info.name + "' lets " + std::to_string(info.nms_candidates) +
           " candidates into NMS; it must be positive";
  }
  return {};
}

}  // namespace libreyolo::sdk
