#pragma once
// The GPU linear-assignment solver's plain interface: raw pointers and a stream, no torch and no
// CUDA headers (nvcc compiles the kernel without LibTorch; batched_matching_gpu.cpp includes
// this without nvcc).
//
// It solves N matrices at once, one thread block each, with the host solver's algorithm
// (hungarian.cpp: shortest augmenting paths in double, the same column scan order and the same
// tie rule), so each matrix's assignment is the host solver's. Layouts: cost [N, Q, M] contiguous
// float32 (matrix n's real columns are its first gt_counts[n]; the rest is padding, never read);
// gt_counts [N] int64 on the device; assignment [N, Q] int64, filled with -1 by the caller, gets
// the GT index of every matched query. A matrix with a non-finite real cost is left all -1 (the
// host solver throws there; a kernel cannot, see batched_matching.hpp).

#include <cstdint>

namespace libreyolo::sdk::detr::fused {

// Bytes of device workspace solve_assignments needs for these sizes (0 when every matrix's
// working arrays fit in the block's shared memory).
int64_t assignment_workspace_bytes(int64_t matrices, int64_t queries, int64_t padded_gt);

// Returns 0 on success, else the CUDA error code of the launch (assignment_error_text names it).
int solve_assignments(const float* cost, const int64_t* gt_counts, int64_t matrices, int64_t queries,
                      int64_t padded_gt, int64_t* assignment, void* workspace, void* stream);
const char* assignment_error_text(int code);

}  // namespace libreyolo::sdk::detr::fused
