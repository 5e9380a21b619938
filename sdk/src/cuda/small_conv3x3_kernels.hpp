#pragma once
// The small-channel 3x3 convolution's launchers (small_conv3x3_device.cuh): a plain interface of
// raw pointers and a stream, no torch and no CUDA headers, like avg_pool_2x2_kernels.hpp.
//
// Shapes: 3x3, stride 1, padding 1, no bias, as many output channels as input channels (16, 24
// or 32); x, y, grad_y and grad_x dense channels-last float16 [N, C, H, W] (NHWC in memory); the
// weight and its gradient float16 [C, C, 3, 3] in channels-last memory (KRSC).

#include <cstdint>

namespace libreyolo::sdk::fused {

struct SmallConvShape {
  int64_t batch = 0, channels = 0, height = 0, width = 0;
};

// Whether the kernels take this shape (channels 16, 24 or 32; their shared memory fits).
bool small_conv3x3_fits(const SmallConvShape& shape);
// Elements of one prepared weight ([9][C][C rounded up to 16] float16) and of the weight
// gradient's float32 work buffer ([9][C][C]).
int64_t small_conv3x3_prepared_elements(const SmallConvShape& shape);
int64_t small_conv3x3_work_elements(const SmallConvShape& shape);

// All return 0 on success, else the CUDA error code of a launch (text: small_conv3x3_error_text).
// The weight as the forward reads it (taps) and flipped with its channel roles swapped, as the
// input gradient reads it; one launch.
int small_conv3x3_prepare(const SmallConvShape& shape, const void* weight, void* taps, void* flipped, void* stream);
// y = conv(x); with grad_y for x and the flipped weight for the taps, grad_x.
int small_conv3x3_forward(const SmallConvShape& shape, const void* x, const void* taps, void* y, void* stream);
// grad_weight (float16 KRSC) from x and grad_y: the work buffer zeroed, one pass, one cast.
int small_conv3x3_weight_grad(const SmallConvShape& shape, const void* x, const void* grad_y, float* work,
                              void* grad_weight, void* stream);
const char* small_conv3x3_error_text(int code);

}  // namespace libreyolo::sdk::fused
