// Test tool: compares the weights (and EMA) of two checkpoint files.
// Usage: compare_checkpoints A.pt B.pt TOLERANCE [PREFIX]
//   -> exit 0 when max |a - b| <= TOLERANCE over the model tensors (only those whose names start
//      with PREFIX, when given: "backbone." checks what freeze= froze); 2 when PREFIX names none.
#include <torch/torch.h>

#include <cstdlib>
#include <iostream>
#include <string>

#include "libreyolo/core/checkpoint/checkpoint_io.hpp"

int main(int argc, char** argv) {
  if (argc != 4 && argc != 5) {
    std::cerr << "usage: compare_checkpoints A.pt B.pt TOLERANCE [PREFIX]\n";
    return 2;
  }
  using namespace libreyolo::core::checkpoint;
  const auto a = load_checkpoint(argv[1]);
  const auto b = load_checkpoint(argv[2]);
  const double tolerance = std::atof(argv[3]);
  const std::string prefix = argc == 5 ? argv[4] : "";
  double worst = 0;
  std::string worst_name;
  int compared = 0;
  for (const auto& item : a.model) {
    if (item.key().rfind(prefix, 0) != 0) continue;
    if (!b.model.contains(item.key())) {
      std::cerr << item.key() << " is missing from " << argv[2] << "\n";
      return 1;
    }
    ++compared;
    const auto diff = (item.value().to(torch::kDouble) - b.model[item.key()].to(torch::kDouble)).abs();
    const double d = diff.numel() ? diff.max().item<double>() : 0;
    if (d > worst) {
      worst = d;
      worst_name = item.key();
    }
  }
  if (compared == 0) {
    std::cerr << "no tensor of " << argv[1] << " starts with '" << prefix << "'\n";
    return 2;
  }
  std::cout << "max |difference| " << worst << (worst_name.empty() ? "" : " at " + worst_name) << " over " << compared
            << " tensors" << (prefix.empty() ? "" : " named " + prefix + "*") << "\n";
  return worst <= tolerance ? 0 : 1;
}
