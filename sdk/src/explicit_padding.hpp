#pragma once
// The explicit padding of a convolution's options (nullptr for 'valid' or 'same'), for the
// SDK's convolution dispatchers (stacked_convolutions.cpp, small_convolutions.cpp). LibTorch 1.13
// holds it in a c10::variant and 2.x in a std::variant: the unqualified visit below finds each
// one's own visit through the variant's namespace.

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

}  // namespace libreyolo::sdk::detail
