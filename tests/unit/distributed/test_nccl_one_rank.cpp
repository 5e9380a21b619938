// NCCL on the single GPU the lent machines have had (#22: "one-rank NCCL initialisation on one
// GPU"): the TCPStore rendezvous, a real NCCL communicator, every collective the trainer calls,
// the bucketed gradient synchronisation and synchronized BatchNorm, all through the production
// code a multi-GPU run uses. One rank adds nothing, so every result must come back equal to
// what went in: what this catches is the backend's wiring (the device the tensors must be on,
// the streams a collective waits on, a wait that never returns), not arithmetic across GPUs.
// Skipped without a GPU or without NCCL in the build (the CPU CI).
#include "../torch_doctest.hpp"

#include <torch/torch.h>

#include <chrono>

#include "libreyolo/core/distributed/gradient_sync.hpp"
#include "libreyolo/core/distributed/process_group.hpp"
#include "libreyolo/core/distributed/sync_batch_norm.hpp"
#include "libreyolo/core/distributed/worker_launcher.hpp"
#include "libreyolo/sdk/batch_norm.hpp"

namespace distributed = libreyolo::core::distributed;

namespace {

const torch::Device kGpu(torch::kCUDA, 0);

bool nccl_runs_here() {
  if (!torch::cuda::is_available()) {
    MESSAGE("skipped: no CUDA device");
    return false;
  }
  if (distributed::backend_for(kGpu) != "nccl") {
    MESSAGE("skipped: this build has no NCCL backend");
    return false;
  }
  return true;
}

std::shared_ptr<distributed::Collectives> one_rank_nccl() {
  distributed::ProcessGroupOptions options;
  options.rank = 0;
  options.world_size = 1;
  options.master_port = distributed::pick_free_port();
  options.device = kGpu;
  options.timeout = std::chrono::seconds(60);
  return distributed::join_process_group(options);
}

struct SmallNet : torch::nn::Module {
  SmallNet() {
    torch::manual_seed(11);
    conv = register_module("conv", torch::nn::Conv2d(torch::nn::Conv2dOptions(3, 8, 3).padding(1)));
    bn = register_module("bn", libreyolo::sdk::BatchNorm2d(torch::nn::BatchNorm2dOptions(8).eps(1e-3).momentum(0.03)));
    head = register_module("head", torch::nn::Linear(8, 4));
  }
  torch::Tensor forward(const torch::Tensor& x) {
    return head->forward(torch::silu(bn->forward(conv->forward(x))).mean({2, 3}));
  }
  torch::nn::Conv2d conv{nullptr};
  libreyolo::sdk::BatchNorm2d bn{nullptr};
  torch::nn::Linear head{nullptr};
};

torch::Tensor batch() {
  torch::manual_seed(12);
  return torch::randn({6, 3, 10, 10}).to(kGpu);
}

std::vector<torch::Tensor> gradients_of(SmallNet& net) {
  std::vector<torch::Tensor> grads;
  for (auto& p : net.parameters()) grads.push_back(p.grad().clone());
  return grads;
}

}  // namespace

TEST_CASE("distributed: NCCL with one rank on one GPU: collectives give back what went in") {
  if (!nccl_runs_here()) return;
  const auto collectives = one_rank_nccl();
  REQUIRE(collectives->world_size() == 1);
  CHECK(collectives->rank() == 0);
  CHECK(collectives->device() == kGpu);
  auto values = torch::arange(4099, torch::TensorOptions().dtype(torch::kFloat).device(kGpu));
  const auto expected = values.clone();
  collectives->all_reduce_sum(values);
  CHECK(torch::equal(values, expected));
  auto pending = collectives->start_all_reduce_sum(values);
  pending->wait();
  CHECK(torch::equal(values, expected));
  auto halves = expected.to(torch::kHalf);
  collectives->broadcast(halves, 0);
  CHECK(torch::equal(halves, expected.to(torch::kHalf)));
  collectives->barrier();
}

TEST_CASE("distributed: NCCL with one rank: bucketed gradients and synchronized BatchNorm equal one process's") {
  if (!nccl_runs_here()) return;
  const auto collectives = one_rank_nccl();
  SmallNet plain, synced;
  plain.to(kGpu);
  synced.to(kGpu);
  const auto report = distributed::synchronize_batch_norm(synced, collectives);
  CHECK(report.synchronized == 1);
  // 64-byte buckets: several all-reduces, started from the backward's hooks as gradients land.
  distributed::GradientSynchronizer sync(synced.parameters(), collectives, 64);
  CHECK(sync.bucket_count() > 1);
  plain.forward(batch()).pow(2).sum().backward();
  sync.prepare(true);
  synced.forward(batch()).pow(2).sum().backward();
  sync.finish();
  const auto expected = gradients_of(plain), got = gradients_of(synced);
  REQUIRE(expected.size() == got.size());
  // Synchronized BatchNorm forms its statistics from sums shifted by the running mean: the same
  // statistics in another order, so equal within float32 rounding, not bit for bit.
  for (std::size_t i = 0; i < expected.size(); ++i) {
    CAPTURE(i);
    CHECK(torch::allclose(got[i], expected[i], 1e-4, 1e-6));
  }
  CHECK(torch::allclose(synced.bn->running_mean, plain.bn->running_mean, 1e-5, 1e-7));
  CHECK(torch::allclose(synced.bn->running_var, plain.bn->running_var, 1e-5, 1e-7));
}
