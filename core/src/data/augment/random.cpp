#include "libreyolo/core/data/augment/random.hpp"

#include <cmath>

namespace libreyolo::core::data {
namespace {

double standard_normal(std::mt19937_64& rng) {
  // Box-Muller; 1 - u keeps the logarithm's argument in (0, 1].
  const double u1 = 1.0 - uniform01(rng);
  const double u2 = uniform01(rng);
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
}

// Gamma(shape, 1) by Marsaglia and Tsang's squeeze method (shape >= 1); smaller shapes use the
// boost Gamma(shape) = Gamma(shape + 1) * U^(1 / shape).
double gamma_sample(std::mt19937_64& rng, double shape) {
  if (shape < 1.0) {
    const double u = 1.0 - uniform01(rng);
    return gamma_sample(rng, shape + 1.0) * std::pow(u, 1.0 / shape);
  }
  const double d = shape - 1.0 / 3.0;
  const double c = 1.0 / std::sqrt(9.0 * d);
  for (;;) {
    const double x = standard_normal(rng);
    double v = 1.0 + c * x;
    if (v <= 0.0) continue;
    v = v * v * v;
    const double u = 1.0 - uniform01(rng);
    if (std::log(u) < 0.5 * x * x + d - d * v + d * std::log(v)) return d * v;
  }
}

}  // namespace

double beta_sample(std::mt19937_64& rng, double a, double b) {
  const double x = gamma_sample(rng, a);
  const double y = gamma_sample(rng, b);
  return x / (x + y);
}

}  // namespace libreyolo::core::data
