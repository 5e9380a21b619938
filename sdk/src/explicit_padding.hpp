#pragma once
// The explicit padding of a convolution's options (nullptr for 'valid' or 'same'), for the
// SDK's convolution dispatchers (stacked_convolutions.cpp, small_convolutions.cpp). LibTorch 1.13
// holds it in a c10::variant and 2.x in a std::variant: the unqualified visit below finds each
// one's own visit through the variant's namespace.

#include <torch/enum.h>
#include <torch/nn/modules/conv.h>

namespace libreyolo::sdk::detail {

struct ExplicitPadding {
  const torch::ExpandingArray<2>* found = nullptr;
  void operator()(const torch::ExpandingArray<2>& padding) { found = &padding; }
  template <class Other>
  void operator()(const Other&) {}
};

template <class Variant>
const torch::ExpandingArray<2>* explicit_padding(const Variant& padding) {
  ExplicitPadding finder;
  visit(finder, padding);
  return finder.found;
}

// Whether a convolution pads by exactly one zero on every side (what the SDK's 3x3 kernels take).
inline bool zero_padding_one(const torch::nn::detail::ConvNdOptions<2>& options) {
  const auto* padding = explicit_padding(options.padding());
  return padding != nullptr && (**padding)[0] == 1 && (**padding)[1] == 1 &&
         torch::enumtype::get_enum_name(options.padding_mode()) == "kZeros";
}

}  // namespace libreyolo::sdk::detail
