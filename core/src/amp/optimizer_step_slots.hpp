#pragma once
// The table the fused optimizer step's kernels read (cuda/optimizer_step_kernels.hpp): a slot per
// tensor, every optimizer parameter first (its gradient where autograd left it: a float16 weight
// copy's own .grad or the parameter's; its momentum buffer), then the weight copies and the EMA's
// tensors attached to their parameter's slot, or given one of their own (the BatchNorm buffers the
// EMA averages, the integer ones it copies). Private to core/src/amp/.
#include <torch/types.h>

#include <cstddef>
#include <string>
#include <unordered_map>
#include <vector>

#include "cuda/optimizer_step_kernels.hpp"
#include "libreyolo/core/optim/model_ema.hpp"

namespace libreyolo::core::optim {
class Sgd;
}

namespace libreyolo::core::amp {

class WeightCopies;

// The slots of one step: every parameter of the optimizer (updated where it has a gradient),
// then the copies and the EMA's tensors attached to their parameter's slot or given their own.
class OptimizerSlotTable {
 public:
  std::vector<fused::OptimizerSlot> slots;
  std::string why;  // set: this step cannot be fused (then the slots are incomplete)

  void add_parameters(optim::Sgd& sgd, const WeightCopies* copies);
  void add_copies(const WeightCopies& copies);
  void add_averages(const optim::ModelEma::Averages& averages);
  // The slots that have a gradient: what the check reads.
  std::vector<fused::OptimizerSlot> with_gradients() const;

 private:
  std::unordered_map<const void*, std::size_t> index_;  // a tensor's slot, by TensorImpl

  fused::OptimizerSlot& new_slot(const torch::Tensor& source);
  fused::OptimizerSlot& slot_for(const torch::Tensor& source);
  void attach_gradient(fused::OptimizerSlot& slot, const torch::Tensor& grad, const torch::Tensor& momentum, int group,
                       const torch::Tensor& p);
  void add_integer_copy(const torch::Tensor& source, const torch::Tensor& average);
};

}  // namespace libreyolo::core::amp
