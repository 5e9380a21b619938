#include "libreyolo/core/amp/weight_gradient_stream.hpp"

#include <atomic>
#include <sstream>
#include <stdexcept>

namespace libreyolo::core::amp {
namespace {

std::atomic<WeightGradientStream*> active_stream{nullptr};

}  // namespace

WeightGradientStream::WeightGradientStream(std::vector<WeightCopies::LayerCopies> layers,
                                           std::unique_ptr<StreamOrder> order)
    : layers_(std::move(layers)), order_(std::move(order)) {
  if (!order_ || order_->slots() <= kMostLayersBehind) {
    throw std::invalid_argument("WeightGradientStream needs a stream order with more than kMostLayersBehind slots");
  }
  for (std::size_t i = 0; i < layers_.size(); ++i) index_of_.emplace(layers_[i].weight.unsafeGetTensorImpl(), i);
}

WeightGradientStream::~WeightGradientStream() {
  WeightGradientStream* self = this;
  if (active_stream.compare_exchange_strong(self, nullptr)) sdk::set_active_weight_gradient_route(nullptr);
}

WeightGradientStream* WeightGradientStream::active() { return active_stream.load(); }

bool WeightGradientStream::routes(const torch::Tensor& weight) const {
  return index_of_.count(weight.unsafeGetTensorImpl()) != 0 && order_->current_is_first();
}

std::size_t WeightGradientStream::held_layers() const {
  const std::lock_guard<std::mutex> lock(mutex_);
  return pending_.size();
}

ConvolutionGradients WeightGradientStream::on_second_stream(const torch::Tensor& weight, const torch::Tensor& grad_output,
                                                            const torch::Tensor& input,
                                                            const std::function<ConvolutionGradients()>& work) {
  const std::lock_guard<std::mutex> lock(mutex_);
  order_->second_waits_for_first();  // the output gradient (and all before it) is written
  ConvolutionGradients gradients;
  order_->run_on_second([&] { gradients = work(); });
  const std::size_t slot = next_slot_++ % order_->slots();
  order_->mark_done(slot);
  pending_.push_back({slot, input, grad_output});
  const auto& weight_grad = std::get<1>(gradients);
  const auto& bias_grad = std::get<2>(gradients);
  produced_.push_back({index_of_.at(weight.unsafeGetTensorImpl()), weight_grad.defined() ? weight_grad.data_ptr() : nullptr,
                       bias_grad.defined() ? bias_grad.data_ptr() : nullptr});
  // Slots are reused in turn: at most kMostLayersBehind + 1 are pending here, fewer than slots().
  while (pending_.size() > kMostLayersBehind) {
    order_->first_waits_for(pending_.front().slot);
    pending_.pop_front();  // the first stream reuses their memory only after the second read them
  }
  return {torch::Tensor(), weight_grad, bias_grad};
}

torch::Tensor WeightGradientStream::weight_gradient_on_second_stream(const torch::Tensor& weight,
                                                                    const torch::Tensor& grad_output,
                                                                    const torch::Tensor& input,
                                                                    const std::function<torch::Tensor()>& work) {
  const auto gradients = on_second_stream(weight, grad_output, input, [&] {
    return ConvolutionGradients{torch::Tensor(), work(), torch::Tensor()};
  });
  return std::get<1>(gradients);
}

void WeightGradientStream::begin_backward() {
  const std::lock_guard<std::mutex> lock(mutex_);
  pending_.clear();
  produced_.clear();
  order_->remember_first();
  active_stream.store(this);
  sdk::set_active_weight_gradient_route(this);
}

void WeightGradientStream::end_backward(bool check) {
  active_stream.store(nullptr);
  sdk::set_active_weight_gradient_route(nullptr);
  std::vector<Produced> produced;
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    order_->first_waits_for_second();
    pending_.clear();
    produced.swap(produced_);
  }
  routed_last_ = produced.size();
  if (check) check_handed_over(produced);
}

// Autograd hands a leaf the gradient tensor itself when it can (no kernel); where it cannot it
// copies it with a kernel on the first stream, which could read it before the second stream
// wrote it. The weight copies are made so that it always can; this says so loudly if not.
void WeightGradientStream::check_handed_over(const std::vector<Produced>& produced) const {
  const auto handed = [](const torch::Tensor& leaf, const void* made) {
    return made == nullptr || (leaf.defined() && leaf.grad().defined() && leaf.grad().data_ptr() == made);
  };
  for (const auto& p : produced) {
    const auto& layer = layers_[p.layer];
    if (handed(layer.weight, p.weight_grad) && handed(layer.bias, p.bias_grad)) continue;
    std::ostringstream message;
    message << "weight_grad_stream: autograd copied the gradient of a convolution weight " << layer.weight.sizes()
            << " instead of taking it as made on the second stream, so the copy may have read it unfinished; "
               "train with fused_kernels=measured (without weight_grad_stream) and report this";
    throw std::logic_error(message.str());
  }
}

WeightGradientStream::Backward::Backward(WeightGradientStream& stream) : stream_(stream) { stream_.begin_backward(); }

WeightGradientStream::Backward::~Backward() {
  if (finished_) return;
  try {
    stream_.end_backward(/*check=*/false);
  } catch (...) {
    // Already unwinding from the backward's own error: that one is the message to keep.
  }
}

void WeightGradientStream::Backward::finish() {
  finished_ = true;
  stream_.end_backward(/*check=*/true);
}

}  // namespace libreyolo::core::amp
