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
// Memory: the second stream reads the layer's input and output gradient after autograd may have
// let them go; the caching allocator would hand their memory to the next tensor of the first
// stream while the second still reads it. So each routed layer's two tensors are held until the
// first stream has waited for that layer's weight gradient: at the latest kMostLayersBehind
// layers later, or at the join.
#include <ATen/ops/convolution_backward_native.h>
#include <ATen/ops/convolution_backward_ops.h>
#include <ATen/DeviceGuard.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#include <c10/util/Exception.h>
#include <cuda_runtime_api.h>
#include <torch/library.h>

#include <array>
#include <atomic>
#include <deque>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <type_traits>
#include <unordered_map>
#include <vector>

#include "libreyolo/core/amp/weight_copies.hpp"
#include "libreyolo/core/amp/weight_gradient_stream.hpp"

namespace libreyolo::core::amp {
namespace {

// How far the second stream may fall behind, in layers, before the backward's stream waits for
// it: each layer behind keeps its input and output gradient alive a little longer.
constexpr std::size_t kMostLayersBehind = 8;

void check_cuda(cudaError_t status, const char* what) {
  if (status != cudaSuccess) {
    throw std::runtime_error(std::string("weight_grad_stream: ") + what + " failed: " + cudaGetErrorString(status));
  }
}

// An event without timing (the cheapest kind), for ordering streams only.
class OrderingEvent {
 public:
  OrderingEvent() { check_cuda(cudaEventCreateWithFlags(&event_, cudaEventDisableTiming), "cudaEventCreateWithFlags"); }
  ~OrderingEvent() { cudaEventDestroy(event_); }
  OrderingEvent(const OrderingEvent&) = delete;
  OrderingEvent& operator=(const OrderingEvent&) = delete;
  // `waiter` runs nothing queued after this until `producer` has run what is queued on it now.
  void order(const c10::cuda::CUDAStream& producer, const c10::cuda::CUDAStream& waiter) {
    check_cuda(cudaEventRecord(event_, producer.stream()), "cudaEventRecord");
    check_cuda(cudaStreamWaitEvent(waiter.stream(), event_, 0), "cudaStreamWaitEvent");
  }
  void record(const c10::cuda::CUDAStream& producer) {
    check_cuda(cudaEventRecord(event_, producer.stream()), "cudaEventRecord");
  }
  void block(const c10::cuda::CUDAStream& waiter) {
    check_cuda(cudaStreamWaitEvent(waiter.stream(), event_, 0), "cudaStreamWaitEvent");
  }

 private:
  cudaEvent_t event_ = nullptr;
};

// A stream of our own, not one of PyTorch's pool: a pool stream may be another thread's (the
// loader's upload stream), and that thread's work would be recorded into the step's graph.
// The lowest priority: the backward's own kernels go first where both are ready.
// On the current device (start() sets it).
c10::cuda::CUDAStream own_stream(int device) {
  int least = 0, greatest = 0;
  check_cuda(cudaDeviceGetStreamPriorityRange(&least, &greatest), "cudaDeviceGetStreamPriorityRange");
  cudaStream_t stream = nullptr;
  check_cuda(cudaStreamCreateWithPriority(&stream, cudaStreamNonBlocking, least), "cudaStreamCreateWithPriority");
  return c10::cuda::getStreamFromExternal(stream, static_cast<c10::DeviceIndex>(device));
}

using Gradients = std::tuple<at::Tensor, at::Tensor, at::Tensor>;

class CudaWeightGradientStream final : public WeightGradientStream {
 public:
  CudaWeightGradientStream(std::vector<WeightCopies::LayerCopies> layers, int device);
  ~CudaWeightGradientStream() override;

  std::size_t routed_last_backward() const override { return routed_last_; }
  bool routes(const at::Tensor& weight) const {
    return weight.device().index() == device_ && index_of_.count(weight.unsafeGetTensorImpl()) != 0;
  }
  // The weight and bias gradients `work` computes, computed on the second stream.
  template <class Work>
  Gradients on_second_stream(const at::Tensor& weight, const at::Tensor& grad_output, const at::Tensor& input,
                             const Work& work);

