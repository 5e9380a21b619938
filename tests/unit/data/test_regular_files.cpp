// Only regular files are read (issue #20, item 9): a FIFO, a folder or a device where a
// data.yaml, a label file or an image should be is named for what it is, never opened (a FIFO
// would block forever) and never read as an empty file.
#include <doctest/doctest.h>
#include <sys/stat.h>

#include <string>

#include "data_test_support.hpp"
#include "libreyolo/core/data/dataset/dataset_config.hpp"
#include "libreyolo/core/data/dataset/dataset_scan.hpp"
#include "libreyolo/core/data/dataset/label_file.hpp"
#include "libreyolo/core/data/image/image_decode.hpp"
#include "libreyolo/core/data/image/image_header.hpp"
#include "libreyolo/core/error.hpp"
#include "libreyolo/core/util/regular_file.hpp"

using libreyolo::core::Error;
using namespace libreyolo::core::data;
using namespace libreyolo::test;
namespace fs = std::filesystem;
namespace util = libreyolo::core::util;

namespace {

fs::path make_fifo(const fs::path& path) {
  fs::create_directories(path.parent_path());
  REQUIRE(::mkfifo(path.c_str(), 0644) == 0);
  return path;
}

template <typename Call>
std::string error_of(Call&& call) {
  try {
    call();
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("not_regular_file_reason names FIFOs, folders and devices") {
  TempDir dir;
  write_text(dir / "plain.txt", "x");
  CHECK(util::not_regular_file_reason(dir / "plain.txt").empty());
  CHECK(util::not_regular_file_reason(dir / "missing.txt").empty());
  CHECK(util::not_regular_file_reason(make_fifo(dir / "pipe")) ==
        "it is a FIFO (named pipe), not a regular file");
  CHECK(util::not_regular_file_reason(dir.path()) == "it is a folder, not a regular file");
  CHECK(util::not_regular_file_reason("/dev/null") == "it is a character device, not a regular file");
  std::string why;
  CHECK(util::open_regular_file(dir / "pipe", &why) == -1);
  CHECK(why.find("FIFO") != std::string::npos);
}

TEST_CASE("Label files, images and data.yaml that are FIFOs or devices are refused, not read") {
  TempDir dir;
  const fs::path fifo = make_fifo(dir / "pipe.txt");
  CHECK(error_of([&] { read_label_file(fifo, 1); }).find("is a FIFO (named pipe), not a regular file") !=
        std::string::npos);
  CHECK(error_of([&] { read_label_file("/dev/zero", 1); }).find("character device") != std::string::npos);
  const fs::path fifo_image = make_fifo(dir / "pipe.jpg");
  CHECK(error_of([&] { read_image_size(fifo_image); }).find("FIFO") != std::string::npos);
  CHECK(error_of([&] { decode_image(fifo_image); }).find("FIFO") != std::string::npos);

  const fs::path fifo_yaml = make_fifo(dir / "data.yaml");
  const std::string by_path = error_of([&] { resolve_dataset_yaml(fifo_yaml.string(), {}); });
  CHECK(by_path.find("Cannot read dataset file " + fifo_yaml.string() + ": it is a FIFO") !=
        std::string::npos);
  CHECK(error_of([&] { load_dataset_config(fifo_yaml); }).find("FIFO") != std::string::npos);
  // Found by name in a search folder: also named, not skipped as "not found".
  const std::string by_name = error_of([&] { resolve_dataset_yaml(dir.path().filename().string(), {dir.path().parent_path()}); });
  CHECK(by_name.find("FIFO") != std::string::npos);
  CHECK(error_of([&] { load_dataset_config("/dev/null"); }).find("character device") != std::string::npos);
}

TEST_CASE("The scan reports labels that are folders or FIFOs and images that are FIFOs") {
  TempDir dir;
  const auto jpeg = encode_jpeg(16, 16, 3, solid(16, 16, 3, 90));
  write_bytes(dir / "images/train/good.jpg", jpeg);
  write_text(dir / "labels/train/good.txt", "0 0.5 0.5 0.2 0.2\n");
  write_bytes(dir / "images/train/folder.jpg", jpeg);
  fs::create_directories(dir / "labels/train/folder.txt");
  write_bytes(dir / "images/train/fifo.jpg", jpeg);
  make_fifo(dir / "labels/train/fifo.txt");
  make_fifo(dir / "images/train/pipe_image.jpg");
  write_text(dir / "data.yaml", "train: images/train\nnames: [a]\n");
  const DatasetConfig config = load_dataset_config(dir / "data.yaml");
  REQUIRE(config.train.images.size() == 4);  // the FIFO image is listed, so it is reported

  ScanOptions options;
  options.use_cache = false;
  const ScanResult result = scan_split(config.train, 1, options);
  REQUIRE(result.images.size() == 1);  // neither is taken for a background image
  const ProblemTally& labels = result.report.tally(ProblemKind::kLabelUnreadable);
  CHECK(labels.count == 2);
  const std::string report = format_scan_report(result.report);
  CHECK(report.find("folder.txt (it is a folder, not a regular file. ") != std::string::npos);
  CHECK(report.find("fifo.txt (it is a FIFO (named pipe), not a regular file. ") != std::string::npos);
  CHECK(report.find("pipe_image.jpg (it is a FIFO (named pipe), not a regular file)") != std::string::npos);
  CHECK(result.report.tally(ProblemKind::kBackgroundImage).count == 0);
}

TEST_CASE("A split source that is a FIFO is named for what it is") {
  TempDir dir;
  make_fifo(dir / "train.txt");
  write_text(dir / "data.yaml", "train: train.txt\nnames: [a]\n");
  const std::string error = error_of([&] { load_dataset_config(dir / "data.yaml"); });
  CHECK(error.find("cannot be read") != std::string::npos);
  CHECK(error.find("it is a FIFO (named pipe), not a regular file") != std::string::npos);
}
