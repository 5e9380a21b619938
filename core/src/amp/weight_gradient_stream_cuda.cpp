// CUDA builds only (core/CMakeLists.txt). The convolutions' weight gradients on a second stream
// (weight_gradient_stream.hpp says why).
//
// How: PyTorch's convolution backward is one operator (aten::convolution_backward) that autograd
// calls through the dispatcher with a mask of the gradients it wants. A kernel of ours is
// registered for it on CUDA in place of PyTorch's; outside a Backward it calls PyTorch's CUDA
// kernel (at::native::convolution_backward under a device guard, what PyTorch registers) as it
// was called. Inside one, for a layer whose weight is one of the weight copies, it
// asks PyTorch's kernel for the input gradient on the current stream, then for the weight and
// bias gradients on the second stream, which first waits for the current one (the output
// gradient is written by then).
//
// The bookkeeping (what is routed, what is held for how long, the hand-over check) is
// WeightGradientStream's (weight_gradient_stream.cpp); here are the CUDA events that order the
// two streams and the routed kernel.
#include <ATen/DeviceGuard.h>
#include <ATen/ops/convolution_backward_native.h>
#include <ATen/ops/convolution_backward_ops.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#include <c10/util/Exception.h>
#include <cuda_runtime_api.h>
#include <torch/library.h>

#include <array>
#include <mutex>
#include <stdexcept>
#include <type_traits>
#include <vector>

#include "libreyolo/core/amp/weight_gradient_stream.hpp"
#include "libreyolo/sdk/cuda/ordering_event.hpp"

namespace libreyolo::core::amp {
namespace {

using sdk::cuda::OrderingEvent;

void check_cuda(cudaError_t status, const char* what) {
  if (status != cudaSuccess) {
    throw std::runtime_error(std::string("weight_grad_stream: ") + what + " failed: " + cudaGetErrorString(status));
  }
}

// The two streams of one device, ordered by events (in a recorded graph they become its edges).
// "First" is the stream current when the backward began (the trainer's, which autograd runs the
// backward of the trainer's own forward work on).
// The second is a stream of our own, not one of PyTorch's pool: a pool stream may be another
// thread's (the loader's upload stream), and that thread's work would be recorded into the
// step's graph. It has the lowest priority: the backward's own kernels go first where both are
// ready. Made on the current device (start() sets it).
class CudaStreamOrder final : public StreamOrder {
 public:
  explicit CudaStreamOrder(int device) : device_(static_cast<c10::DeviceIndex>(device)), second_(own_stream(device_)) {}
  ~CudaStreamOrder() override {
    cudaStreamSynchronize(second_.stream());  // eager work on it ends first; graphs keep no reference
    cudaStreamDestroy(second_.stream());
  }
  std::size_t slots() const override { return done_.size(); }
  void second_waits_for_first() override {
    ready_.record(first());
    ready_.block(second_.stream());
  }
  void run_on_second(const std::function<void()>& work) override {
    const c10::cuda::CUDAStreamGuard on_second(second_);
    work();
  }
  void mark_done(std::size_t slot) override { done_.at(slot).record(second_.stream()); }
  void first_waits_for(std::size_t slot) override { done_.at(slot).block(first()); }
  void first_waits_for_second() override {
    joined_.record(second_.stream());
    joined_.block(first());
  }
  void remember_first() override { first_ = c10::cuda::getCurrentCUDAStream(device_); }
  bool current_is_first() const override { return c10::cuda::getCurrentCUDAStream(device_) == first_; }

 private:
  static c10::cuda::CUDAStream own_stream(c10::DeviceIndex device) {
    int least = 0, greatest = 0;
    check_cuda(cudaDeviceGetStreamPriorityRange(&least, &greatest), "cudaDeviceGetStreamPriorityRange");
    cudaStream_t stream = nullptr;
    check_cuda(cudaStreamCreateWithPriority(&stream, cudaStreamNonBlocking, least), "cudaStreamCreateWithPriority");
    return c10::cuda::getStreamFromExternal(stream, device);
  }
  cudaStream_t first() const { return first_.stream(); }

