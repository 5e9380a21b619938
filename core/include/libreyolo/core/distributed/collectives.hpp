#pragma once
// The collective operations distributed training needs, over whatever carries them: c10d's
// NCCL or Gloo process groups in a real run (process_group.hpp), threads of one process in the
// unit tests. Gradient synchronisation and synchronized BatchNorm are written against this
// interface only.

#include <torch/types.h>

#include <memory>

namespace libreyolo::core::distributed {

// A collective started but not necessarily finished. wait() blocks until the result is in
// place (on CUDA: until the caller's current stream is ordered after it) and rethrows a
// failure (a peer that died, a timeout) as core::Error.
class PendingCollective {
 public:
  virtual ~PendingCollective() = default;
  virtual void wait() = 0;
};

class Collectives {
 public:
  virtual ~Collectives() = default;

  virtual int rank() const = 0;
  virtual int world_size() const = 0;
  // Where the tensors handed to the collectives must live (NCCL: the rank's GPU).
  virtual torch::Device device() const { return torch::kCPU; }

  // Sums `tensor` over all ranks, in place. Every rank must call the collectives in the same
  // order with tensors of the same shape and dtype.
  virtual void all_reduce_sum(torch::Tensor& tensor) = 0;
  virtual std::unique_ptr<PendingCollective> start_all_reduce_sum(torch::Tensor& tensor) = 0;

  // Copies `root`'s `tensor` into every rank's `tensor`, in place.
  virtual void broadcast(torch::Tensor& tensor, int root) = 0;

  // Returns when every rank has called it.
  virtual void barrier() = 0;
};

}  // namespace libreyolo::core::distributed
