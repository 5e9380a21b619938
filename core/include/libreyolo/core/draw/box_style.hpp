#pragma once
// How a detection looks when drawn: a colour per class, the label's text and the line width.
// Plain data and arithmetic (no OpenCV), so tests and builds without OpenCV share it.

#include <cstdint>
#include <string>

namespace libreyolo::core::draw {

struct Rgb {
  std::uint8_t r = 0, g = 0, b = 0;
  bool operator==(const Rgb& other) const { return r == other.r && g == other.g && b == other.b; }
};

// A saturated, bright colour per class id, the same on every run. Hues step by the golden
// ratio around the colour wheel, so neighbouring ids (person 0, bicycle 1, car 2) never get
// similar colours and any number of classes stays distinct enough. Negative ids are treated
// as their absolute value.
Rgb class_colour(int class_id);

// Black or white, whichever reads better on `background` (by its luma, Rec. 601).
Rgb text_colour_on(Rgb background);

// "person 0.87": the class name and the confidence with two decimals.
std::string label_text(const std::string& class_name, double confidence);

// Box outline width in pixels for an image of this size: about 0.3% of the mean side, at
// least 2, so boxes stay visible on large photos and do not swamp small ones.
int line_thickness(int width, int height);

}  // namespace libreyolo::core::draw
