#include "libreyolo/core/data/augment/photometric_distort.hpp"

#include <string>
#include <utility>

#include "libreyolo/core/data/augment/random.hpp"
#include "libreyolo/core/error.hpp"

namespace libreyolo::core::data {
namespace {

using sdk::Range;

std::string describe(const Range& range) {
  return "(" + std::to_string(range.low) + ", " + std::to_string(range.high) + ")";
}

void check_range(const Range& range, const char* name, double min, double max) {
  if (range.low >= min && range.high <= max && range.low <= range.high) return;
  throw Error(std::string("photometric distort: the ") + name + " range " + describe(range) +
                  " is not usable",
              "torchvision's kernels take " + std::string(name) + " factors in [" +
                  std::to_string(min) + ", " + std::to_string(max) + "] and low <= high",
              std::string("set the ") + name + " range inside those bounds");
}

void check_config(const sdk::augment::PhotometricDistort& config) {
  constexpr double kUnbounded = 1e30;
  check_range(config.brightness, "brightness", 0.0, kUnbounded);
  check_range(config.contrast, "contrast", 0.0, kUnbounded);
  check_range(config.saturation, "saturation", 0.0, kUnbounded);
  check_range(config.hue, "hue", -0.5, 0.5);
}

// torch.rand(1) < p: a float32 draw against p rounded to float32.
bool torch_chance(std::mt19937_64& rng, double p) {
  return uniform01_f32(rng) < static_cast<float>(p);
}

// torch.empty(1).uniform_(low, high).item(): the ends as float32, their difference in float32,
// the affine map in double, the result stored as float32 (it can round up to `high`).
float torch_uniform(std::mt19937_64& rng, const Range& range) {
  const float low = static_cast<float>(range.low);
  const float span = static_cast<float>(range.high) - low;
  const double u = uniform01_f32(rng);
  return static_cast<float>(u * span + low);
}

// Draws whether one adjustment is on and, if so, its factor.
void draw_adjustment(std::mt19937_64& rng, double prob, const Range& range, bool& on,
                     float& factor) {
  on = torch_chance(rng, prob);
  if (on) factor = torch_uniform(rng, range);
}

// torch.randperm(3) on the CPU: Fisher-Yates from the front.
ChannelOrder random_channel_order(std::mt19937_64& rng) {
  ChannelOrder order{0, 1, 2};
  for (int i = 0; i < 2; ++i) {
    const int j = uniform_int(rng, i, 2);
    std::swap(order[static_cast<std::size_t>(i)], order[static_cast<std::size_t>(j)]);
  }
  return order;
}

}  // namespace

PhotometricDistortParams draw_photometric_distort(const sdk::augment::PhotometricDistort& config,
                                                  std::size_t box_count, std::mt19937_64& rng) {
  check_config(config);
  PhotometricDistortParams params;
  if (config.skip_without_boxes && box_count == 0) return params;
  draw_adjustment(rng, config.prob, config.brightness, params.brightness, params.brightness_factor);
  draw_adjustment(rng, config.prob, config.contrast, params.contrast, params.contrast_factor);
  draw_adjustment(rng, config.prob, config.saturation, params.saturation, params.saturation_factor);
  draw_adjustment(rng, config.prob, config.hue, params.hue, params.hue_factor);
  params.contrast_before = torch_chance(rng, 0.5);
  params.permute = torch_chance(rng, config.prob);
  if (params.permute) params.permutation = random_channel_order(rng);
  return params;
}

void apply_photometric_distort(MutableImageView image, const PhotometricDistortParams& params,
                               ColorScratch& scratch) {
  const ImageView current{image.width, image.height, image.pixels};
  // A table not yet written to the pixels: the next pass reads through it.
  ChannelMap pending;
  if (params.brightness) pending = brightness_map(params.brightness_factor);
  auto add_contrast = [&] {
    // The mean is that of the image as it stands, i.e. with `pending` applied.
    const ChannelMap contrast = contrast_map(gray_mean(current, pending), params.contrast_factor);
    pending = ChannelMap::compose(contrast, pending);
  };
  if (params.contrast && params.contrast_before) add_contrast();
  if (params.saturation) {
    saturate(image, params.saturation_factor, pending, scratch);
    pending = ChannelMap::none();
  }
  if (params.hue) {
    shift_hue(image, params.hue_factor, pending);
    pending = ChannelMap::none();
  }
  if (params.contrast && !params.contrast_before) add_contrast();
  remap(image, pending, params.permute ? params.permutation : ChannelOrder{0, 1, 2});
}

}  // namespace libreyolo::core::data
