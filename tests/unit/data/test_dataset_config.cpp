// data.yaml loading: names, splits, dataset lookup by name, and the errors users will hit.
#include <doctest/doctest.h>

#include <cstdlib>
#include <functional>

#include "data_test_support.hpp"
#include "libreyolo/core/data/dataset/dataset_config.hpp"
#include "libreyolo/core/data/dataset/image_paths.hpp"
#include "libreyolo/core/error.hpp"

using libreyolo::core::Error;
using namespace libreyolo::core::data;
using libreyolo::test::TempDir;
using libreyolo::test::write_text;
namespace fs = std::filesystem;

namespace {

// Image files only need to exist for listing; their content is never read here.
void touch_images(const TempDir& dir, const std::vector<std::string>& relative) {
  for (const std::string& r : relative) write_text(dir / r, "x");
}

std::string error_text(const std::function<void()>& action) {
  try {
    action();
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace

TEST_CASE("Label paths follow the YOLO images/ -> labels/ convention") {
  CHECK(label_path_for_image("/d/images/train/a.jpg") == fs::path("/d/labels/train/a.txt"));
  CHECK(label_path_for_image("/images/d/images/train/a.b.PNG") ==
        fs::path("/images/d/labels/train/a.b.txt"));
  CHECK(label_path_for_image("/d/train/a.jpeg") == fs::path("/d/train/a.txt"));
  CHECK(label_path_for_image("/d/myimages/a.jpg") == fs::path("/d/myimages/a.txt"));
  CHECK(label_folder_for_image_folder("/d/images/val") == fs::path("/d/labels/val"));
  CHECK(has_image_extension("a.JPG"));
  CHECK(has_image_extension("a.Jpeg"));
  CHECK_FALSE(has_image_extension("a.bmp"));
  CHECK_FALSE(has_image_extension("jpg"));
}

TEST_CASE("A data.yaml with folder splits and an int-keyed names map loads") {
  TempDir dir;
  touch_images(dir, {"ds/images/train/b.jpg", "ds/images/train/a.PNG", "ds/images/train/sub/c.jpeg",
                     "ds/images/train/notes.md", "ds/images/val/v.jpg"});
  write_text(dir / "ds/data.yaml",
             "path: .\ntrain: images/train\nval: images/val/\nnames:\n  1: dog\n  0: cat\n");
  const DatasetConfig config = load_dataset_config(dir / "ds/data.yaml");
  CHECK(config.root == (dir.path() / "ds").lexically_normal());
  CHECK(config.names == std::vector<std::string>{"cat", "dog"});
  CHECK(config.nc() == 2);
  REQUIRE(config.train.images.size() == 3);
  CHECK(config.train.images[0].filename() == "a.PNG");  // sorted by path
  CHECK(config.train.images[1].filename() == "b.jpg");
  CHECK(config.train.images[2].filename() == "c.jpeg");
  CHECK(config.train.folders.size() == 1);
  CHECK(config.val.images.size() == 1);
  CHECK_FALSE(config.test.defined);
  CHECK(&config.split("val") == &config.val);
  CHECK_THROWS_AS(config.split("test"), Error);
  CHECK_THROWS_AS(config.split("training"), Error);
}

TEST_CASE("Splits can be .txt lists and YAML lists; path is relative to the yaml") {
  TempDir dir;
  touch_images(dir, {"data/images/a.jpg", "data/images/b.jpg", "data/extra/c.png"});
  write_text(dir / "data/train.txt", "./images/b.jpg\n\n# comment\nimages/a.jpg\r\n" +
                                         (dir / "data/images/a.jpg").string() + "\nREADME\n");
  write_text(dir / "cfg/data.yaml",
             "path: ../data\ntrain: [train.txt, extra]\nval: extra/c.png\ntest:\nnames: [a, b, "
             "c]\nnc: 3\n");
  const DatasetConfig config = load_dataset_config(dir / "cfg/data.yaml");
  REQUIRE(config.train.images.size() == 4);
  CHECK(config.train.images[0].filename() == "b.jpg");  // list order kept
  CHECK(config.train.images[1].filename() == "a.jpg");
  CHECK(config.train.images[2] == config.train.images[1]);  // repeated on purpose: kept
  CHECK(config.train.images[3].filename() == "c.png");
  CHECK(config.train.folders.size() == 1);
  CHECK(config.val.images.size() == 1);
  CHECK_FALSE(config.test.defined);
}

TEST_CASE("names and nc must agree") {
  TempDir dir;
  touch_images(dir, {"images/a.jpg"});
  auto load = [&](const std::string& names) {
    write_text(dir / "data.yaml", "train: images\n" + names);
    return load_dataset_config(dir / "data.yaml");
  };
  CHECK(load("nc: 2\n").names == std::vector<std::string>{"class0", "class1"});
  CHECK(contains(error_text([&] { load("names: [a, b]\nnc: 3\n"); }), "nc is 3 but names lists 2"));
  CHECK(contains(error_text([&] { load("names: {0: a, 2: c}\n"); }), "1 is missing"));
  CHECK(contains(error_text([&] { load("names: {0: a, x: c}\n"); }), "not an integer"));
  CHECK(contains(error_text([&] { load("names: []\n"); }), "empty"));
  CHECK(contains(error_text([&] { load("names: a\n"); }), "list or a map"));
  CHECK(contains(error_text([&] { load("nc: -1\n"); }), "positive"));
  CHECK(contains(error_text([&] { load("\n"); }), "neither 'names' nor 'nc'"));
}

TEST_CASE("Clear errors for malformed YAML, missing files and missing split folders") {
  TempDir dir;
  write_text(dir / "broken.yaml", "train: images\nnames: [a, b\nval: x\n");
  const std::string malformed = error_text([&] { load_dataset_config(dir / "broken.yaml"); });
  CHECK(contains(malformed, "Malformed dataset file"));
  CHECK(contains(malformed, "broken.yaml:"));

  CHECK(contains(error_text([&] { load_dataset_config(dir / "nope.yaml"); }), "not found"));

  write_text(dir / "scalar.yaml", "just a string\n");
  CHECK(contains(error_text([&] { load_dataset_config(dir / "scalar.yaml"); }), "not a YAML map"));

  write_text(dir / "missing_split.yaml", "train: images/train2017\nnames: [a]\n");
  const std::string missing = error_text([&] { load_dataset_config(dir / "missing_split.yaml"); });
  CHECK(contains(missing, "Split 'train'"));
  CHECK(contains(missing, "images/train2017"));
  CHECK(contains(missing, "missing_split.yaml:1"));

  write_text(dir / "no_splits.yaml", "names: [a]\n");
  CHECK(contains(error_text([&] { load_dataset_config(dir / "no_splits.yaml"); }),
                 "neither a 'train' nor a 'val'"));

  write_text(dir / "bad_root.yaml", "path: nowhere\ntrain: images\nnames: [a]\n");
  CHECK(contains(error_text([&] { load_dataset_config(dir / "bad_root.yaml"); }), "Dataset root"));
}

TEST_CASE("Dataset names resolve through the search folders in order") {
  TempDir dir;
  write_text(dir / "first/shared/data.yaml", "x: 1\n");
  write_text(dir / "second/shared/data.yaml", "x: 1\n");
  write_text(dir / "second/only2/data.yaml", "x: 1\n");
  const std::vector<fs::path> dirs = {dir / "first", dir / "second"};
  CHECK(resolve_dataset_yaml("shared", dirs) == (dir / "first/shared/data.yaml"));
  CHECK(resolve_dataset_yaml("only2", dirs) == (dir / "second/only2/data.yaml"));
  const std::string unknown = error_text([&] { resolve_dataset_yaml("coco999", dirs); });
  CHECK(contains(unknown, "'coco999' not found"));
  CHECK(contains(unknown, (dir / "first/coco999/data.yaml").string()));
  CHECK(contains(unknown, (dir / "second/coco999/data.yaml").string()));
  CHECK(contains(error_text([&] { resolve_dataset_yaml("", dirs); }), "No dataset"));
  CHECK(contains(error_text([&] { resolve_dataset_yaml((dir / "x.yaml").string(), dirs); }),
                 "not found"));
  CHECK(contains(error_text([&] { resolve_dataset_yaml((dir / "first/shared").string(), dirs); }),
                 "is a folder"));

  ::setenv("LIBREYOLO_DATASETS",
           (":" + (dir / "first").string() + "::" + (dir / "second").string()).c_str(), 1);
  const std::vector<fs::path> search = dataset_search_dirs(dir / "bundled");
  ::unsetenv("LIBREYOLO_DATASETS");
  REQUIRE(search.size() == 4);
  CHECK(search[0].filename() == "datasets");
  CHECK(search[1] == dir / "first");
  CHECK(search[2] == dir / "second");
  CHECK(search[3] == dir / "bundled");
  CHECK(dataset_search_dirs({}).size() == 1);
}