 protected:
  void begin_backward() override;
  void end_backward(bool check) override;

 private:
  struct Pending {
    std::size_t event;
    at::Tensor input, grad_output;  // held until the first stream has waited for `event`
  };
  struct Produced {
    std::size_t layer;
    const void *weight_grad, *bias_grad;
  };
  void wait_for_oldest(const c10::cuda::CUDAStream& first);
  void check_handed_over(const std::vector<Produced>& produced) const;

  std::vector<WeightCopies::LayerCopies> layers_;
  std::unordered_map<const void*, std::size_t> index_of_;  // weight copy's TensorImpl -> layer
  int device_;
  c10::cuda::CUDAStream second_;
  OrderingEvent ready_, joined_;
  std::array<OrderingEvent, kMostLayersBehind + 2> done_;  // one per pending layer, as a ring
  std::size_t next_done_ = 0;
  std::mutex mutex_;  // autograd runs CUDA backward work on its own device thread
  std::deque<Pending> pending_;
  std::vector<Produced> produced_;
  std::size_t routed_last_ = 0;
};

std::atomic<CudaWeightGradientStream*> active_stream{nullptr};

// Registered for aten::convolution_backward on CUDA (register_routed_kernel). Its parameters are
// the operator's, as this LibTorch declares them (checked below).
Gradients routed_convolution_backward(const at::Tensor& grad_output, const at::Tensor& input, const at::Tensor& weight,
                                      at::OptionalSymIntArrayRef bias_sizes, c10::SymIntArrayRef stride,
                                      c10::SymIntArrayRef padding, c10::SymIntArrayRef dilation, bool transposed,
                                      c10::SymIntArrayRef output_padding, c10::SymInt groups,
                                      std::array<bool, 3> output_mask) {
  // PyTorch's own CUDA kernel, as its registration calls it: on the gradient's device, with
  // the sizes as plain integers (a training step's are never symbolic).
  const c10::OptionalDeviceGuard device_guard(at::device_of(grad_output));
  at::OptionalIntArrayRef bias_ints;
  if (bias_sizes.has_value()) bias_ints = C10_AS_INTARRAYREF_SLOW(*bias_sizes);
  const auto pytorch = [&](std::array<bool, 3> mask) {
    return at::native::convolution_backward(grad_output, input, weight, bias_ints, C10_AS_INTARRAYREF_SLOW(stride),
                                            C10_AS_INTARRAYREF_SLOW(padding), C10_AS_INTARRAYREF_SLOW(dilation),
                                            transposed, C10_AS_INTARRAYREF_SLOW(output_padding),
                                            groups.guard_int(__FILE__, __LINE__), mask);
  };
  auto* stream = active_stream.load();
  const bool wants_weight_side = output_mask[1] || output_mask[2];
  if (stream == nullptr || !wants_weight_side || !stream->routes(weight)) return pytorch(output_mask);
  at::Tensor grad_input;
  if (output_mask[0]) grad_input = std::get<0>(pytorch({true, false, false}));
  auto weight_side = stream->on_second_stream(weight, grad_output, input,
                                              [&] { return pytorch({false, output_mask[1], output_mask[2]}); });
  return {grad_input, std::get<1>(weight_side), std::get<2>(weight_side)};
}
static_assert(std::is_same_v<decltype(&routed_convolution_backward), at::_ops::convolution_backward::schema*>,
              "aten::convolution_backward's C++ signature changed in this LibTorch: update the routed kernel");

// Registration warns that a kernel is replaced: that is the point here, and the log says it once.
class SilentWarnings final : public c10::WarningHandler {
 public:
  void process(const c10::Warning&) override {}
};

// Once per process, kept for its life: while no Backward is active the routed kernel is PyTorch's
// own call, and taking it out again while autograd's thread may be inside it is not worth it.
void register_routed_kernel() {
  static std::once_flag once;
  static torch::Library* library = nullptr;  // never destroyed: see above
  std::call_once(once, [] {
    SilentWarnings silent;
    const c10::WarningUtils::WarningHandlerGuard quiet(&silent);
    library = new torch::Library(torch::Library::IMPL, "aten", c10::DispatchKey::CUDA, __FILE__, __LINE__);
    library->impl("convolution_backward", TORCH_FN(routed_convolution_backward));
  });
}

CudaWeightGradientStream::CudaWeightGradientStream(std::vector<WeightCopies::LayerCopies> layers, int device)
    : layers_(std::move(layers)), device_(device), second_(own_stream(device)) {
  for (std::size_t i = 0; i < layers_.size(); ++i) index_of_.emplace(layers_[i].weight.unsafeGetTensorImpl(), i);
  register_routed_kernel();
}

CudaWeightGradientStream::~CudaWeightGradientStream() {
  CudaWeightGradientStream* self = this;
  active_stream.compare_exchange_strong(self, nullptr);
  // Graphs recorded with the stream keep no reference to it; eager work on it must end first.
  cudaStreamSynchronize(second_.stream());
  cudaStreamDestroy(second_.stream());
}

template <class Work>
Gradients CudaWeightGradientStream::on_second_stream(const at::Tensor& weight, const at::Tensor& grad_output,
                                                     const at::Tensor& input, const Work& work) {
  const std::lock_guard<std::mutex> lock(mutex_);
  const auto first = c10::cuda::getCurrentCUDAStream(static_cast<c10::DeviceIndex>(device_));
  ready_.order(first, second_);  // the output gradient (and everything before it) is written
  Gradients gradients;
  {
    const c10::cuda::CUDAStreamGuard on_second(second_);
    gradients = work();
  }
  const std::size_t slot = next_done_++ % done_.size();
  done_[slot].record(second_);
  pending_.push_back({slot, input, grad_output});
  const auto& [unused, weight_grad, bias_grad] = gradients;
  produced_.push_back({index_of_.at(weight.unsafeGetTensorImpl()), weight_grad.defined() ? weight_grad.data_ptr() : nullptr,
                       bias_grad.defined() ? bias_grad.data_ptr() : nullptr});
  while (pending_.size() > kMostLayersBehind) wait_for_oldest(first);
  return gradients;
}

void CudaWeightGradientStream::wait_for_oldest(const c10::cuda::CUDAStream& first) {
  done_[pending_.front().event].block(first);
  pending_.pop_front();  // the first stream now reuses their memory only after the second read it
}

void CudaWeightGradientStream::begin_backward() {
  const std::lock_guard<std::mutex> lock(mutex_);
  pending_.clear();
  produced_.clear();
  active_stream.store(this);
}

void CudaWeightGradientStream::end_backward(bool check) {
  active_stream.store(nullptr);
  std::vector<Produced> produced;
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    joined_.order(second_, c10::cuda::getCurrentCUDAStream(static_cast<c10::DeviceIndex>(device_)));
    pending_.clear();
    produced.swap(produced_);
  }
  routed_last_ = produced.size();
  if (check) check_handed_over(produced);
}

// Autograd hands a leaf the gradient tensor itself when it can (no kernel); where it cannot it
// copies it with a kernel on the first stream, which could read it before the second stream
// wrote it. The weight copies are made so that it always can; this says so loudly if not.
void CudaWeightGradientStream::check_handed_over(const std::vector<Produced>& produced) const {
  for (const auto& p : produced) {
    const auto& layer = layers_[p.layer];
    const auto handed = [](const at::Tensor& leaf, const void* made) {
      return made == nullptr || (leaf.defined() && leaf.grad().defined() && leaf.grad().data_ptr() == made);
    };
    if (handed(layer.weight, p.weight_grad) && handed(layer.bias, p.bias_grad)) continue;
    std::ostringstream message;
    message << "weight_grad_stream: autograd copied the gradient of a convolution weight " << layer.weight.sizes()
            << " instead of taking it as made on the second stream, so the copy may have read it unfinished; "
               "train with fused_kernels=measured (without weight_grad_stream) and report this";
    throw std::logic_error(message.str());
  }
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
    const c10::cuda::CUDAGuard on_device(static_cast<c10::DeviceIndex>(device));  // its events too
    return std::make_unique<CudaWeightGradientStream>(std::move(layers), device);
  } catch (const std::exception& e) {
    refusal = e.what();
    return nullptr;
  }
}

}  // namespace libreyolo::core::amp
