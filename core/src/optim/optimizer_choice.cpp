#include "libreyolo/core/optim/optimizer_choice.hpp"

#include <stdexcept>

#include "libreyolo/core/optim/adamw.hpp"
#include "libreyolo/core/optim/sgd.hpp"

namespace libreyolo::core::optim {

std::unique_ptr<Optimizer> make_named_optimizer(const std::string& name, std::vector<ParamGroup> groups,
                                                double momentum, bool nesterov) {
  if (name == "adamw" || name == "adam") {
    AdamWOptions options;
    options.beta1 = momentum;
    options.decoupled_weight_decay = name == "adamw";  // adam: L2 decay through the gradient, as torch.optim.Adam
    return std::make_unique<AdamW>(std::move(groups), options);
  }
  if (name != "sgd") throw std::invalid_argument("unknown optimizer '" + name + "' (expected sgd, adam or adamw)");
  SgdOptions options;
  options.momentum = momentum;
  options.nesterov = nesterov;
  return std::make_unique<Sgd>(std::move(groups), options);
}

std::string optimizer_class_name(const std::string& name) {
  if (name == "adamw") return "AdamW";
  if (name == "adam") return "Adam";
  if (name == "sgd") return "SGD";
  throw std::invalid_argument("unknown optimizer '" + name + "' (expected sgd, adam or adamw)");
}

}  // namespace libreyolo::core::optim
