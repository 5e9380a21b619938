#include "libreyolo/core/distributed/gradient_sync.hpp"

#include <torch/csrc/autograd/function.h>
#include <torch/csrc/autograd/function_hook.h>
#include <torch/csrc/autograd/variable.h>
#include <torch/torch.h>

#include "libreyolo/core/error.hpp"

namespace libreyolo::core::distributed {
namespace {

// Runs after a parameter's AccumulateGrad node: .grad then holds this backward's contribution
// added to what was there (the sum over an accumulation window).
class GradientReadyHook final : public torch::autograd::FunctionPostHook {
 public:
  GradientReadyHook(std::shared_ptr<GradientSynchronizer*> owner, std::size_t index)
      : owner_(std::move(owner)), index_(index) {}

  torch::autograd::variable_list operator()(const torch::autograd::variable_list& outputs,
                                            const torch::autograd::variable_list& /*inputs*/) override {
    if (auto* synchronizer = *owner_) synchronizer->gradient_ready(index_);
    return outputs;
  }

 private:
  std::shared_ptr<GradientSynchronizer*> owner_;  // null once the synchronizer is gone
  std::size_t index_;
};

// The tensor's elements in memory order, as a 1-D view: valid for a non-overlapping, dense
// tensor (a parameter, or a gradient with its parameter's strides), whose elements fill one
// stretch of its storage.
torch::Tensor memory_order_view(const torch::Tensor& t) {
  return t.as_strided({t.numel()}, {1}, t.storage_offset());
}

}  // namespace

GradientSynchronizer::GradientSynchronizer(std::vector<torch::Tensor> parameters,
                                           std::shared_ptr<Collectives> collectives, std::size_t bucket_bytes)
    : parameters_(std::move(parameters)),
      bucket_of_(parameters_.size()),
      collectives_(std::move(collectives)),
      self_(std::make_shared<GradientSynchronizer*>(this)) {
  // Reverse order: the last layers' gradients are ready first. A bucket holds one dtype.
  std::size_t bytes = 0;
  for (std::size_t i = parameters_.size(); i-- > 0;) {
    const auto& p = parameters_[i];
    const auto size = static_cast<std::size_t>(p.numel() * p.element_size());
    if (buckets_.empty() || bytes + size > bucket_bytes ||
        parameters_[buckets_.back().parameters.front()].scalar_type() != p.scalar_type()) {
      buckets_.emplace_back();
      bytes = 0;
    }
    buckets_.back().parameters.push_back(i);
    bucket_of_[i] = buckets_.size() - 1;
    bytes += size;
  }
  for (auto& bucket : buckets_) {
    std::int64_t numel = 0;
    for (auto i : bucket.parameters) {
      const auto& p = parameters_[i];
      if (!p.is_non_overlapping_and_dense()) {
        throw Error("gradient synchronisation: parameter " + std::to_string(i) + " is not dense in memory",
                    "its gradient could not be packed in its memory order", "make the parameter contiguous");
      }
      bucket.sizes.push_back(p.numel());
      numel += p.numel();
    }
    const auto& first = parameters_[bucket.parameters.front()];
    bucket.flat = torch::zeros({numel}, first.options().device(collectives_->device()));
  }
  for (std::size_t i = 0; i < parameters_.size(); ++i) {
    auto accumulator = torch::autograd::impl::grad_accumulator(parameters_[i]);
    if (!accumulator) {
      throw Error("gradient synchronisation: parameter " + std::to_string(i) + " does not require a gradient",
                  "only trainable leaf tensors can be synchronised", "pass the trainable parameters only");
    }
    accumulator->add_post_hook(std::make_unique<GradientReadyHook>(self_, i));
    hooks_.push_back(accumulator);
  }
}

GradientSynchronizer::~GradientSynchronizer() { *self_ = nullptr; }

void GradientSynchronizer::prepare(bool synchronize) {
  std::lock_guard<std::mutex> lock(mutex_);
  active_ = synchronize;
  next_launch_ = 0;
  for (auto& bucket : buckets_) {
    bucket.waiting = bucket.parameters.size();
    bucket.pending.reset();
  }
}

void GradientSynchronizer::gradient_ready(std::size_t index) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!active_) return;
  auto& bucket = buckets_[bucket_of_[index]];
  if (bucket.waiting > 0 && --bucket.waiting == 0) launch_ready_buckets();
}

void GradientSynchronizer::launch_ready_buckets() {
  while (next_launch_ < buckets_.size() && buckets_[next_launch_].waiting == 0) launch(buckets_[next_launch_++]);
}

torch::Tensor GradientSynchronizer::packed_gradient(std::size_t i) const {
  const auto& p = parameters_[i];
  const auto& grad = p.grad();
  // A parameter without a gradient this step (unused) contributes zeros, as on every rank.
  if (!grad.defined()) return torch::zeros({p.numel()}, p.options());
  if (grad.strides() == p.strides()) return memory_order_view(grad);
  return memory_order_view(torch::empty_like(p).copy_(grad));  // another layout: the parameter's order
}

void GradientSynchronizer::launch(Bucket& bucket) {
  torch::NoGradGuard no_grad;
  std::vector<torch::Tensor> gradients;
  gradients.reserve(bucket.parameters.size());
  for (auto i : bucket.parameters) gradients.push_back(packed_gradient(i));
  torch::cat_out(bucket.flat, gradients, 0);
  bucket.pending = collectives_->start_all_reduce_sum(bucket.flat);
}

void GradientSynchronizer::unpack(Bucket& bucket, double inverse_world) {
  std::vector<torch::Tensor> gradients;
  gradients.reserve(bucket.parameters.size());
  for (auto i : bucket.parameters) {
    auto& p = parameters_[i];
    // Without a gradient, or with another layout than the parameter's: a fresh one in the
    // parameter's layout (e.g. channels-last), which the packed order describes.
    if (!p.grad().defined() || p.grad().strides() != p.strides()) p.mutable_grad() = torch::empty_like(p);
    gradients.push_back(memory_order_view(p.grad()));
  }
  // grad = 0 + average: one rounding, as multiplying and copying would give.
  torch::_foreach_zero_(gradients);
  torch::_foreach_add_(gradients, bucket.flat.split_with_sizes(bucket.sizes), inverse_world);
}

void GradientSynchronizer::finish() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!active_) return;
  for (auto& bucket : buckets_) bucket.waiting = 0;  // whatever did not arrive is zero
  launch_ready_buckets();
  torch::NoGradGuard no_grad;
  const double inverse_world = 1.0 / collectives_->world_size();
  for (auto& bucket : buckets_) {
    bucket.pending->wait();
    bucket.pending.reset();
    unpack(bucket, inverse_world);
  }
  active_ = false;
}

}  // namespace libreyolo::core::distributed
