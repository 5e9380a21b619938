#pragma once
// The convolutions' weight gradients on a second CUDA stream (fused_kernels=weight_grad_stream;
// docs/fused-kernels.md, "Weight gradients on a second stream").
//
// A convolution's backward computes two things: the input gradient, which the next layer's
// backward waits for, and the weight gradient, which nothing needs until the optimizer. PyTorch
// runs both on one stream, so every weight gradient (YOLOv9-t: 227 a step, most on small
// tensors that leave most of the GPU idle) sits on the backward's critical path. Here the input
// gradient stays on the backward's stream and the weight (and bias) gradient goes to a second
// stream that waits only for its inputs; the two run side by side, and the backward's stream
// waits for the second one once, before the gradients are read. The kernels are the same ones
// with the same inputs, so the gradients are the same bits.
//
// It is used with the weight copies (weight_copies.hpp) only: there every convolution's weight
// is a leaf of its own that autograd hands its gradient to without a kernel, so nothing reads a
// gradient on the first stream before the join. The join checks that this held (a gradient
// that autograd copied instead of handing over is an error, not a silent race).
//
// This class is the bookkeeping; the streams are behind StreamOrder (CUDA events in CUDA builds,
// weight_gradient_stream_cuda.cpp, which also routes PyTorch's convolution backward here), so
// the bookkeeping is tested on the CPU with a fake order. The SDK's own convolution kernels
// (small_convolutions.hpp) never reach PyTorch's operator; they ask the same bookkeeping through
// the SDK's route (weight_gradient_route.hpp), which this class is while a Backward is alive.

#include <torch/types.h>

#include <cstddef>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "libreyolo/core/amp/weight_copies.hpp"
#include "libreyolo/sdk/weight_gradient_route.hpp"

namespace libreyolo::core::amp {

// How work is ordered between the backward's stream ("first") and the second stream.
class StreamOrder {
 public:
  virtual ~StreamOrder() = default;
  // How many layers may be in flight on the second stream: done events to mark them with.
  virtual std::size_t slots() const = 0;
  // The second stream runs nothing queued after this until the first has run what it has now.
  virtual void second_waits_for_first() = 0;
  // `work` queues its kernels on the second stream (the current stream while it runs).
  virtual void run_on_second(const std::function<void()>& work) = 0;
  // Marks what the second stream has queued so far with event `slot`.
  virtual void mark_done(std::size_t slot) = 0;
  // The first stream runs nothing queued after this until event `slot`'s work has run.
  virtual void first_waits_for(std::size_t slot) = 0;
  // The join: the first stream waits for all the second has queued.
  virtual void first_waits_for_second() = 0;
  // At a backward's start: the stream current now (the trainer's) is "first" for that backward.
  virtual void remember_first() {}
  // Whether the stream current now is that first stream. Autograd runs a layer's backward on the
  // stream its forward ran on; a layer of a branch run on a side stream (side_by_side.hpp) is not
  // routed: the held tensors are released once the first stream has waited, which orders nothing
  // for another stream.
  virtual bool current_is_first() const { return true; }
};

// A convolution backward's three results: input, weight and bias gradients.
using ConvolutionGradients = std::tuple<torch::Tensor, torch::Tensor, torch::Tensor>;

class WeightGradientStream final : public sdk::WeightGradientRoute {
 public:
  // How far the second stream may fall behind, in layers, before the first waits for it: each
  // layer behind keeps its input and output gradient alive a little longer.
  static constexpr std::size_t kMostLayersBehind = 8;

  // For the layers of `copies` on CUDA device `device`; null, with `refusal` saying why, where
  // this build or this LibTorch cannot (a CPU build; PyTorch refusing the routed kernel).
  static std::unique_ptr<WeightGradientStream> start(const WeightCopies& copies, int device, std::string& refusal);

  // `layers`: WeightCopies::unshared_layers(). `order` needs kMostLayersBehind + 1 slots or more.
  WeightGradientStream(std::vector<WeightCopies::LayerCopies> layers, std::unique_ptr<StreamOrder> order);
  ~WeightGradientStream() override;
  WeightGradientStream(const WeightGradientStream&) = delete;
  WeightGradientStream& operator=(const WeightGradientStream&) = delete;

  // The one inside a Backward now, or null: what the routed convolution backward asks.
  static WeightGradientStream* active();

  // Around one backward: while alive, this is active(). finish() makes the first stream wait for
  // the second and checks that autograd took every routed gradient as it was made (throws
  // std::logic_error if not); the destructor only waits (an exception is on its way).
  class Backward {
   public:
    explicit Backward(WeightGradientStream& stream);
    ~Backward();
    Backward(const Backward&) = delete;
    Backward& operator=(const Backward&) = delete;
    void finish();

   private:
    WeightGradientStream& stream_;
    bool finished_ = false;
  };

  // Whether a backward of a layer with `weight`, on the current stream, is routed: `weight` is one
  // of the routed layers' weight copies and the current stream is the backward's first stream.
  bool routes(const torch::Tensor& weight) const override;
  // The weight and bias gradients `work` computes (its input gradient is ignored), computed on
  // the second stream after the first stream's work so far. `input` and `grad_output` are held
  // until the first stream has waited for them.
  ConvolutionGradients on_second_stream(const torch::Tensor& weight, const torch::Tensor& grad_output,
                                        const torch::Tensor& input, const std::function<ConvolutionGradients()>& work);

  // The SDK's route: on_second_stream for a weight gradient alone.
  torch::Tensor weight_gradient_on_second_stream(const torch::Tensor& weight, const torch::Tensor& grad_output,
                                                 const torch::Tensor& input,
                                                 const std::function<torch::Tensor()>& work) override;

  // How many convolutions' weight gradients took the second stream in the last finished backward.
  std::size_t routed_last_backward() const { return routed_last_; }
  // Layers whose tensors are held now (at most kMostLayersBehind between routed layers).
  std::size_t held_layers() const;

 private:
  struct Pending {
    std::size_t slot;
    torch::Tensor input, grad_output;  // held until the first stream has waited for `slot`
  };
  struct Produced {
    std::size_t layer;
    const void *weight_grad, *bias_grad;
  };
  void begin_backward();
  void end_backward(bool check);
  void check_handed_over(const std::vector<Produced>& produced) const;

  std::vector<WeightCopies::LayerCopies> layers_;
  std::unordered_map<const void*, std::size_t> index_of_;  // weight copy's TensorImpl -> layer
  std::unique_ptr<StreamOrder> order_;
  mutable std::mutex mutex_;  // autograd runs CUDA backward work on its own device thread
  std::deque<Pending> pending_;
  std::vector<Produced> produced_;
  std::size_t next_slot_ = 0;
  std::size_t routed_last_ = 0;
};

}  // namespace libreyolo::core::amp
