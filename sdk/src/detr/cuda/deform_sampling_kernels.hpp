#pragma once
// The fused deformable-attention sampling kernels' plain interface: raw float pointers and a
// stream, no torch and no CUDA headers, so that nvcc compiles the kernels without LibTorch's
// headers and the C++ side (deform_sampling_fused.cpp) includes this without nvcc.
//
// Layouts (all contiguous float32): value [B, Lv, H, C] with the levels' h * w positions one
// level after the other (row-major inside a level); locations [B, Q, H, T, 2] as (x, y) in [0, 1]
// of the point's level, T = the sum of the levels' point counts, level by level; weights
// [B, Q, H, T]; out [B, Q, H, C]. Sampling is grid_sample's bilinear with zero padding and
// align_corners = false: location 0 is the left edge of the first pixel.

#include <cstdint>

namespace libreyolo::sdk::detr::fused {

constexpr int kMaxLevels = 8;

struct SamplingShape {
  int64_t batch = 0, queries = 0, heads = 0, channels = 0, positions = 0, total_points = 0;
  int levels = 0;
  int height[kMaxLevels] = {}, width[kMaxLevels] = {};
  int64_t first_position[kMaxLevels] = {};
  int first_point[kMaxLevels] = {}, points[kMaxLevels] = {};
};

// Both return 0 on success, else the CUDA error code of the launch (cuda_error_text names it).
// The backward adds into grad_value (zeroed by the caller: several points hit one position) and
// writes grad_locations and grad_weights whole.
int sampling_forward(const SamplingShape& shape, const float* value, const float* locations, const float* weights,
                     float* out, void* stream);
int sampling_backward(const SamplingShape& shape, const float* value, const float* locations, const float* weights,
                      const float* grad_out, float* grad_value, float* grad_locations, float* grad_weights,
                      void* stream);
const char* cuda_error_text(int code);

}  // namespace libreyolo::sdk::detr::fused
