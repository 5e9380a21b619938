#pragma once
// Every API difference between the LibTorch versions we build against lives here: Debian 12's
// 1.13 (CPU, CI) and PyTorch 2.11's (CUDA 13, the GPU machine). Nothing else in the project
// tests a version macro.

#include <torch/version.h>

#define LIBREYOLO_TORCH_AT_LEAST(major, minor) \
  (TORCH_VERSION_MAJOR > (major) ||            \
   (TORCH_VERSION_MAJOR == (major) && TORCH_VERSION_MINOR >= (minor)))

namespace libreyolo::sdk::compat {

constexpr const char* torch_version() { return TORCH_VERSION; }

}  // namespace libreyolo::sdk::compat
