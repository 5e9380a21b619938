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
    for (auto i : bucket.parameters) numel += parameters_[i].numel();
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

void GradientSynchronizer::launch(Bucket& bucket) {
  torch::NoGradGuard no_grad;
  std::int64_t offset = 0;
  for (auto i : bucket.parameters) {
    const auto& p = parameters_[i];
    auto slot = bucket.flat.narrow(0, offset, p.numel());
    // A parameter without a gradient this step (unused) contributes zeros, as on every rank.
    if (p.grad().defined()) {
      slot.view(p.sizes()).copy_(p.grad());
    } else {
      slot.zero_();
    }
    offset += p.numel();
  }
  bucket.pending = collectives_->start_all_reduce_sum(bucket.flat);
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
    bucket.flat.mul_(inverse_world);
    std::int64_t offset = 0;
    for (auto i : bucket.parameters) {
      auto& p = parameters_[i];
      auto average = bucket.flat.narrow(0, offset, p.numel()).view(p.sizes());
      if (p.grad().defined()) {
        p.mutable_grad().copy_(average);
      } else {
        p.mutable_grad() = torch::empty_like(p).copy_(average);  // the parameter's layout, e.g. channels-last
      }
      offset += p.numel();
    }
  }
  active_ = false;
}

}  // namespace libreyolo::core::distributed
