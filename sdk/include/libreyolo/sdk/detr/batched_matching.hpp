#pragma once
// Hungarian matching of every cost matrix of a training step at once (all decoder layers, the
// encoder output and every image), for DETR-style criteria. LibreYOLO's RT-DETR matcher moves
// each image's matrix to the host and calls scipy's linear_sum_assignment on it, one transfer
// and one synchronisation per image and per layer. Here the caller stacks the step's matrices
// (padded to the largest GT count) and pays one transfer for all of them; the matrices are
// then solved on host threads with solve_linear_assignment (hungarian.hpp), scipy's algorithm.
// Where the fused_kernels policy allows `linear_assignment` (fused_kernels.hpp) and the cost is
// on a CUDA device, a kernel runs the same algorithm on the GPU instead, one thread block per
// matrix, with the same assignment bit for bit and no transfer and no synchronisation at all.
//
// Result layout: a dense [N, Q] int64 tensor, result[n][q] = the GT index matched to query q
// in matrix n, or -1. It carries the same information as LibreYOLO's per-image
// (query_indices, gt_indices) pair: query_indices (ascending, as scipy returns them) =
// nonzero(result[n] >= 0), gt_indices = result[n][query_indices].

#include <torch/types.h>

#include <cstdint>
#include <vector>

#include "libreyolo/sdk/export.hpp"

namespace libreyolo::sdk::detr {

// cost: [N, Q, M], floating point (any float dtype), on any device; N matrices of Q queries
// and M (padded) GT columns. gt_counts[n] (0 <= gt_counts[n] <= M) is the real GT count of
// matrix n: its columns >= gt_counts[n] are padding and never read (they may hold anything,
// even NaN). The cost is copied to the host exactly once (to contiguous float32): on CUDA
// that copy is this step's one host synchronisation for matching (none with the GPU solver).
// Gradients are not tracked.
// Returns [N, Q] int64 on cost's device (see the layout above). Each matrix assigns
// min(Q, gt_counts[n]) queries. Throws std::invalid_argument on a wrong rank or dtype, a
// gt_counts of the wrong length or with a count outside [0, M], or a non-finite real cost. The
// GPU solver cannot throw without waiting for the device: it leaves a matrix with a non-finite
// real cost unmatched (all -1). Such costs come from non-finite predictions, so the step's loss
// is non-finite as well and the trainer skips the step as it skips any non-finite loss.
LIBREYOLO_SDK_API torch::Tensor match_batched(const torch::Tensor& cost, const std::vector<int64_t>& gt_counts);

// The same on a cost that is already on the host, with an explicit worker limit (0 = choose:
// at most hardware_concurrency and at most N threads, one thread for small work). Returns a
// CPU tensor. Exposed so that tests and benchmarks can pin the thread count.
LIBREYOLO_SDK_API torch::Tensor match_batched_cpu(const torch::Tensor& cost, const std::vector<int64_t>& gt_counts,
                                                  int max_threads = 0);

}  // namespace libreyolo::sdk::detr