  c10::DeviceIndex device_;
  c10::cuda::CUDAStream second_;
  c10::cuda::CUDAStream first_ = c10::cuda::getCurrentCUDAStream(device_);
  OrderingEvent ready_, joined_;
  std::array<OrderingEvent, WeightGradientStream::kMostLayersBehind + 2> done_;
};

// The gradient both halves of a split convolution backward read: PyTorch's kernel makes a
// non-dense gradient dense for itself (a channel range of a concatenation's gradient, as the
// detectors' heads give), so with the input and weight gradients as two calls it would copy it
// twice (`bench step op_callers=aten::copy_` showed two copies per such layer a step). One copy
// here, in the input's layout, serves both with the same values.
at::Tensor dense_for_both(const at::Tensor& grad_output, const at::Tensor& input, bool input_gradient_too) {
  if (!input_gradient_too || grad_output.is_contiguous(grad_output.suggest_memory_format())) return grad_output;
  return grad_output.contiguous(input.suggest_memory_format());
}

// Registered for aten::convolution_backward on CUDA (register_routed_kernel). Its parameters are
// the operator's, as this LibTorch declares them (checked below).
ConvolutionGradients routed_convolution_backward(const at::Tensor& grad_output, const at::Tensor& input,
                                                 const at::Tensor& weight, at::OptionalSymIntArrayRef bias_sizes,
                                                 c10::SymIntArrayRef stride, c10::SymIntArrayRef padding,
                                                 c10::SymIntArrayRef dilation, bool transposed,
                                                 c10::SymIntArrayRef output_padding, c10::SymInt groups,
                                                 std::array<bool, 3> output_mask) {
  // PyTorch's own CUDA kernel, as its registration calls it: on the gradient's device, with
  // the sizes as plain integers (a training step's are never symbolic).
  const c10::OptionalDeviceGuard device_guard(at::device_of(grad_output));
  at::OptionalIntArrayRef bias_ints;
  if (bias_sizes.has_value()) bias_ints = C10_AS_INTARRAYREF_SLOW(*bias_sizes);
  const auto pytorch = [&](const at::Tensor& gradient, std::array<bool, 3> mask) {
    return at::native::convolution_backward(gradient, input, weight, bias_ints, C10_AS_INTARRAYREF_SLOW(stride),
                                            C10_AS_INTARRAYREF_SLOW(padding), C10_AS_INTARRAYREF_SLOW(dilation),
                                            transposed, C10_AS_INTARRAYREF_SLOW(output_padding),
                                            groups.guard_int(__FILE__, __LINE__), mask);
  };
  auto* stream = WeightGradientStream::active();
  const bool wants_weight_side = output_mask[1] || output_mask[2];
  if (stream == nullptr || !wants_weight_side || !stream->routes(weight)) return pytorch(grad_output, output_mask);
  const auto gradient = dense_for_both(grad_output, input, output_mask[0]);
  at::Tensor grad_input;
  if (output_mask[0]) grad_input = std::get<0>(pytorch(gradient, {true, false, false}));
  auto weight_side = stream->on_second_stream(weight, gradient, input,
                                              [&] { return pytorch(gradient, {false, output_mask[1], output_mask[2]}); });
  return {grad_input, std::get<1>(weight_side), std::get<2>(weight_side)};
}
static_assert(std::is_same_v<decltype(&routed_convolution_backward), at::_ops::convolution_backward::schema*>,
              "aten::convolution_backward's C++ signature changed in this LibTorch: update the routed kernel");

// Registration warns that a kernel is replaced: that is the point here.
class SilentWarnings final : public c10::WarningHandler {
 public:
  void process(const c10::Warning&) override {}
};

// Once per process, kept for its life: while no Backward is active the routed kernel is PyTorch's
// own call, and taking it out again while autograd's thread may be inside it is not worth it.
void register_routed_kernel() {
  static std::once_flag once;
  std::call_once(once, [] {
    SilentWarnings silent;
    const c10::WarningUtils::WarningHandlerGuard quiet(&silent);
    auto* library = new torch::Library(torch::Library::IMPL, "aten", c10::DispatchKey::CUDA, __FILE__, __LINE__);
    library->impl("convolution_backward", TORCH_FN(routed_convolution_backward));  // never deleted: see above
  });
}

}  // namespace

std::unique_ptr<WeightGradientStream> WeightGradientStream::start(const WeightCopies& copies, int device,
                                                                  std::string& refusal) {
  auto layers = copies.unshared_layers();
  if (layers.empty()) {
    refusal = "no convolution has a weight copy of its own";
    return nullptr;
  }
  try {
    const c10::cuda::CUDAGuard on_device(static_cast<c10::DeviceIndex>(device));  // the stream and events
    auto order = std::make_unique<CudaStreamOrder>(device);
    register_routed_kernel();
    return std::make_unique<WeightGradientStream>(std::move(layers), std::move(order));
  } catch (const std::exception& e) {
    refusal = e.what();
    return nullptr;
  }
}

}  // namespace libreyolo::core::amp
