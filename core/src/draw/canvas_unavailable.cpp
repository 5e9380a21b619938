// A build without OpenCV: a canvas can be made and pasted on (canvas.cpp), but every drawing
// call refuses with what to install (annotate.hpp's require_drawing), so no blank chart is ever
// written as if it were one.
#include "libreyolo/core/draw/annotate.hpp"
#include "libreyolo/core/draw/canvas.hpp"

namespace libreyolo::core::draw {

void Canvas::line(Point, Point, Rgb, int) { require_drawing(); }
void Canvas::polyline(const std::vector<Point>&, Rgb, int) { require_drawing(); }
void Canvas::rectangle(Point, Point, Rgb, int) { require_drawing(); }
void Canvas::dot(Point, int, Rgb) { require_drawing(); }
void Canvas::text(const std::string&, Point, double, Rgb) { require_drawing(); }
void Canvas::text_upwards(const std::string&, Point, double, Rgb) { require_drawing(); }
int Canvas::text_width(const std::string&, double) const {
  require_drawing();
  return 0;
}

}  // namespace libreyolo::core::draw
