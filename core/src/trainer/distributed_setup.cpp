#include "distributed_setup.hpp"

#include <torch/torch.h>

#include "libreyolo/core/device/cuda_info.hpp"
#include "libreyolo/core/device/device_choice.hpp"
#include "libreyolo/core/distributed/global_batch.hpp"
#include "libreyolo/core/distributed/process_group.hpp"
#include "libreyolo/core/distributed/replica_state.hpp"
#include "libreyolo/core/distributed/sync_batch_norm.hpp"
#include "libreyolo/core/log/log.hpp"
#include "libreyolo/core/optim/unique_parameters.hpp"

namespace libreyolo::core::trainer {
namespace {

// Below this per-rank batch, BatchNorm statistics of a shard are noisy enough that
// synchronized BatchNorm is worth its cost (docs/design.md#multi-gpu-training).
constexpr int kSmallRankBatch = 16;

}  // namespace

void join_ranks(Session& s, const TrainRequest& request) {
  if (!request.ranks || request.ranks->world_size <= 1) return;  // prepare_session chooses the device
  const auto& ranks = *request.ranks;
  // Before any work; batch=-1 is resolved (divisibly) by autobatch once the group exists.
  if (s.config.batch > 0) s.rank_batch = distributed::per_rank_batch(s.config.batch, ranks.world_size);
  s.rank = ranks.rank;
  s.world_size = ranks.world_size;
  s.device = device::choose_rank_device(s.config.device, ranks);
  device::make_current(s.device);
  distributed::ProcessGroupOptions options;
  options.rank = ranks.rank;
  options.world_size = ranks.world_size;
  options.master_addr = ranks.master_addr;
  options.master_port = ranks.master_port;
  options.device = s.device;
  options.timeout = std::chrono::seconds(s.config.ddp_timeout);
  s.collectives = distributed::join_process_group(options);
  if (!s.main_rank()) log::set_level(log::Level::warn);  // one voice: rank 0 reports progress
  if (s.main_rank() && s.config.batch > 0) {
    log::info("distributed: ", s.world_size, " ranks, global batch ", s.config.batch, " = ", s.world_size, " x ",
              s.rank_batch, " per rank");
  }
}

void prepare_replica(Session& s) {
  // Every rank starts from rank 0's weights and buffers, whatever each built or loaded.
  distributed::broadcast_module_state(*s.model, *s.collectives);
  if (s.config.sync_bn) {
    const auto report = distributed::synchronize_batch_norm(*s.model, s.collectives);
    log::info("sync_bn: ", report.synchronized, " BatchNorm layers normalise over the global batch");
    if (report.not_synchronizable > 0) {
      log::warn("sync_bn: ", report.not_synchronizable, " BatchNorm layers of ", s.family->info.name,
                " are not sdk::BatchNorm2d and stay per-rank (first: ", report.not_synchronizable_names.front(),
                "); the family should build them with the SDK's type");
    }
  } else if (s.rank_batch < kSmallRankBatch && s.main_rank()) {
    if (const auto batch_norms = distributed::count_batch_norm_layers(*s.model); batch_norms > 0) {
      log::warn("sync_bn=false with ", batch_norms, " BatchNorm layers at ", s.rank_batch,
                " images per rank: each rank normalises over its own small shard (noisy statistics). "
                "sync_bn=true normalises over the global batch");
    }
  }
  // Each tied tensor once: listed twice, its gradient would be summed over the ranks twice.
  auto trainable = optim::unique_parameters(*s.model, /*trainable_only=*/true);
  s.gradient_sync = std::make_unique<distributed::GradientSynchronizer>(std::move(trainable), s.collectives);
  if (s.main_rank()) log::info("distributed: gradients averaged in ", s.gradient_sync->bucket_count(), " buckets");
}

}  // namespace libreyolo::core::trainer
