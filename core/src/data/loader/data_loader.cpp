#include "libreyolo/core/data/loader/data_loader.hpp"

#include <torch/torch.h>

#include <algorithm>
#include <exception>
#include <limits>
#include <set>

#include "batch_uploader.hpp"
#include "libreyolo/core/error.hpp"
#include "libreyolo/core/log/log.hpp"

namespace libreyolo::core::data {
namespace {

constexpr std::size_t kNoBatch = std::numeric_limits<std::size_t>::max();

torch::Tensor host_buffer(at::IntArrayRef shape, torch::ScalarType dtype, bool pinned) {
  auto options = torch::TensorOptions().dtype(dtype);
  if (pinned) options = options.pinned_memory(true);
  return torch::zeros(shape, options);
}

}  // namespace

// One batch buffer of the ring. Batch k lives in slot k % slots_.size().
struct DataLoader::Slot {
  torch::Tensor images;                         // [B, S, S, 3] uint8, pinned on CUDA
  torch::Tensor targets;                        // [B, capacity, 5] float32, grown by the consumer
  torch::Tensor counts;                         // [B] int64
  std::vector<std::vector<PixelBox>> boxes;     // per position, written by the workers
  std::vector<std::string> failures;            // per position: why its image is unusable, or empty
  std::vector<std::size_t> indices;
  std::size_t batch = kNoBatch;
  std::size_t remaining = 0;                    // samples still being made
  std::shared_ptr<UploadFence> fence;           // the pending upload from this slot, if any
};

DataLoader::DataLoader(LoaderOptions options, SampleMakerFactory factory)
    : options_(std::move(options)),
      factory_(std::move(factory)),
      sampler_(options_.sampler),
      uploader_(make_batch_uploader(options_.device, options_.reuse_batch_memory)) {
  const int workers = std::max(0, options_.workers);
  const int prefetch = options_.prefetch > 0 ? options_.prefetch : std::max(2, workers / 2 + 1);
  const auto batch = options_.sampler.batch_size;
  const bool pinned = uploader_->wants_pinned_memory();
  for (int i = 0; i < prefetch; ++i) {
    auto slot = std::make_unique<Slot>();
    slot->images = host_buffer({batch, options_.imgsz, options_.imgsz, 3}, torch::kUInt8, pinned);
    slot->targets = host_buffer({batch, 1, 5}, torch::kFloat32, pinned);
    slot->counts = host_buffer({batch}, torch::kInt64, pinned);
    slot->boxes.resize(static_cast<std::size_t>(batch));
    slot->failures.resize(static_cast<std::size_t>(batch));
    slots_.push_back(std::move(slot));
  }
  if (workers == 0) inline_maker_.push_back(factory_());
  for (int w = 0; w < workers; ++w) {
    workers_.emplace_back([this, w] { worker_loop(static_cast<std::size_t>(w)); });
  }
}

DataLoader::~DataLoader() { stop_workers(); }

void DataLoader::stop_workers() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  work_ready_.notify_all();
  for (auto& t : workers_) {
    if (t.joinable()) t.join();
  }
  for (auto& slot : slots_) {
    if (slot->fence) slot->fence->wait();  // no copy may still read our buffers
  }
}

DataLoader::Slot& DataLoader::slot_for(std::size_t batch) { return *slots_[batch % slots_.size()]; }

void DataLoader::start_epoch(const EpochMode& mode) {
  std::unique_lock<std::mutex> lock(mutex_);
  ++generation_;
  // Let samples of the abandoned epoch finish writing before their slots are reused.
  batch_ready_.wait(lock, [&] { return busy_workers_ == 0; });
  mode_ = mode;
  batches_ = sampler_.batches(mode.epoch);
  next_job_batch_ = 0;
  next_job_position_ = 0;
  next_batch_ = 0;
  released_ = 0;
  for (auto& slot : slots_) {
    slot->batch = kNoBatch;
    slot->remaining = 0;
  }
  lock.unlock();
  work_ready_.notify_all();
}

bool DataLoader::take_job(Job& job) {
  // Called with mutex_ held. A batch may start only when its slot is free: the batch that
  // used the slot before has been handed to the trainer.
  if (next_job_batch_ >= batches_.size() || next_job_batch_ >= released_ + slots_.size()) {
    return false;
  }
  job.batch = next_job_batch_;
  job.position = next_job_position_;
  job.generation = generation_;
  auto& slot = slot_for(job.batch);
  if (job.position == 0) {
    slot.batch = job.batch;
    slot.remaining = batches_[job.batch].size();
    slot.indices = batches_[job.batch];
    for (auto& failure : slot.failures) failure.clear();
  }
  job.index = batches_[job.batch][job.position];
  job.fence = slot.fence;
  job.mode = mode_;
  if (++next_job_position_ == batches_[job.batch].size()) {
    ++next_job_batch_;
    next_job_position_ = 0;
  }
  return true;
}

void DataLoader::worker_loop(std::size_t) {
  auto maker = factory_();
  for (;;) {
    Job job;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      work_ready_.wait(lock, [&] { return stopping_ || take_job(job); });
      if (stopping_) return;
      ++busy_workers_;
    }
    std::exception_ptr error;
    try {
      make_sample(*maker, job);
    } catch (...) {
      error = std::current_exception();  // handed to the training thread by next()
    }
    {
      std::lock_guard<std::mutex> lock(mutex_);
      --busy_workers_;
      if (error && !worker_error_) worker_error_ = error;
      auto& slot = slot_for(job.batch);
      if (job.generation == generation_ && slot.batch == job.batch) --slot.remaining;
    }
    batch_ready_.notify_all();
  }
}

