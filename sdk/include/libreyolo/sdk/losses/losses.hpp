#pragma once
// The SDK's shared detection-loss pieces in one include: box ops and the IoU family, distribution
// focal loss, anchor points, the batched task-aligned assigner, and RTMDet's quality focal loss
// and dynamic soft-label assigner.

#include "libreyolo/sdk/losses/anchors.hpp"
#include "libreyolo/sdk/losses/box_ops.hpp"
#include "libreyolo/sdk/losses/dfl.hpp"
#include "libreyolo/sdk/losses/dynamic_soft_label_assigner.hpp"
#include "libreyolo/sdk/losses/quality_focal_loss.hpp"
#include "libreyolo/sdk/losses/task_aligned_assigner.hpp"
