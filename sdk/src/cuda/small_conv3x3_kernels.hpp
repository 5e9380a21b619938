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
// Elements of the weight gradient's float32 work buffer ([9][C][C] sums and an arrival count).
int64_t small_conv3x3_work_elements(const SmallConvShape& shape);

// All return 0 on success, else the CUDA error code of a launch (text: small_conv3x3_error_text).
// The weight and every tensor 16-byte aligned. One launch each:
// y = conv(x, weight);
int small_conv3x3_forward(const SmallConvShape& shape, const void* x, const void* weight, void* y, void* stream);
// grad_x = the input gradient of that convolution, from grad_y and the same weight;
int small_conv3x3_input_grad(const SmallConvShape& shape, const void* grad_y, const void* weight, void* grad_x,
                             void* stream);
// grad_weight (float16 KRSC) from x and grad_y: the work buffer zeroed (a memset), one kernel
// whose last block casts the sums.
int small_conv3x3_weight_grad(const SmallConvShape& shape, const void* x, const void* grad_y, float* work,
                              void* grad_weight, void* stream);
const char* small_conv3x3_error_text(int code);

}  // namespace libreyolo::sdk::fused
