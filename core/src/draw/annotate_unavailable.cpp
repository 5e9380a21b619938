// The build found no OpenCV (LIBREYOLO_HAS_OPENCV off): drawing is refused with what to do.
#include "libreyolo/core/draw/annotate.hpp"
#include "libreyolo/core/error.hpp"

namespace libreyolo::core::draw {

bool drawing_available() { return false; }

void require_drawing() {
  throw Error("cannot write annotated images", "this build has no OpenCV (needed to draw boxes)",
              "install libopencv-core-dev and libopencv-imgproc-dev and rebuild, or pass save=false "
              "(save_txt=true and save_json=true still work)");
}

void draw_labelled_boxes(data::Image&, const std::vector<LabelledBox>&) { require_drawing(); }

}  // namespace libreyolo::core::draw
