#pragma once
// The training data loader. `workers` threads make samples (decode-once cache + uint8
// augmentation) straight into a ring of reused batch buffers (pinned when training on CUDA);
// the training thread takes batches in order and gets device tensors whose upload started on
// a side stream. Batches are identical for a given seed whatever the worker count: every
// sample's randomness derives from (seed, epoch, rank, position in the epoch).
//
//   DataLoader loader(options, factory);
//   loader.start_epoch({epoch, /*mosaic=*/epoch < epochs - no_aug_epochs});
//   while (auto batch = loader.next()) train_step(*batch);

#include <torch/types.h>

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "libreyolo/core/data/loader/epoch_sampler.hpp"
#include "libreyolo/core/data/loader/sample_maker.hpp"
#include "libreyolo/core/error.hpp"

namespace libreyolo::core::data {

struct LoaderOptions {
  SamplerOptions sampler;
  int imgsz = 640;
  int workers = 4;   // 0 makes samples on the calling thread (debugging, tiny datasets)
  int prefetch = 0;  // batch buffers in flight; 0 = max(2, workers / 2 + 1)
  torch::Device device = torch::kCPU;
  // CPU only: hand out the loader's own batch buffers instead of copies, valid until the next
  // call of next() (saves a copy of every batch; the trainer and `bench data` use it). CUDA
  // batches are device copies either way.
  bool reuse_batch_memory = false;
  // An image that cannot be decoded: training lets another image take its place (the epoch
  // keeps its size); validation must not (that image's predictions would be scored against
  // the broken image's ground truth), so it gets a blank sample listed in Batch::unusable.
  bool replace_unusable = true;
};

// A sample of a batch whose image could not be made (replace_unusable=false).
struct UnusableSample {
  std::size_t position = 0;  // in the batch
  std::string reason;        // the error, naming the file
};

// A batch on the training device.
struct Batch {
  torch::Tensor images;   // [B, S, S, 3] uint8, RGB (NHWC: channels-last once permuted)
  torch::Tensor targets;  // [B, M, 5] float32: class, cx, cy, w, h in pixels; padding rows zero
  torch::Tensor counts;   // [B] int64
  std::vector<int64_t> host_counts;  // the same counts on the host (no device read needed)
  std::vector<std::size_t> indices;  // dataset indices, for evaluation and debugging
  std::size_t step = 0;              // position in the epoch
  std::vector<UnusableSample> unusable;  // blank samples standing for images that failed
};

class BatchUploader;
class UploadFence;

class DataLoader {
 public:
  DataLoader(LoaderOptions options, SampleMakerFactory factory);
  ~DataLoader();
  DataLoader(const DataLoader&) = delete;
  DataLoader& operator=(const DataLoader&) = delete;

  // Starts producing the batches of `mode.epoch` (the previous epoch must be finished or is
  // abandoned).
  void start_epoch(const EpochMode& mode);
  // The next batch in order, or nullopt when the epoch is over.
  std::optional<Batch> next();

  std::size_t steps_per_epoch() const { return sampler_.steps_per_epoch(); }
  const LoaderOptions& options() const { return options_; }

 private:
  struct Slot;
  struct Job {
    std::size_t batch = 0;     // which batch of the epoch
    std::size_t position = 0;  // which sample of that batch
    std::size_t index = 0;     // which dataset image
    std::uint64_t generation = 0;
    EpochMode mode;
    std::shared_ptr<UploadFence> fence;  // the slot's previous upload
  };

  bool take_job(Job& job);
  void worker_loop(std::size_t worker);
  void make_sample(SampleMaker& maker, const Job& job);
  void leave_out(const Job& job, const Error& error);
  Slot& slot_for(std::size_t batch);
  void stop_workers();

  LoaderOptions options_;
  SampleMakerFactory factory_;
  EpochSampler sampler_;
  std::unique_ptr<BatchUploader> uploader_;

  std::mutex mutex_;
  std::condition_variable work_ready_;   // workers wait for jobs or free slots
  std::condition_variable batch_ready_;  // the consumer waits for a complete batch
  std::vector<std::unique_ptr<Slot>> slots_;
  std::vector<std::thread> workers_;
  std::vector<std::unique_ptr<SampleMaker>> inline_maker_;  // workers == 0

  // Epoch state, guarded by mutex_.
  EpochMode mode_;
  std::uint64_t generation_ = 0;  // bumps per start_epoch so stale jobs are dropped
  std::vector<std::vector<std::size_t>> batches_;
  std::size_t next_job_batch_ = 0;
  std::size_t next_job_position_ = 0;
  std::size_t next_batch_ = 0;  // the next batch next() hands out
  std::size_t released_ = 0;    // batches before this one no longer need their slot
  bool stopping_ = false;
  int busy_workers_ = 0;
  std::exception_ptr worker_error_;
  std::set<std::size_t> warned_indices_;  // images already reported as unusable

};

}  // namespace libreyolo::core::data
