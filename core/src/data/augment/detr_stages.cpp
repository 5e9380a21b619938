// The DETR-style stages (torchvision v2 semantics): wired to their transforms in
// photometric_distort.cpp, zoom_out.cpp, iou_crop.cpp, stretch_resize.cpp, sanitize_boxes.cpp.

#include "libreyolo/core/error.hpp"
#include "pipeline_stages.hpp"

namespace libreyolo::core::data::pipeline {
namespace {

[[noreturn]] void unavailable(const char* name) {
  throw Error(std::string("augmentation transform ") + name + " is not in this build yet",
              "the DETR transforms are being added", "use a pipeline without it");
}

}  // namespace

void apply(const sdk::augment::PhotometricDistort&, StageContext&, WorkingSample&) { unavailable("PhotometricDistort"); }
void apply(const sdk::augment::ZoomOut&, StageContext&, WorkingSample&) { unavailable("ZoomOut"); }
void apply(const sdk::augment::IoUCrop&, StageContext&, WorkingSample&) { unavailable("IoUCrop"); }
void apply(const sdk::augment::SanitizeBoxes&, StageContext&, WorkingSample&) { unavailable("SanitizeBoxes"); }
void apply(const sdk::augment::StretchResize&, StageContext&, WorkingSample&) { unavailable("StretchResize"); }

}  // namespace libreyolo::core::data::pipeline
