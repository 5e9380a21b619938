#pragma once
// The deterministic tensors the architecture fixtures were made with: the same formulas as
// tests/python/yolo9_reference_keys.py and yolox_reference_keys.py, so a C++ module filled
// here holds exactly the weights LibreYOLO's module held when the fixture was written.

#include <torch/nn/module.h>
#include <torch/types.h>

#include <cstdint>

namespace libreyolo::test {

// 2 * frac(sin(12.9898 i + 78.233 seed) * 43758.5453) - 1 for i < count, in float64, returned as
// float32: the Python scripts' pattern().
torch::Tensor pattern(int64_t count, int64_t seed);

// The Python scripts' fill_deterministic(): every state-dict tensor from its position in sorted
// key order (conv weights scaled by 2.5 / sqrt(fan_in), BatchNorm near 1, biases near 0).
// scale_matrices: 2-D tensors get pattern / sqrt(size(1)) (the DETR fixtures), as in the script.
void fill_deterministic(torch::nn::Module& module, bool scale_matrices = false);

}  // namespace libreyolo::test
