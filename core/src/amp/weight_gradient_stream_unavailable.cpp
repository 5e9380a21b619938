// CPU builds: no second stream (the bookkeeping, weight_gradient_stream.cpp, is built and tested
// everywhere). The trainer logs the refusal and keeps one stream.
#include "libreyolo/core/amp/weight_gradient_stream.hpp"

namespace libreyolo::core::amp {

std::unique_ptr<WeightGradientStream> WeightGradientStream::start(const WeightCopies&, int, std::string& refusal) {
  refusal = "this build has no CUDA";
  return nullptr;
}

}  // namespace libreyolo::core::amp
