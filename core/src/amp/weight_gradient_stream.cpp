#include "libreyolo/core/amp/weight_gradient_stream.hpp"

namespace libreyolo::core::amp {

WeightGradientStream::Backward::Backward(WeightGradientStream& stream) : stream_(stream) { stream_.begin_backward(); }

WeightGradientStream::Backward::~Backward() {
  if (finished_) return;
  try {
    stream_.end_backward(/*check=*/false);
  } catch (...) {
    // Already unwinding from the backward's own error: that one is the message to keep.
  }
}

void WeightGradientStream::Backward::finish() {
  finished_ = true;
  stream_.end_backward(/*check=*/true);
}

}  // namespace libreyolo::core::amp
