// One rank of the CI's distributed check (tests/unit/distributed/test_ddp_gloo.cpp starts two
// with launch_workers): Gloo on the CPU, a small conv net with the SDK's BatchNorm2d, a fixed
// global batch split across the ranks. Every rank also trains a single-process copy on the whole
// batch and compares, printing one line per measure and exiting 1 when one is off:
//   - gradients after the first step (synchronised BatchNorm + bucketed gradient averaging);
//   - the loss of 3 SGD steps (the global mean over ranks against the single-process loss);
//   - BatchNorm running statistics after those steps (global-batch statistics);
//   - gradients accumulated over two batches with synchronisation only on the second.
#include <torch/torch.h>

#include <cstdio>
#include <iostream>

#include "libreyolo/core/distributed/gradient_sync.hpp"
#include "libreyolo/core/distributed/process_group.hpp"
#include "libreyolo/core/distributed/rank_environment.hpp"
#include "libreyolo/core/distributed/replica_state.hpp"
#include "libreyolo/core/distributed/sync_batch_norm.hpp"
#include "libreyolo/core/error.hpp"
#include "libreyolo/sdk/batch_norm.hpp"

namespace {

namespace dist = libreyolo::core::distributed;
constexpr double kTolerance = 1e-5;
constexpr int kGlobalBatch = 8;

struct TinyNetImpl : torch::nn::Module {
  TinyNetImpl() {
    conv1 = register_module("conv1", torch::nn::Conv2d(torch::nn::Conv2dOptions(3, 8, 3).padding(1).bias(false)));
    bn1 = register_module("bn1", libreyolo::sdk::BatchNorm2d(torch::nn::BatchNorm2dOptions(8).momentum(0.03)));
    conv2 = register_module("conv2", torch::nn::Conv2d(torch::nn::Conv2dOptions(8, 4, 3).stride(2).padding(1).bias(false)));
    bn2 = register_module("bn2", libreyolo::sdk::BatchNorm2d(torch::nn::BatchNorm2dOptions(4).momentum(0.03)));
    head = register_module("head", torch::nn::Linear(4, 3));
  }
  torch::Tensor forward(const torch::Tensor& x) {
    auto y = torch::silu(bn1->forward(conv1->forward(x)));
    y = torch::silu(bn2->forward(conv2->forward(y)));
    return head->forward(y.mean({2, 3}));
  }
  torch::nn::Conv2d conv1{nullptr}, conv2{nullptr};
  libreyolo::sdk::BatchNorm2d bn1{nullptr}, bn2{nullptr};
  torch::nn::Linear head{nullptr};
};
TORCH_MODULE(TinyNet);

TinyNet seeded_net() {
  torch::manual_seed(7);
  return TinyNet();
}

// Largest |a - b| over the largest |b|: a relative difference that does not blow up at zeros.
double relative_difference(const torch::Tensor& a, const torch::Tensor& b) {
  const double scale = std::max(b.abs().max().item<double>(), 1e-12);
  return (a - b).abs().max().item<double>() / scale;
}

double largest_gradient_difference(TinyNet& a, TinyNet& b) {
  double worst = 0;
  auto pa = a->parameters(), pb = b->parameters();
  for (std::size_t i = 0; i < pa.size(); ++i) worst = std::max(worst, relative_difference(pa[i].grad(), pb[i].grad()));
  return worst;
}

double largest_statistics_difference(TinyNet& replica, TinyNet& single) {
  double worst = 0;
  auto single_buffers = single->buffers(), replica_buffers = replica->buffers();
  for (std::size_t i = 0; i < single_buffers.size(); ++i) {
    if (single_buffers[i].is_floating_point()) {
      worst = std::max(worst, relative_difference(replica_buffers[i], single_buffers[i]));
    }
  }
  return worst;
}

// Accumulation: two local batches, gradients averaged once, on the second. BatchNorm in eval
// mode, so that both models see the same per-image computation whatever the batch split.
struct Trained {
  TinyNet& net;
  torch::optim::SGD& sgd;
};

double accumulated_gradient_difference(Trained single, Trained replica, dist::GradientSynchronizer& gradients,
                                       const torch::Tensor& images, const torch::Tensor& targets, int first, int shard) {
  single.net->eval();
  replica.net->eval();
  single.sgd.zero_grad();
  torch::mse_loss(single.net->forward(images), targets).backward();
  replica.sgd.zero_grad();
  const int half = shard / 2;
  for (int part = 0; part < 2; ++part) {
    gradients.prepare(part == 1);
    const auto rows = torch::indexing::Slice(first + part * half, first + (part + 1) * half);
    (torch::mse_loss(replica.net->forward(images.index({rows})), targets.index({rows})) / 2).backward();
    gradients.finish();
  }
  return largest_gradient_difference(replica.net, single.net);
}

bool report(int rank, const char* measure, double value) {
  std::printf("ddp_check rank %d: %s max relative difference %.3g (tolerance %.0e)\n", rank, measure, value, kTolerance);
  return value <= kTolerance;
}

}  // namespace

