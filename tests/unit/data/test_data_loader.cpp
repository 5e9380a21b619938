// The sampler and the threaded loader, with a synthetic SampleMaker whose output encodes what
// it was asked to make, so order, packing and determinism can be checked exactly.
#include "../torch_doctest.hpp"

#include <set>

#include "libreyolo/core/data/loader/data_loader.hpp"
#include "libreyolo/core/error.hpp"

using namespace libreyolo::core;
using namespace libreyolo::core::data;

namespace {

// Pixel (0, 0) = index, pixel (1, 0) = a random byte from the per-sample rng; one box per
// (index % 3), class = index.
class EncodingMaker : public SampleMaker {
 public:
  explicit EncodingMaker(std::size_t broken_index = SIZE_MAX, bool broken_is_bug = false)
      : broken_index_(broken_index), broken_is_bug_(broken_is_bug) {}
  void make(std::size_t index, const EpochMode& mode, std::mt19937_64& rng, MutableImageView out,
            std::vector<PixelBox>& boxes) override {
    if (index == broken_index_) {
      if (broken_is_bug_) throw std::runtime_error("maker bug");
      throw Error("cannot decode image " + std::to_string(index), "test", "none");
    }
    std::fill(out.pixels, out.pixels + out.width * out.height * 3, std::uint8_t{0});
    out.pixels[0] = static_cast<std::uint8_t>(index);
    out.pixels[3] = static_cast<std::uint8_t>(rng() & 0xFF);
    out.pixels[6] = static_cast<std::uint8_t>(mode.pipeline);
    for (std::size_t b = 0; b < index % 3; ++b) {
      const float x = static_cast<float>(b);
      boxes.push_back({x, 2 * x, x + 4, 2 * x + 6, static_cast<int>(index)});
    }
  }

 private:
  std::size_t broken_index_;
  bool broken_is_bug_;
};

LoaderOptions options_for(std::size_t dataset, int batch, int workers, std::uint64_t seed = 7) {
  LoaderOptions options;
  options.sampler.dataset_size = dataset;
  options.sampler.batch_size = batch;
  options.sampler.seed = seed;
  options.imgsz = 8;
  options.workers = workers;
  return options;
}

std::vector<Batch> run_epoch(DataLoader& loader, int epoch, std::size_t pipeline = 1) {
  loader.start_epoch({epoch, pipeline});
  std::vector<Batch> batches;
  while (auto batch = loader.next()) batches.push_back(std::move(*batch));
  return batches;
}

}  // namespace

TEST_CASE("sampler: every index once per epoch, shuffled per epoch, same on every run") {
  SamplerOptions options;
  options.dataset_size = 10;
  options.batch_size = 4;
  options.seed = 3;
  EpochSampler sampler(options);
  CHECK(sampler.steps_per_epoch() == 3);
  const auto e0 = sampler.batches(0);
  REQUIRE(e0.size() == 3);
  CHECK(e0.back().size() == 2);  // the partial last batch is kept
  std::multiset<std::size_t> seen;
  for (const auto& b : e0) seen.insert(b.begin(), b.end());
  CHECK((seen == std::multiset<std::size_t>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}));
  CHECK((sampler.batches(0) == e0));
  CHECK((sampler.batches(1) != e0));
  options.drop_last = true;
  CHECK(EpochSampler(options).batches(0).size() == 2);
}

TEST_CASE("sampler: ranks split the epoch, padded so every rank runs the same steps") {
  std::multiset<std::size_t> all;
  std::vector<std::size_t> steps;
  for (int rank = 0; rank < 3; ++rank) {
    SamplerOptions options;
    options.dataset_size = 10;
    options.batch_size = 2;
    options.world_size = 3;
    options.rank = rank;
    EpochSampler sampler(options);
    steps.push_back(sampler.steps_per_epoch());
    for (const auto& b : sampler.batches(5)) all.insert(b.begin(), b.end());
  }
  CHECK((steps == std::vector<std::size_t>{2, 2, 2}));
  CHECK(all.size() == 12);  // 10 images + 2 wrapped around
  for (std::size_t i = 0; i < 10; ++i) CHECK(all.count(i) >= 1);
}

TEST_CASE("sampler: bad ranks and empty datasets are clear errors") {
  SamplerOptions options;
  options.dataset_size = 4;
  options.world_size = 2;
  options.rank = 2;
  CHECK_THROWS_WITH_AS(EpochSampler{options}, doctest::Contains("invalid rank 2 of world size 2"), Error);
  options.rank = 0;
  options.dataset_size = 0;
  CHECK_THROWS_AS(EpochSampler{options}, Error);
}

