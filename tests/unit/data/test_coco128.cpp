// The real bundled dataset: every image decodes, and the scan finds exactly what its data.yaml
// documents (2 background train images, 2 train label files without an image). Skipped when
// the dataset is not on this machine.
#include <doctest/doctest.h>

#include <cstdlib>

#include "libreyolo/core/data/dataset/dataset_config.hpp"
#include "libreyolo/core/data/dataset/dataset_scan.hpp"
#include "libreyolo/core/data/dataset/image_paths.hpp"
#include "libreyolo/core/data/image/image_decode.hpp"
#include "libreyolo/core/data/image/image_resize.hpp"
#include "support/test_paths.hpp"

using namespace libreyolo::core::data;
namespace fs = std::filesystem;

namespace {

// $LIBREYOLO_TEST_COCO128 first, then shared/datasets/coco128 in the folder that holds the
// checkout (development and CI machines have one). A user's clone has neither: skip.
fs::path coco128_dir() {
  if (const char* env = std::getenv("LIBREYOLO_TEST_COCO128")) return env;
  return fs::path(libreyolo::test_paths::source_dir()).parent_path() / "shared" / "datasets" / "coco128";
}

}  // namespace

TEST_CASE("coco128: every image decodes to the size its header reports") {
  const fs::path root = coco128_dir();
  if (!fs::is_directory(root / "images")) {
    MESSAGE("skipped: no coco128 at " << root.string());
    return;
  }
  const std::vector<fs::path> images = list_images(root / "images");
  REQUIRE(images.size() >= 128);
  for (const fs::path& path : images) {
    CAPTURE(path.string());
    const Image image = decode_image(path);
    const ImageSize header = read_image_size(path);
    CHECK(image.width == header.width);
    CHECK(image.height == header.height);
    REQUIRE(image.pixels.size() == image.row_bytes() * static_cast<std::size_t>(image.height));
  }
  const Image small = resize_long_side(decode_image(images.front()), 320);
  CHECK(std::max(small.width, small.height) == 320);
}

TEST_CASE("coco128: the scan finds the documented background images and orphan labels") {
  const fs::path root = coco128_dir();
  if (!fs::is_regular_file(root / "data.yaml")) {
    MESSAGE("skipped: no coco128 at " << root.string());
    return;
  }
  const DatasetConfig config = load_dataset_config(root / "data.yaml");
  CHECK(config.nc() == 80);
  CHECK(config.names[0] == "person");
  CHECK(config.names[79] == "toothbrush");

  ScanOptions options;
  options.use_cache = false;  // never write into a shared dataset from a test
  options.display_root = config.root;
  const ScanResult train = scan_split(config.train, config.nc(), options);
  MESSAGE(format_scan_report(train.report));
  CHECK(train.report.images_listed == 128);
  CHECK(train.report.count(ProblemKind::kBackgroundImage) == 2);
  CHECK(train.report.count(ProblemKind::kLabelWithoutImage) == 2);
  CHECK(train.report.count(ProblemKind::kImageUnreadable) == 0);
  CHECK(train.images.size() == 128);
  CHECK(train.report.boxes > 0);

  const ScanResult val = scan_split(config.val, config.nc(), options);
  MESSAGE(format_scan_report(val.report));
  CHECK(val.report.images_listed == 128);
  CHECK(val.report.count(ProblemKind::kImageUnreadable) == 0);
}