void DataLoader::make_sample(SampleMaker& maker, const Job& job) {
  if (job.fence) job.fence->wait();  // the slot's previous upload must be done reading it
  auto& slot = slot_for(job.batch);
  const int size = options_.imgsz;
  MutableImageView out{size, size, slot.images[static_cast<int64_t>(job.position)].data_ptr<std::uint8_t>()};
  auto& boxes = slot.boxes[job.position];
  const std::size_t dataset_size = options_.sampler.dataset_size;
  std::size_t index = job.index;
  for (std::size_t attempt = 0;; ++attempt) {
    // The seed depends on what the sample is, never on which thread makes it.
    std::mt19937_64 rng(mix_seed(options_.sampler.seed, static_cast<std::uint64_t>(job.mode.epoch),
                                 static_cast<std::uint64_t>(options_.sampler.rank),
                                 job.batch * static_cast<std::uint64_t>(options_.sampler.batch_size) +
                                     job.position));
    boxes.clear();
    try {
      maker.make(index, job.mode, rng, out, boxes);
      return;
    } catch (const Error& e) {
      if (!options_.replace_unusable) {
        leave_out(job, e);
        return;
      }
      {
        std::lock_guard<std::mutex> lock(mutex_);
        if (warned_indices_.insert(index).second) {
          log::warn("skipping a training image: ", e.what(), " (another image takes its place)");
        }
      }
      if (attempt + 1 >= dataset_size) throw;
      index = (index + 1) % dataset_size;
    }
  }
}

void DataLoader::leave_out(const Job& job, const Error& error) {
  auto& slot = slot_for(job.batch);
  const int size = options_.imgsz;
  std::fill_n(slot.images[static_cast<int64_t>(job.position)].data_ptr<std::uint8_t>(),
              static_cast<std::size_t>(size) * static_cast<std::size_t>(size) * 3, std::uint8_t{0});
  slot.boxes[job.position].clear();
  slot.failures[job.position] = error.what();
  std::lock_guard<std::mutex> lock(mutex_);
  if (warned_indices_.insert(job.index).second) {
    log::warn("leaving an image out of the evaluation: ", error.what());
  }
}

std::optional<Batch> DataLoader::next() {
  std::unique_lock<std::mutex> lock(mutex_);
  if (released_ < next_batch_) {
    // The caller is done with the batch handed out last (its tensors were our own buffers).
    released_ = next_batch_;
    work_ready_.notify_all();
  }
  if (next_batch_ >= batches_.size()) return std::nullopt;
  const std::size_t k = next_batch_;
  auto& slot = slot_for(k);
  if (workers_.empty()) {
    // No worker threads: make this batch here.
    Job job;
    while (take_job(job) && job.batch == k) {
      lock.unlock();
      make_sample(*inline_maker_.front(), job);
      lock.lock();
      --slot.remaining;
      if (next_job_batch_ != k) break;
    }
  }
  batch_ready_.wait(lock, [&] {
    return worker_error_ || (slot.batch == k && slot.remaining == 0);
  });
  if (worker_error_) std::rethrow_exception(worker_error_);
  lock.unlock();

  // Pack the boxes as padded targets (class, cx, cy, w, h). Only this thread touches the
  // targets buffers, and only for slots whose previous upload has finished.
  if (slot.fence) slot.fence->wait();
  const auto batch_size = static_cast<int64_t>(slot.indices.size());
  int64_t max_boxes = 1;
  for (int64_t i = 0; i < batch_size; ++i) {
    max_boxes = std::max<int64_t>(max_boxes, static_cast<int64_t>(slot.boxes[static_cast<std::size_t>(i)].size()));
  }
  if (slot.targets.size(1) < max_boxes) {
    slot.targets = host_buffer({slot.targets.size(0), max_boxes * 2, 5}, torch::kFloat32,
                               uploader_->wants_pinned_memory());
  }
  auto targets = slot.targets.narrow(0, 0, batch_size).narrow(1, 0, max_boxes);
  targets.zero_();
  auto* t = targets.data_ptr<float>();  // rows of the narrowed view are strided by capacity
  const int64_t row_stride = slot.targets.stride(0);
  auto* counts = slot.counts.data_ptr<int64_t>();
  for (int64_t i = 0; i < batch_size; ++i) {
    const auto& boxes = slot.boxes[static_cast<std::size_t>(i)];
    counts[i] = static_cast<int64_t>(boxes.size());
    float* row = t + i * row_stride;
    for (const auto& b : boxes) {
      row[0] = static_cast<float>(b.class_id);
      row[1] = (b.x1 + b.x2) * 0.5f;
      row[2] = (b.y1 + b.y2) * 0.5f;
      row[3] = b.x2 - b.x1;
      row[4] = b.y2 - b.y1;
      row += 5;
    }
  }
  DeviceTensors host{slot.images.narrow(0, 0, batch_size), targets, slot.counts.narrow(0, 0, batch_size)};
  auto device = uploader_->upload(host, slot.fence);

  std::vector<int64_t> host_counts(counts, counts + batch_size);
  Batch batch{device.images, device.targets, device.counts, std::move(host_counts), slot.indices, k, {}};
  for (std::size_t i = 0; i < slot.indices.size(); ++i) {
    if (!slot.failures[i].empty()) batch.unusable.push_back({i, slot.failures[i]});
  }
  lock.lock();
  ++next_batch_;
  if (!uploader_->hands_out_host_memory()) released_ = next_batch_;
  lock.unlock();
  work_ready_.notify_all();
  return batch;
}

}  // namespace libreyolo::core::data
