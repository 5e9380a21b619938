#pragma once
// torchvision.transforms.v2.RandomPhotometricDistort (SSD's photometric distortions) on a
// uint8 RGB image, in place, with the bytes torchvision's uint8 tensor kernels give
// (color_adjust.hpp says how).
//
// torchvision's order: brightness, contrast (when drawn "before"), saturation, hue, contrast
// (when drawn "after"), channel permutation. Each of the five is on with probability `prob`
// on its own. Split in two so the draws can be tested apart from the pixels: draw the
// parameters, then apply them.
//
// skip_without_boxes is handled by the draw: an image without boxes draws nothing and gets
// parameters that change nothing (D-FINE leaves such images out of its strong transforms).

#include <cstddef>
#include <random>

#include "libreyolo/core/data/augment/color_adjust.hpp"
#include "libreyolo/core/data/image/sample.hpp"
#include "libreyolo/sdk/augmentation.hpp"

namespace libreyolo::core::data {

struct PhotometricDistortParams {
  // Each adjustment with its factor, float32 as torchvision's kernels receive it.
  bool brightness = false, contrast = false, saturation = false, hue = false;
  float brightness_factor = 1.0f, contrast_factor = 1.0f, saturation_factor = 1.0f;
  float hue_factor = 0.0f;
  bool contrast_before = true;  // contrast before saturation and hue, else after them
  bool permute = false;
  ChannelOrder permutation{0, 1, 2};  // output channel c takes input channel permutation[c]

  bool changes_nothing() const { return !(brightness || contrast || saturation || hue || permute); }
};

// torchvision's _get_params from `rng`, in its order: for brightness, contrast, saturation and
// hue a U[0,1) < prob draw and, when on, the factor ~ U[low, high] (float32, as its
// uniform_); then contrast_before (U < 0.5); then U < prob for the permutation and, when on, a
// uniform permutation of the three channels (the identity among them, as torch.randperm).
// Throws libreyolo::core::Error for ranges torchvision's kernels would refuse (negative
// brightness / contrast / saturation, hue outside [-0.5, 0.5], low > high).
PhotometricDistortParams draw_photometric_distort(const sdk::augment::PhotometricDistort& config,
                                                  std::size_t box_count, std::mt19937_64& rng);

// Applies `params` to `image` in place. Brightness and contrast tables are folded into the
// next pass over the pixels, so the image is read 1 to 4 times whatever is on.
void apply_photometric_distort(MutableImageView image, const PhotometricDistortParams& params,
                               ColorScratch& scratch);

}  // namespace libreyolo::core::data