int main() {
  try {
    const auto env = dist::read_rank_environment();
    if (!env || env->world_size < 2) {
      std::cerr << "ddp_check: run it as one of several ranks (RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT)\n";
      return 2;
    }
    dist::ProcessGroupOptions options;
    options.rank = env->rank;
    options.world_size = env->world_size;
    options.master_addr = env->master_addr;
    options.master_port = env->master_port;
    options.timeout = std::chrono::seconds(60);
    const auto collectives = dist::join_process_group(options);
    const int world = env->world_size, rank = env->rank;
    if (kGlobalBatch % world != 0) throw std::runtime_error("the world size must divide 8");
    const int shard = kGlobalBatch / world;

    torch::manual_seed(11);  // the same global batch on every rank
    const auto images = torch::randn({kGlobalBatch, 3, 12, 12});
    const auto targets = torch::randn({kGlobalBatch, 3});
    const auto mine = torch::indexing::Slice(rank * shard, (rank + 1) * shard);

    auto single = seeded_net();
    auto replica = seeded_net();
    dist::broadcast_module_state(*replica, *collectives);
    const auto synced = dist::synchronize_batch_norm(*replica, collectives);
    dist::GradientSynchronizer gradients(replica->parameters(), collectives, /*bucket_bytes=*/512);  // several buckets
    torch::optim::SGD single_sgd(single->parameters(), torch::optim::SGDOptions(0.1).momentum(0.9));
    torch::optim::SGD replica_sgd(replica->parameters(), torch::optim::SGDOptions(0.1).momentum(0.9));

    bool ok = synced.synchronized == 2 && gradients.bucket_count() > 1;
    double worst_loss = 0, first_gradients = 0;
    for (int step = 0; step < 3; ++step) {
      single_sgd.zero_grad();
      const auto single_loss = torch::mse_loss(single->forward(images), targets);
      single_loss.backward();

      replica_sgd.zero_grad();
      gradients.prepare(true);
      auto loss = torch::mse_loss(replica->forward(images.index({mine})), targets.index({mine}));
      loss.backward();
      gradients.finish();
      auto global_loss = loss.detach().clone();
      collectives->all_reduce_sum(global_loss);
      global_loss /= world;

      if (step == 0) first_gradients = largest_gradient_difference(replica, single);
      worst_loss = std::max(worst_loss, relative_difference(global_loss, single_loss.detach()));
      single_sgd.step();
      replica_sgd.step();
    }
    ok &= report(rank, "step-1 gradients", first_gradients);
    ok &= report(rank, "3-step loss trajectory", worst_loss);
    ok &= report(rank, "BatchNorm running statistics", largest_statistics_difference(replica, single));
    ok &= report(rank, "accumulated gradients",
                 accumulated_gradient_difference({single, single_sgd}, {replica, replica_sgd}, gradients, images,
                                                 targets, rank * shard, shard));
    collectives->barrier();
    return ok ? 0 : 1;
  } catch (const std::exception& e) {
    std::cerr << "ddp_check: " << e.what() << "\n";
    return 1;
  }
}
