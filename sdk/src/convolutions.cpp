// convolve: the SDK's convolution kernels in the order of how specific their shapes are.
#include "libreyolo/sdk/convolutions.hpp"

#include "libreyolo/sdk/image_convolutions.hpp"
#include "libreyolo/sdk/small_convolutions.hpp"

namespace libreyolo::sdk {

torch::Tensor convolve(torch::nn::Conv2d& conv, const torch::Tensor& x) {
  if (conv3x3_image_chosen(*conv, x)) return conv3x3_image(conv, x);
  return conv3x3_small(conv, x);  // itself conv->forward(x) unless its kernels take x
}

}  // namespace libreyolo::sdk