TEST_CASE("loader: batches arrive in sampler order with their pixels and padded targets") {
  const auto options = options_for(11, 4, 3);
  DataLoader loader(options, [] { return std::make_unique<EncodingMaker>(); });
  CHECK(loader.steps_per_epoch() == 3);
  const auto batches = run_epoch(loader, 0);
  const auto expected = EpochSampler(options.sampler).batches(0);
  REQUIRE(batches.size() == expected.size());
  for (std::size_t k = 0; k < batches.size(); ++k) {
    const auto& batch = batches[k];
    CHECK(batch.step == k);
    CHECK((batch.indices == expected[k]));
    const auto n = static_cast<int64_t>(expected[k].size());
    CHECK(batch.images.sizes() == torch::IntArrayRef({n, 8, 8, 3}));
    CHECK((batch.images.scalar_type() == torch::kUInt8));
    int64_t max_boxes = 1;
    for (auto index : expected[k]) max_boxes = std::max<int64_t>(max_boxes, static_cast<int64_t>(index % 3));
    CHECK(batch.targets.sizes() == torch::IntArrayRef({n, max_boxes, 5}));
    for (int64_t i = 0; i < n; ++i) {
      const auto index = expected[k][static_cast<std::size_t>(i)];
      CHECK(batch.images[i][0][0][0].item<int>() == static_cast<int>(index));
      CHECK(batch.counts[i].item<int64_t>() == static_cast<int64_t>(index % 3));
      if (index % 3 >= 2) {
        // Second box of the sample: x1=1, y1=2, x2=5, y2=8 -> cx 3, cy 5, w 4, h 6.
        const auto row = batch.targets[i][1];
        CHECK(row[0].item<float>() == static_cast<float>(index));
        CHECK(row[1].item<float>() == 3.f);
        CHECK(row[2].item<float>() == 5.f);
        CHECK(row[3].item<float>() == 4.f);
        CHECK(row[4].item<float>() == 6.f);
      }
      for (int64_t r = static_cast<int64_t>(index % 3); r < max_boxes; ++r) {
        CHECK(batch.targets[i][r].abs().sum().item<float>() == 0.f);  // padding
      }
    }
  }
  CHECK_FALSE(loader.next().has_value());
}

TEST_CASE("loader: same seed gives identical batches whatever the worker count") {
  std::vector<std::vector<Batch>> runs;
  for (int workers : {0, 1, 4}) {
    DataLoader loader(options_for(13, 4, workers), [] { return std::make_unique<EncodingMaker>(); });
    run_epoch(loader, 0);  // epochs must differ but be reproducible too
    runs.push_back(run_epoch(loader, 1));
  }
  for (std::size_t r = 1; r < runs.size(); ++r) {
    REQUIRE(runs[r].size() == runs[0].size());
    for (std::size_t k = 0; k < runs[0].size(); ++k) {
      CHECK((runs[r][k].indices == runs[0][k].indices));
      CHECK(runs[r][k].images.equal(runs[0][k].images));
      CHECK(runs[r][k].targets.equal(runs[0][k].targets));
    }
  }
  DataLoader other_seed(options_for(13, 4, 2, 8), [] { return std::make_unique<EncodingMaker>(); });
  run_epoch(other_seed, 0);
  const auto different = run_epoch(other_seed, 1);
  CHECK_FALSE(different[0].images.equal(runs[0][0].images));
}

TEST_CASE("loader: the epoch mode reaches the maker; restarting an epoch early is safe") {
  DataLoader loader(options_for(20, 2, 3), [] { return std::make_unique<EncodingMaker>(); });
  loader.start_epoch({0, 1});
  auto first = loader.next();
  REQUIRE(first);
  CHECK(first->images[0][0][2][0].item<int>() == 1);
  const auto no_aug = run_epoch(loader, 1, 0);  // abandons epoch 0 after one batch
  REQUIRE(no_aug.size() == 10);
  for (const auto& b : no_aug) CHECK(b.images.select(3, 0).select(1, 0).select(1, 2).sum().item<int>() == 0);
}

TEST_CASE("loader: an unreadable image is replaced and warned about; a bug surfaces in next()") {
  DataLoader loader(options_for(6, 3, 2), [] { return std::make_unique<EncodingMaker>(4); });
  const auto batches = run_epoch(loader, 0);
  std::size_t total = 0;
  for (const auto& b : batches) {
    total += b.indices.size();
    for (int64_t i = 0; i < b.images.size(0); ++i) CHECK(b.images[i][0][0][0].item<int>() != 4);
  }
  CHECK(total == 6);

  DataLoader buggy(options_for(6, 3, 2), [] { return std::make_unique<EncodingMaker>(4, true); });
  buggy.start_epoch({0, 1});
  CHECK_THROWS_WITH(
      [&] {
        while (buggy.next()) {
        }
      }(),
      "maker bug");
}

TEST_CASE("loader: reused batch memory gives the same batches without copies") {
  auto options = options_for(13, 4, 3);
  DataLoader copying(options, [] { return std::make_unique<EncodingMaker>(); });
  const auto expected = run_epoch(copying, 2);
  options.reuse_batch_memory = true;
  DataLoader reusing(options, [] { return std::make_unique<EncodingMaker>(); });
  reusing.start_epoch({2, 1});
  std::size_t k = 0;
  while (auto batch = reusing.next()) {
    REQUIRE(k < expected.size());
    CHECK(batch->images.equal(expected[k].images));  // checked before asking for the next one
    CHECK(batch->targets.equal(expected[k].targets));
    ++k;
  }
  CHECK(k == expected.size());
}
