#pragma once
// The glue between a scanned dataset split, its image source (decode-once cache) and
// augmentation: what the loader's workers call to make each sample.
//
//   TrainSampleMaker  the epoch's augmentation pipeline (augment/pipeline.hpp)
//   ValSampleMaker    letterbox only (validation has its own simple preprocessing)

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "libreyolo/core/data/augment/pipeline.hpp"
#include "libreyolo/core/data/cache/image_source.hpp"
#include "libreyolo/core/data/dataset/dataset_config.hpp"
#include "libreyolo/core/data/dataset/dataset_scan.hpp"
#include "libreyolo/core/data/loader/sample_maker.hpp"

#include "libreyolo/sdk/family.hpp"

namespace libreyolo::core::data {

// A split's images and boxes, shared read-only by every worker.
struct SplitSamples {
  std::shared_ptr<const ImageSource> images;  // index i = scanned image i
  std::vector<std::vector<LabelBox>> labels;  // normalised YOLO boxes per image
  std::vector<ImageSize> original_sizes;
  std::vector<std::string> file_names;  // the image's file name (no folder), for COCO JSON
};

SplitSamples make_split_samples(const ScanResult& scan, std::shared_ptr<const ImageSource> images);

// Scan (validate labels, once per run, cached) + image source for one split. Logs the scan's
// problem summary once when there is one. `cache_dir` holds the disk cache (cache=disk) and
// any scan cache that would otherwise land outside `dataset_root`. A train split without a
// single box is an Error (there is nothing to learn); another split without boxes is a warning.
struct SplitLoadOptions {
  int imgsz = 640;
  CacheMode cache = CacheMode::none;
  int threads = 0;  // for decoding the cache; 0 = one per core
  std::filesystem::path cache_dir;
  std::filesystem::path dataset_root;  // DatasetConfig::root; empty: no placement rule
  int local_ranks = 1;  // processes on this machine sharing the RAM budget
};
std::shared_ptr<const SplitSamples> load_split_samples(const DatasetSplit& split, int num_classes,
                                                       const SplitLoadOptions& options);

// Boxes of image i in the pixels of `view` (the cached image may be resized per axis).
std::vector<PixelBox> boxes_in_view(const std::vector<LabelBox>& labels, const ImageView& view);

// `pipelines` indexed by EpochMode::pipeline (not empty).
SampleMakerFactory train_sample_makers(std::shared_ptr<const SplitSamples> split,
                                       std::vector<PreparedPipeline> pipelines);
SampleMakerFactory val_sample_makers(std::shared_ptr<const SplitSamples> split, int imgsz,
                                     sdk::EvalResize resize = sdk::EvalResize::letterbox);

}  // namespace libreyolo::core::data
