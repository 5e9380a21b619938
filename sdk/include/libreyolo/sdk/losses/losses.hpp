#pragma once
// The SDK's shared detection-loss pieces in one include: box ops and the IoU family, distribution
// focal loss, anchor points, and the batched task-aligned assigner.

#include "libreyolo/sdk/losses/anchors.hpp"
#include "libreyolo/sdk/losses/box_ops.hpp"
#include "libreyolo/sdk/losses/dfl.hpp"
#include "libreyolo/sdk/losses/task_aligned_assigner.hpp"
