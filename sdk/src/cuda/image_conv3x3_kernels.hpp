#pragma once
// The image convolution's launchers (image_conv3x3_device.cuh): a network's first convolution,
// 3x3 over the three channels of the image, on tensor cores. A plain interface of raw pointers
// and a stream, no torch and no CUDA headers, like small_conv3x3_kernels.hpp.
//
// Shapes: 3 input channels, 3x3, stride 1 or 2, padding 1, no bias, 16, 32 or 64 output channels;
// or (`focus`) a Focus (the image's four 2x2 phases as 12 channels at half its size, even sides)
// and then a 3x3 convolution of those 12 channels into 16 or 32, stride 1, padding 1. x is read through its strides (any layout, float32 or float16, no alignment needed: the image
// batch as the loader makes it, so autocast's cast of it is never made); each value is rounded
// to float16 first, as autocast's cast would. The weight and its gradient float16 [K, 3, 3, 3] in
// channels-last memory (KRSC; [K, 12, 3, 3] after a Focus), y and grad_y dense channels-last float16 [N, K, OH, OW], all
// 16-byte aligned. No input gradient: an image needs none.

#include <cstdint>

namespace libreyolo::sdk::fused {

struct ImageConvShape {
  int64_t batch = 0, height = 0, width = 0;  // the image's
  int64_t out_channels = 0, stride = 1;
  int64_t stride_n = 0, stride_c = 0, stride_h = 0, stride_w = 0;  // x's, in elements
  bool half_input = false;                                         // x float16 (else float32)
  bool focus = false;  // the Focus's 12 channels convolved (stride 1), not the image's 3
};

// The output's height or width for an image side of `size` (3x3, padding 1; after a Focus, half).
int64_t image_conv3x3_out_size(int64_t size, int64_t stride, bool focus);
// Whether the kernels take this shape (output channels 16, 32 or 64, after a Focus 16 or 32;
// stride 1 or 2, after a Focus 1 and even sides; sizes that the kernels' 32-bit pixel indices hold).
bool image_conv3x3_fits(const ImageConvShape& shape);
// Elements of the weight gradient's float32 work buffer ([K][taps] sums and an arrival count).
int64_t image_conv3x3_work_elements(const ImageConvShape& shape);

// Both return 0 on success, else the CUDA error code of a launch (text: image_conv3x3_error_text).
// y = conv(x, weight): one launch;
int image_conv3x3_forward(const ImageConvShape& shape, const void* x, const void* weight, void* y, void* stream);
// grad_weight (float16 KRSC) from x and grad_y: the work buffer zeroed (a memset), one kernel whose
// last block casts the sums.
int image_conv3x3_weight_grad(const ImageConvShape& shape, const void* x, const void* grad_y, float* work,
                              void* grad_weight, void* stream);
const char* image_conv3x3_error_text(int code);

}  // namespace libreyolo::sdk::fused
