#pragma once
// Low-precision copies of the convolution weights, kept beside the float32 weights the optimizer
// updates (fused_kernels=weight_casts; docs/fused-kernels.md, "Weight casts").
//
// Under autocast every convolution casts its float32 weight to float16 in the forward (one
// kernel per layer: 227 in YOLOv9-t), and the backward casts each weight gradient back to
// float32 (another 227). Those ~450 tiny kernels are about a twentieth of a captured step's GPU
// time and a tenth of its kernels. Here the forward reads float16 copies made once per optimizer
// step (one multi-tensor launch for all layers), and the copies' gradients go back to the
// float32 weights' .grad in one launch after the backward. The arithmetic is the same: the copy
// is the cast autocast would have made (round to nearest), the gradient the convolution
// computes for it is the same, and its conversion to float32 is exact; so losses and gradients
// are autocast's bit for bit (tests/unit/amp/test_weight_copies.cpp; bench fused on the GPU).

#include <torch/types.h>

#include <cstddef>
#include <memory>
#include <vector>

namespace torch::nn {
class Module;
class Conv2dImpl;
}  // namespace torch::nn

namespace libreyolo::core::amp {

class WeightCopies {
 public:
  // Every torch::nn::Conv2d in `model` whose weight (and bias, if any) trains and is float32
  // gets a copy in `dtype`, in the same memory format. Made stale: the first forward fills them.
  WeightCopies(torch::nn::Module& model, torch::ScalarType dtype);
  ~WeightCopies();
  WeightCopies(const WeightCopies&) = delete;
  WeightCopies& operator=(const WeightCopies&) = delete;

  std::size_t layers() const { return layers_.size(); }
  std::size_t tensors() const { return copies_.size(); }
  // The registered float32 tensors and their copies, index for index (the fused optimizer step
  // reads the copies' gradients and refreshes the copies itself).
  const std::vector<torch::Tensor>& masters() const { return masters_; }
  const std::vector<torch::Tensor>& copies() const { return copies_; }

  // The copies take the weights' current values (one launch; device work only, so a recorded
  // step may hold it). Call after every change of the weights: the optimizer step.
  void refresh();
  // The weights changed outside a step (a checkpoint loaded, benchmark weights restored): the
  // next forward refreshes first.
  void mark_stale() { stale_ = true; }
  // Outside a recorded step, before a replay: a replay runs no host code, so it cannot notice.
  void refresh_if_stale() {
    if (stale_) refresh();
  }

  // While alive, the layers' `weight` and `bias` members are the copies (their registered
  // parameters stay the float32 tensors: checkpoints, the EMA and the optimizer never see the
  // copies). Refreshes first if stale and drops any gradient a failed step left in the copies.
  // Restores the members on exit, exceptions included.
  class Swap {
   public:
    explicit Swap(WeightCopies& copies);
    ~Swap();
    Swap(const Swap&) = delete;
    Swap& operator=(const Swap&) = delete;

   private:
    WeightCopies& copies_;
  };

  // After a backward that ran under a Swap: the copies' gradients added into the weights'
  // .grad (made where undefined, as autograd's accumulation would make it), in float32, and the
  // copies' .grad dropped. One launch when every weight's .grad was undefined, two otherwise.
  void pass_gradients();

  // The copies of each layer whose weight no other layer shares (bias undefined where the layer
  // has none or shares it): the layers whose gradients autograd hands to their copy's .grad as
  // the convolution made them, with no addition (weight_gradient_stream.hpp relies on it).
  struct LayerCopies {
    torch::Tensor weight, bias;
  };
  std::vector<LayerCopies> unshared_layers() const;

 private:
  struct Layer {
    torch::nn::Conv2dImpl* conv;
    std::size_t weight, bias;  // indices into masters_/copies_; bias == kNone without one
  };
  static constexpr std::size_t kNone = static_cast<std::size_t>(-1);

  void point_members_at(const std::vector<torch::Tensor>& tensors);

  std::vector<std::shared_ptr<torch::nn::Module>> owners_;  // keeps the layers alive
  std::vector<Layer> layers_;
  std::vector<torch::Tensor> masters_;  // the registered float32 parameters
  std::vector<torch::Tensor> copies_;   // leaves in `dtype` that require grad
  bool stale_ = true;
};

}  // namespace libreyolo::core::amp
