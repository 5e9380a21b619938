// A build without CUDA kernels (the CPU build): the prediction rows' kernels are never taken.
#include <stdexcept>

#include "prediction_rows_fused.hpp"

namespace libreyolo::sdk {

std::string fused_prediction_rows_unavailable() { return "this build has no fused CUDA kernels"; }

std::string fused_prediction_rows_shape_refusal(const std::vector<std::vector<FusedPredictionConv>>&) {
  return fused_prediction_rows_unavailable();
}

torch::Tensor fused_prediction_rows(const std::vector<std::vector<FusedPredictionConv>>&) {
  throw std::logic_error("fused_prediction_rows: this build has no fused CUDA kernels (ask prediction_rows_refusal first)");
}

}  // namespace libreyolo::sdk
