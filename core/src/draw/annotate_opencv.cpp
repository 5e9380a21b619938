// Drawing with OpenCV core + imgproc: a cv::Mat header over our RGB pixels (no copy), so the
// channel order is R, G, B and colours are given in that order.
#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <cmath>

#include "libreyolo/core/draw/annotate.hpp"
#include "libreyolo/core/draw/box_style.hpp"
#include "libreyolo/core/error.hpp"

namespace libreyolo::core::draw {
namespace {

constexpr int kFont = cv::FONT_HERSHEY_SIMPLEX;

cv::Scalar scalar(Rgb colour) { return {double(colour.r), double(colour.g), double(colour.b)}; }

int clamp_to(double value, int size) {
  if (!std::isfinite(value)) return 0;
  return static_cast<int>(std::lround(std::clamp(value, 0.0, static_cast<double>(size - 1))));
}

struct Style {
  int line = 2;
  double font_scale = 0.6;
  int font_thickness = 1;
  int padding = 2;
};

Style style_for(const cv::Mat& mat) {
  Style style;
  style.line = line_thickness(mat.cols, mat.rows);
  style.font_scale = style.line / 3.0;
  style.font_thickness = std::max(style.line - 1, 1);
  style.padding = std::max(style.line / 2, 1) + 1;
  return style;
}

// The label on a filled rectangle of the box colour, sitting on the box's top edge; inside the
// box when there is no room above it, and shifted left when it would leave the image.
void draw_label(cv::Mat& mat, const std::string& text, cv::Point corner, Rgb colour, const Style& s) {
  int baseline = 0;
  const cv::Size size = cv::getTextSize(text, kFont, s.font_scale, s.font_thickness, &baseline);
  const int width = size.width + 2 * s.padding, height = size.height + baseline + 2 * s.padding;
  const int top = corner.y - height >= 0 ? corner.y - height : corner.y;
  const int left = std::max(0, std::min(corner.x, mat.cols - width));
  cv::rectangle(mat, cv::Rect(left, top, width, height), scalar(colour), cv::FILLED);
  cv::putText(mat, text, cv::Point(left + s.padding, top + s.padding + size.height), kFont, s.font_scale,
              scalar(text_colour_on(colour)), s.font_thickness, cv::LINE_AA);
}

}  // namespace

bool drawing_available() { return true; }

void require_drawing() {}

void draw_labelled_boxes(data::Image& image, const std::vector<LabelledBox>& boxes) {
  if (image.width <= 0 || image.height <= 0 ||
      image.pixels.size() != static_cast<std::size_t>(image.width) * image.height * data::Image::kChannels) {
    throw Error("cannot draw on an image of " + std::to_string(image.width) + "x" + std::to_string(image.height),
                "its pixel buffer does not hold width x height RGB pixels", "decode the image first");
  }
  cv::Mat mat(image.height, image.width, CV_8UC3, image.pixels.data());
  const Style style = style_for(mat);
  for (const auto& box : boxes) {
    const Rgb colour = class_colour(box.class_id);
    const cv::Point p1(clamp_to(box.x1, mat.cols), clamp_to(box.y1, mat.rows));
    const cv::Point p2(clamp_to(box.x2, mat.cols), clamp_to(box.y2, mat.rows));
    cv::rectangle(mat, p1, p2, scalar(colour), style.line, cv::LINE_AA);
    if (!box.label.empty()) draw_label(mat, box.label, p1, colour, style);
  }
}

}  // namespace libreyolo::core::draw
