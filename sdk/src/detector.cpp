#include "libreyolo/sdk/detector.hpp"

#include "libreyolo/sdk/criterion.hpp"

namespace libreyolo::sdk {

// Out-of-line so the vtables and type information live in the SDK library once, shared by
// the host and every plugin.
Detector::~Detector() = default;
Criterion::~Criterion() = default;

std::vector<torch::Tensor> Detector::forward_remainder(std::vector<torch::Tensor> features,
                                                       const Targets*) {
  return features;
}

std::vector<std::int64_t> Detector::prepare_training_forward(const torch::Tensor&, const Targets&, bool) { return {}; }

void Detector::on_epoch_start(const EpochContext&) {}

void Detector::on_scheduled_change(const std::string&) {}

bool Detector::capturable_region_is_stochastic() const { return false; }

void Detector::announce_capture_change(std::string reason) {
  ++capture_generation_;
  capture_change_reason_ = std::move(reason);
}

}  // namespace libreyolo::sdk
