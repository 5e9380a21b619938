#pragma once
// The SDK-internal side of batch_norm_workspaces.hpp: a BatchNorm call's own cuDNN workspace.

#include <torch/types.h>

#include <cstdint>

#include "libreyolo/sdk/export.hpp"

namespace libreyolo::sdk {

enum class WorkspaceUse : int { forward = 0, backward = 1 };

// At least `bytes` of device memory on `device` for `owner`'s (a layer's) calls in one direction:
// the same memory on every call while it is large enough. Memory it outgrows is kept, never
// freed or handed to another owner: a recorded graph may still write into it. Counts one claim of
// the returned range (batch_norm_workspaces.hpp). An undefined tensor when `bytes` is 0. Exported
// for the unit tests only.
LIBREYOLO_SDK_API torch::Tensor batch_norm_workspace(const void* owner, WorkspaceUse use, std::int64_t bytes, const torch::Device& device);

}  // namespace libreyolo::sdk
