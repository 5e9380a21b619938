// The canvas's rasterising with OpenCV imgproc on a cv::Mat header over our RGB pixels (no copy).
#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <cmath>

#include "libreyolo/core/draw/canvas.hpp"

namespace libreyolo::core::draw {
namespace {

constexpr int kFont = cv::FONT_HERSHEY_SIMPLEX;

cv::Scalar scalar(Rgb colour) { return {double(colour.r), double(colour.g), double(colour.b)}; }

// Far outside coordinates (a value of 1e30 on a chart) would overflow OpenCV's int maths.
cv::Point pixel(Point p) {
  const auto clamp = [](double v) { return std::isfinite(v) ? std::clamp(v, -1e6, 1e6) : 0.0; };
  return {static_cast<int>(std::lround(clamp(p.x))), static_cast<int>(std::lround(clamp(p.y)))};
}

cv::Mat view(data::Image& image) { return cv::Mat(image.height, image.width, CV_8UC3, image.pixels.data()); }

int font_thickness(double scale) { return std::max(1, static_cast<int>(std::lround(scale * 1.5))); }

}  // namespace

void Canvas::line(Point from, Point to, Rgb colour, int thickness) {
  auto mat = view(image_);
  cv::line(mat, pixel(from), pixel(to), scalar(colour), thickness, cv::LINE_AA);
}

void Canvas::polyline(const std::vector<Point>& points, Rgb colour, int thickness) {
  if (points.size() < 2) {
    if (points.size() == 1) dot(points.front(), thickness + 1, colour);
    return;
  }
  std::vector<cv::Point> pixels;
  for (const auto& p : points) pixels.push_back(pixel(p));
  auto mat = view(image_);
  cv::polylines(mat, pixels, false, scalar(colour), thickness, cv::LINE_AA);
}

void Canvas::rectangle(Point corner, Point opposite, Rgb colour, int thickness) {
  auto mat = view(image_);
  cv::rectangle(mat, pixel(corner), pixel(opposite), scalar(colour), thickness < 0 ? cv::FILLED : thickness,
                cv::LINE_AA);
}

void Canvas::dot(Point centre, int radius, Rgb colour) {
  auto mat = view(image_);
  cv::circle(mat, pixel(centre), radius, scalar(colour), cv::FILLED, cv::LINE_AA);
}

void Canvas::text(const std::string& text, Point bottom_left, double scale, Rgb colour) {
  auto mat = view(image_);
  cv::putText(mat, text, pixel(bottom_left), kFont, scale, scalar(colour), font_thickness(scale), cv::LINE_AA);
}

int Canvas::text_width(const std::string& text, double scale) const {
  int baseline = 0;
  return cv::getTextSize(text, kFont, scale, font_thickness(scale), &baseline).width;
}

void Canvas::text_upwards(const std::string& text, Point top_centre, double scale, Rgb colour) {
  // OpenCV writes horizontally only: the text goes into a mask, the mask is turned, and the
  // colour is blended through it (the antialiased edges stay smooth on any background).
  int baseline = 0;
  const int thickness = font_thickness(scale);
  const cv::Size size = cv::getTextSize(text, kFont, scale, thickness, &baseline);
  cv::Mat mask = cv::Mat::zeros(size.height + baseline + 2, size.width + 2, CV_8UC1);
  cv::putText(mask, text, {1, size.height + 1}, kFont, scale, cv::Scalar(255), thickness, cv::LINE_AA);
  cv::Mat turned;
  cv::rotate(mask, turned, cv::ROTATE_90_COUNTERCLOCKWISE);
  const cv::Point origin = pixel({top_centre.x - turned.cols / 2.0, top_centre.y});
  const double ink[3] = {double(colour.r), double(colour.g), double(colour.b)};
  for (int row = 0; row < turned.rows; ++row) {
    const int y = origin.y + row;
    if (y < 0 || y >= image_.height) continue;
    for (int col = 0; col < turned.cols; ++col) {
      const int x = origin.x + col;
      const double alpha = turned.at<std::uint8_t>(row, col) / 255.0;
      if (x < 0 || x >= image_.width || alpha == 0) continue;
      std::uint8_t* p = image_.pixel(x, y);
      for (int c = 0; c < 3; ++c) p[c] = static_cast<std::uint8_t>(std::lround(p[c] * (1 - alpha) + ink[c] * alpha));
    }
  }
}

}  // namespace libreyolo::core::draw
