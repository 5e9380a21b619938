#pragma once
// The optimizers train's `optimizer=` names (LibreYOLO's three: sgd, adam, adamw), built from the
// option's value, and the class name a checkpoint records for each (torch.optim's: resume
// refuses a checkpoint whose optimizer differs).

#include <memory>
#include <string>
#include <vector>

#include "libreyolo/core/optim/optimizer.hpp"

namespace libreyolo::core::optim {

// momentum is SGD's momentum or Adam(W)'s beta1 (betas (momentum, 0.999)); nesterov is SGD's.
// Throws std::invalid_argument for a name that is none of the three (the option parser refuses
// those first).
std::unique_ptr<Optimizer> make_named_optimizer(const std::string& name, std::vector<ParamGroup> groups,
                                                double momentum, bool nesterov);

// "SGD", "Adam" or "AdamW".
std::string optimizer_class_name(const std::string& name);

}  // namespace libreyolo::core::optim
