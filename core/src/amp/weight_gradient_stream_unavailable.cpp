// Builds without the second stream: CPU builds (the bookkeeping, weight_gradient_stream.cpp, is
// built and tested everywhere) and CUDA builds configured with LIBREYOLO_WEIGHT_GRAD_STREAM=OFF.
// The trainer logs the refusal and keeps one stream.
#include "libreyolo/core/amp/weight_gradient_stream.hpp"

namespace libreyolo::core::amp {

std::unique_ptr<WeightGradientStream> WeightGradientStream::start(const WeightCopies&, int, std::string& refusal) {
#ifdef LIBREYOLO_WEIGHT_GRAD_STREAM_OFF
  refusal = "this build was configured with LIBREYOLO_WEIGHT_GRAD_STREAM=OFF";
#else
  refusal = "this build has no CUDA";
#endif
  return nullptr;
}

}  // namespace libreyolo::core::amp
