#pragma once
// Data-parallel gradient averaging (docs/design.md#multi-gpu-training): parameters are grouped into buckets of
// about 25 MB, in reverse registration order (roughly the order backward produces their
// gradients); as soon as every gradient of a bucket has been accumulated, the bucket's
// all-reduce starts, so communication overlaps the rest of the backward pass. finish() waits
// for the buckets and writes the average over ranks back into every .grad.
//
// A bucket holds its parameters' gradients one after the other, each in its parameter's memory
// order (a channels-last weight's elements as memory holds them): a layout fixed at
// construction, the same on every rank whatever its gradients look like. Packing is one
// concatenation and unpacking two multi-tensor operations a bucket, not a copy per parameter
// each way (YOLOv9-s has about 700 parameters: 1,400 small kernels a step otherwise).
//
// The loss is not scaled by the world size: averaging here is what keeps the effective learning
// rate that of one process on the global batch.

#include <torch/types.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "libreyolo/core/distributed/collectives.hpp"

namespace libreyolo::core::distributed {

constexpr std::size_t kDefaultBucketBytes = 25u << 20;

class GradientSynchronizer {
 public:
  // `parameters`: the trainable parameters, in the model's registration order, on their final
  // device and memory format (hooks attach to the current tensors).
  GradientSynchronizer(std::vector<torch::Tensor> parameters, std::shared_ptr<Collectives> collectives,
                       std::size_t bucket_bytes = kDefaultBucketBytes);
  ~GradientSynchronizer();
  GradientSynchronizer(const GradientSynchronizer&) = delete;
  GradientSynchronizer& operator=(const GradientSynchronizer&) = delete;

  // Before a backward pass: `synchronize` false inside a gradient-accumulation window (the
  // gradients stay local until the window's last batch, whose backward sees their sum).
  void prepare(bool synchronize);
  // After that backward: starts the buckets still waiting (parameters that got no gradient this
  // step count as zero), waits for all, and leaves the averaged gradients in .grad. Nothing to
  // do when prepare(false) came before.
  void finish();

  std::size_t bucket_count() const { return buckets_.size(); }

  // Called by the autograd hook of parameter `index` once its .grad holds this step's sum.
  void gradient_ready(std::size_t index);

 private:
  struct Bucket {
    std::vector<std::size_t> parameters;  // indices into parameters_
    std::vector<std::int64_t> sizes;      // their element counts, in the same order
    torch::Tensor flat;                   // every gradient of the bucket, one after the other
    std::size_t waiting = 0;              // gradients not yet ready this step
    std::unique_ptr<PendingCollective> pending;
  };

  void launch_ready_buckets();  // in bucket order, so every rank issues the same sequence
  void launch(Bucket& bucket);
  // Parameter i's gradient as a 1-D tensor in the parameter's memory order (zeros without one).
  torch::Tensor packed_gradient(std::size_t i) const;
  // Writes the bucket's average over the ranks into its parameters' .grad.
  void unpack(Bucket& bucket, double inverse_world);

  std::vector<torch::Tensor> parameters_;
  std::vector<std::size_t> bucket_of_;
  std::vector<Bucket> buckets_;
  std::shared_ptr<Collectives> collectives_;
  std::vector<std::shared_ptr<void>> hooks_;  // keeps the gradient accumulators (and their hooks) alive
  std::shared_ptr<GradientSynchronizer*> self_;  // what the hooks reach this object through
  std::mutex mutex_;
  std::size_t next_launch_ = 0;
  bool active_ = false;
};

}  // namespace libreyolo::core::distributed
