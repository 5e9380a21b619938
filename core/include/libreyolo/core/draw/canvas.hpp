#pragma once
// A blank RGB picture to draw charts on: lines, rectangles, dots and text, in pixels, origin at
// the top left. OpenCV's imgproc does the rasterising (core/src/draw/canvas_opencv.cpp);
// OpenCV stays out of this header. Without OpenCV every drawing call throws (drawing_available()
// in annotate.hpp says so up front).

#include <string>
#include <vector>

#include "libreyolo/core/data/image/image.hpp"
#include "libreyolo/core/draw/box_style.hpp"

namespace libreyolo::core::draw {

struct Point {
  double x = 0, y = 0;
};

class Canvas {
 public:
  Canvas(int width, int height, Rgb background = {255, 255, 255});
  // Draws into an existing picture (a training batch tile), in place.
  explicit Canvas(data::Image image);

  int width() const { return image_.width; }
  int height() const { return image_.height; }

  void line(Point from, Point to, Rgb colour, int thickness = 1);
  void polyline(const std::vector<Point>& points, Rgb colour, int thickness = 1);
  // thickness < 0 fills.
  void rectangle(Point corner, Point opposite, Rgb colour, int thickness = 1);
  void dot(Point centre, int radius, Rgb colour);
  // `scale` 1 is about 22 px high capitals; the point is the text's bottom-left corner.
  void text(const std::string& text, Point bottom_left, double scale, Rgb colour);
  int text_width(const std::string& text, double scale) const;
  // The text turned a quarter anticlockwise (it reads bottom to top, as matplotlib's rotated
  // axis labels), centred on `top_centre`'s x and hanging text_width() down from its y.
  void text_upwards(const std::string& text, Point top_centre, double scale, Rgb colour);
  // Pastes `picture` with its top-left corner at (x, y), clipped to the canvas.
  void paste(const data::Image& picture, int x, int y);

  const data::Image& image() const { return image_; }

 private:
  data::Image image_;
};

}  // namespace libreyolo::core::draw
