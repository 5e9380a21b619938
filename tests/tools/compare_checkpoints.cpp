// Test tool: compares the weights (and EMA) of two checkpoint files.
// Usage: compare_checkpoints A.pt B.pt TOLERANCE   -> exit 0 when max |a - b| <= TOLERANCE.
#include <torch/torch.h>

#include <cstdlib>
#include <iostream>

#include "libreyolo/core/checkpoint/checkpoint_io.hpp"

int main(int argc, char** argv) {
  if (argc != 4) {
    std::cerr << "usage: compare_checkpoints A.pt B.pt TOLERANCE\n";
    return 2;
  }
  using namespace libreyolo::core::checkpoint;
  const auto a = load_checkpoint(argv[1]);
  const auto b = load_checkpoint(argv[2]);
  const double tolerance = std::atof(argv[3]);
  double worst = 0;
  std::string worst_name;
  for (const auto& item : a.model) {
    if (!b.model.contains(item.key())) {
      std::cerr << item.key() << " is missing from " << argv[2] << "\n";
      return 1;
    }
    const auto diff = (item.value().to(torch::kDouble) - b.model[item.key()].to(torch::kDouble)).abs();
    const double d = diff.numel() ? diff.max().item<double>() : 0;
    if (d > worst) {
      worst = d;
      worst_name = item.key();
    }
  }
  std::cout << "max |difference| " << worst << (worst_name.empty() ? "" : " at " + worst_name) << "\n";
  return worst <= tolerance ? 0 : 1;
}
