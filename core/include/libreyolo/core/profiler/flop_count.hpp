#pragma once
// Floating-point operations of one call, counted by LibTorch's profiler from the shapes of the
// operators it records (convolutions and matrix products at 2 per multiply-add, as Ultralytics'
// GFLOPs are, plus elementwise adds and multiplies). Used for the model summary at the start of
// a run: "7.7 GFLOPs at 640".

#include <functional>
#include <optional>

namespace libreyolo::core::profiler {

// The operations `call` performs, or nothing when the profiler cannot run here (another
// profiling session is active, or this LibTorch lacks the counter).
std::optional<double> count_flops(const std::function<void()>& call);

}  // namespace libreyolo::core::profiler
