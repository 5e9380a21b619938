#pragma once
// A detector head's 1x1 prediction convolutions as its criterion reads them: one float32 row of
// every anchor's outputs ([B, A, C]: the levels' anchors one after another, each row the level's
// convolutions' channels side by side). The forward writes the rows from the convolutions'
// outputs (made without their bias) and adds each bias as PyTorch's add would; the backward
// writes each convolution's output gradient in its own layout and sums the bias gradients
// (deterministically: per-block partial sums, then a fixed-order reduction). Plain interface
// (raw pointers and a stream, no torch headers): prediction_rows_fused.cpp wraps it.

#include <cstdint>

namespace libreyolo::sdk::fused {

constexpr int kPredictionMostLevels = 6;
constexpr int kPredictionMostParts = 4;    // convolutions a level
constexpr int kPredictionMostColumns = 1024;  // C: one thread a column

enum class PredictionType { float16, bfloat16, float32 };  // the convolutions' type

struct PredictionPart {  // one convolution of a level
  const void* y = nullptr;       // forward: its output without the bias, [B, channels, H, W]
  const void* bias = nullptr;    // forward: [channels], the convolution's type
  void* grad_y = nullptr;        // backward: its output's gradient, y's strides
  void* grad_bias = nullptr;     // backward: [channels], the convolution's type
  int64_t stride_b = 0, stride_c = 0, stride_h = 0, stride_w = 0;  // elements (y's and grad_y's)
  int channels = 0;
  int column = 0;  // its first channel's column in a row
};

struct PredictionLevel {
  int height = 0, width = 0;
  int64_t first_anchor = 0;  // its first anchor's row
  int parts = 0;
  PredictionPart part[kPredictionMostParts];
};

struct PredictionRowsShape {
  int batch = 0;
  int64_t anchors = 0;  // A: every level's H * W
  int columns = 0;      // C: every part's channels (each level's parts cover them all, in order)
  int levels = 0;
  PredictionType type = PredictionType::float16;
  PredictionLevel level[kPredictionMostLevels];
};

// Whether the kernels take this shape ("" when they do; else why not).
const char* prediction_rows_shape_refusal(const PredictionRowsShape& shape);
// The float32 scratch the backward needs for its partial bias sums.
int64_t prediction_rows_partial_elements(const PredictionRowsShape& shape);

// 0 on success, else the CUDA error code (prediction_rows_error_text names it).
// rows[b, a, c] = float(T(y + bias)) for every part: one launch.
int prediction_rows_forward(const PredictionRowsShape& shape, float* rows, void* stream);
// grad_y = T(grad_rows) for every part, grad_bias = T(the sum of those over B, H, W): two launches.
// grad_rows: [B, A, C] contiguous float32.
int prediction_rows_backward(const PredictionRowsShape& shape, const float* grad_rows, float* partials, void* stream);
const char* prediction_rows_error_text(int code);

}  // namespace libreyolo::sdk::fused
