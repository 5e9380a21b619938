// The whole data pipeline on the bundled coco16 dataset: data.yaml -> scan -> decode-once
// cache -> augmentation -> threaded loader -> padded batches.
#include "../torch_doctest.hpp"

#include "libreyolo/core/data/dataset/dataset_samples.hpp"
#include "libreyolo/core/data/loader/data_loader.hpp"
#include "support/test_paths.hpp"

using namespace libreyolo::core::data;

namespace {

std::shared_ptr<const SplitSamples> coco16(const std::string& split, CacheMode cache) {
  const auto config = load_dataset_config(std::string(libreyolo::test_paths::source_dir()) + "/datasets/coco16/data.yaml");
  SplitLoadOptions options;
  options.imgsz = 320;
  options.cache = cache;
  options.threads = 2;
  return load_split_samples(split == "train" ? config.train : config.val, config.nc(), options);
}

LoaderOptions loader_options(std::size_t size, int batch, int workers) {
  LoaderOptions options;
  options.sampler.dataset_size = size;
  options.sampler.batch_size = batch;
  options.sampler.seed = 1;
  options.imgsz = 320;
  options.workers = workers;
  return options;
}

}  // namespace

TEST_CASE("data pipeline: coco16 train batches are augmented, boxed and reproducible") {
  const auto train = coco16("train", CacheMode::ram);
  REQUIRE(train->labels.size() == 16);
  namespace A = libreyolo::sdk::augment;
  const A::Pipeline mosaic{"mosaic", {A::Mosaic{}, A::Mixup{}, A::Letterbox{}, A::Hsv{}, A::Flip{}, A::FilterBoxes{}}};
  std::vector<torch::Tensor> first_run;
  for (int workers : {2, 0}) {
    DataLoader loader(loader_options(16, 8, workers), train_sample_makers(train, {prepare_pipeline(mosaic, 320)}));
    loader.start_epoch({0, 0});
    int batches = 0;
    while (auto batch = loader.next()) {
      ++batches;
      CHECK(batch->images.sizes() == torch::IntArrayRef({8, 320, 320, 3}));
      CHECK(batch->counts.sum().item<int64_t>() > 0);  // mosaics of labelled COCO images
      // Boxes lie inside the image and have a positive size.
      const auto valid = batch->targets.select(2, 3) > 0;
      const auto cx = batch->targets.select(2, 1).masked_select(valid);
      CHECK(cx.min().item<float>() >= 0.f);
      CHECK(cx.max().item<float>() <= 320.f);
      if (workers == 2) {
        first_run.push_back(batch->images);
      } else {
        CHECK(batch->images.equal(first_run[static_cast<size_t>(batches - 1)]));
      }
    }
    CHECK(batches == 2);
  }
}

TEST_CASE("data pipeline: validation letterboxes each image without HSV/flip") {
  const auto val = coco16("val", CacheMode::none);
  REQUIRE(val->labels.size() == 8);
  DataLoader loader(loader_options(8, 4, 2), val_sample_makers(val, 320));
  loader.start_epoch({0, 0});
  auto batch = loader.next();
  REQUIRE(batch);
  // Letterbox pads right/bottom with 114: the bottom-right pixel of a landscape image is padding.
  const auto first = batch->images[0];
  const auto index = batch->indices[0];
  const auto size = val->original_sizes[index];
  if (size.width > size.height) CHECK(first[319][319][0].item<int>() == 114);
  // Boxes equal the labels scaled to the letterboxed image (scale = 320 / long side).
  const auto& labels = val->labels[index];
  REQUIRE(batch->counts[0].item<int64_t>() == static_cast<int64_t>(labels.size()));
  const float scale = 320.f / static_cast<float>(std::max(size.width, size.height));
  CHECK(batch->targets[0][0][1].item<float>() ==
        doctest::Approx(labels[0].cx * static_cast<float>(size.width) * scale).epsilon(0.01));
}
