#include "libreyolo/core/draw/box_style.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace libreyolo::core::draw {
namespace {

std::uint8_t to_byte(double unit) {
  return static_cast<std::uint8_t>(std::lround(std::clamp(unit, 0.0, 1.0) * 255.0));
}

// hue in [0, 1), the usual six-sector HSV to RGB.
Rgb from_hsv(double hue, double saturation, double value) {
  const double h6 = hue * 6.0;
  const int sector = static_cast<int>(std::floor(h6)) % 6;
  const double f = h6 - std::floor(h6);
  const double p = value * (1 - saturation), q = value * (1 - saturation * f), t = value * (1 - saturation * (1 - f));
  double r = value, g = t, b = p;
  switch (sector) {
    case 0: r = value, g = t, b = p; break;
    case 1: r = q, g = value, b = p; break;
    case 2: r = p, g = value, b = t; break;
    case 3: r = p, g = q, b = value; break;
    case 4: r = t, g = p, b = value; break;
    default: r = value, g = p, b = q; break;
  }
  return {to_byte(r), to_byte(g), to_byte(b)};
}

}  // namespace

Rgb class_colour(int class_id) {
  constexpr double kGoldenRatioConjugate = 0.6180339887498949;
  constexpr double kFirstHue = 0.02;  // class 0 (person in COCO) a warm red
  const double hue = std::fmod(kFirstHue + std::abs(static_cast<double>(class_id)) * kGoldenRatioConjugate, 1.0);
  // Alternating value keeps two ids whose hues land close (every 21st or so) apart anyway.
  const double value = (std::abs(class_id) / 3) % 2 == 0 ? 0.95 : 0.78;
  return from_hsv(hue, 0.85, value);
}

Rgb text_colour_on(Rgb background) {
  const double luma = 0.299 * background.r + 0.587 * background.g + 0.114 * background.b;
  return luma > 150.0 ? Rgb{0, 0, 0} : Rgb{255, 255, 255};
}

std::string label_text(const std::string& class_name, double confidence) {
  char score[32];
  std::snprintf(score, sizeof score, "%.2f", confidence);
  return class_name + " " + score;
}

int line_thickness(int width, int height) {
  const double mean_side = (std::max(width, 0) + std::max(height, 0)) / 2.0;
  return std::max(2, static_cast<int>(std::lround(mean_side * 0.003)));
}

}  // namespace libreyolo::core::draw
