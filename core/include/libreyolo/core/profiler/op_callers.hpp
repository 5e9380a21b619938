#pragma once
// For `bench step op_callers=OP`: which operators call OP (e.g. aten::copy_, the layout copies and
// casts of a step) and with what input. Each call is tallied under the chain of operators and
// autograd nodes around it (outermost first, the last `depth` of them) and its first two tensor
// inputs' sizes and strides (copy_'s destination, then its source): a convolution copying a
// channel half of a channels-last tensor shows as "aten::convolution > aten::_convolution >
// aten::contiguous > aten::clone > aten::copy_ [16, 32, 80, 80] strides [204800, 1, 2560, 32];
// [16, 32, 80, 80] strides [409600, 1, 5120, 64]". Counted through LibTorch's RecordFunction
// callbacks while open, on every thread (the backward's nodes run on autograd's threads, each
// node's operators on its thread). Eager steps only: a replayed CUDA graph runs no operators.

#include <cstdint>
#include <string>
#include <vector>

namespace libreyolo::core::profiler {

struct CallerTally {
  std::string chain;  // "outer > ... > OP [sizes] strides [strides]; [sizes] strides [strides]"
  std::int64_t calls = 0;
};

// One at a time per process (the callbacks are global).
class OpCallers {
 public:
  explicit OpCallers(std::string op, int depth = 4);  // starts recording
  ~OpCallers();
  OpCallers(const OpCallers&) = delete;
  OpCallers& operator=(const OpCallers&) = delete;

  // The chains, most calls first, at most `most` of them.
  std::vector<CallerTally> top(std::size_t most) const;

 private:
  std::uint64_t handle_ = 0;
};

}  // namespace libreyolo::core::profiler
