#pragma once
// Draws detections onto a decoded image: each box outlined in its class colour, its label
// ("person 0.87") on a filled background of the same colour above the box (inside it when the
// box touches the top edge). Implemented with OpenCV's core and imgproc modules when the build
// found them (core/src/draw/annotate_opencv.cpp); OpenCV stays out of this header.

#include <string>
#include <vector>

#include "libreyolo/core/data/image/image.hpp"

namespace libreyolo::core::draw {

// A box in the image's own pixels (xyxy, may reach outside: it is clipped when drawn).
struct LabelledBox {
  double x1 = 0, y1 = 0, x2 = 0, y2 = 0;
  int class_id = 0;  // picks the colour (box_style.hpp's class_colour)
  std::string label;
};

// False in a build without OpenCV: draw_labelled_boxes then throws.
bool drawing_available();

// Throws core::Error when drawing is not available (say what to install, or save=false), so a
// command can refuse before it starts any work.
void require_drawing();

// Draws `boxes` in order (later ones on top) into `image`'s RGB pixels in place.
void draw_labelled_boxes(data::Image& image, const std::vector<LabelledBox>& boxes);

}  // namespace libreyolo::core::draw
