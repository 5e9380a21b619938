#include "libreyolo/core/draw/colour_scale.hpp"

#include <array>
#include <cmath>
#include <cstddef>

namespace libreyolo::core::draw {
namespace {

// ColorBrewer's Blues with 9 classes, the stops matplotlib's "Blues" interpolates between.
constexpr std::array<Rgb, 9> kBlues = {Rgb{247, 251, 255}, Rgb{222, 235, 247}, Rgb{198, 219, 239},
                                       Rgb{158, 202, 225}, Rgb{107, 174, 214}, Rgb{66, 146, 198},
                                       Rgb{33, 113, 181},  Rgb{8, 81, 156},    Rgb{8, 48, 107}};

std::uint8_t mix(std::uint8_t a, std::uint8_t b, double t) {
  return static_cast<std::uint8_t>(std::lround(a + (b - a) * t));
}

}  // namespace

Rgb blues(double value) {
  const double v = std::isnan(value) ? 0.0 : std::fmin(1.0, std::fmax(0.0, value));
  const double position = v * (kBlues.size() - 1);
  const auto low = static_cast<std::size_t>(std::floor(position));
  if (low + 1 >= kBlues.size()) return kBlues.back();
  const double t = position - static_cast<double>(low);
  const Rgb a = kBlues[low], b = kBlues[low + 1];
  return {mix(a.r, b.r, t), mix(a.g, b.g, t), mix(a.b, b.b, t)};
}

}  // namespace libreyolo::core::draw
