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

#include <cstddef>
#include <memory>
#include <string>

namespace libreyolo::core::amp {

class WeightCopies;

class WeightGradientStream {
 public:
  virtual ~WeightGradientStream() = default;

  // For the layers of `copies` on CUDA device `device`; null, with `refusal` saying why, where
  // this build or this LibTorch cannot (a CPU build; PyTorch refusing the routed kernel).
  static std::unique_ptr<WeightGradientStream> start(const WeightCopies& copies, int device, std::string& refusal);

  // Around one backward: while alive, the eligible convolutions' weight gradients go to the
  // second stream. finish() makes the current stream wait for it and checks that autograd took
  // every such gradient as it was; the destructor only waits (an exception is on its way).
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

  // How many convolutions' weight gradients took the second stream in the last finished backward.
  virtual std::size_t routed_last_backward() const = 0;

 protected:
  virtual void begin_backward() = 0;
  // `check`: whether to verify the hand-over (false on the exception path).
  virtual void end_backward(bool check) = 0;
};

}  // namespace libreyolo::core::amp
