#include "hooks.hpp"

namespace libreyolo::core::trainer::hooks {
namespace {

// With cuda_graph=true, an epoch whose batches partly ran eager ends with one line saying how
// many and in which shapes, and names multi_scale=false when multi-scale is why (the DETR trap of
// docs/design.md#cuda-graphs: a short multi-scale run may never see a shape three times and never capture).
class CaptureReportHook : public TrainHook {
 public:
  void after_epoch(TrainLoop& loop) override {
    Session& s = loop.session;
    if (s.capture) s.capture->end_epoch(static_cast<int>(loop.step), s.multi_scale);
  }
};

}  // namespace

std::unique_ptr<TrainHook> capture_report() { return std::make_unique<CaptureReportHook>(); }

}  // namespace libreyolo::core::trainer::hooks
