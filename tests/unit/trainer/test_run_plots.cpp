#include <doctest/doctest.h>

#include <fstream>
#include <set>

#include "../temp_dir.hpp"
#include "libreyolo/core/data/image/image_decode.hpp"
#include "libreyolo/core/draw/annotate.hpp"
#include "libreyolo/core/draw/line_chart.hpp"
#include "libreyolo/core/error.hpp"
#include "libreyolo/core/trainer/run_plots.hpp"

using namespace libreyolo::core;
namespace fs = std::filesystem;

namespace {
// A real picture: decodable, with many colours (text, lines, dots), not one filled rectangle.
std::size_t colours_in(const data::Image& image) {
  std::set<std::uint32_t> colours;
  for (std::size_t i = 0; i + 2 < image.pixels.size(); i += 3) {
    colours.insert((std::uint32_t{image.pixels[i]} << 16) | (image.pixels[i + 1] << 8) | image.pixels[i + 2]);
  }
  return colours.size();
}

void write_results_csv(const fs::path& file) {
  std::ofstream out(file);
  // LibreYOLO's layout, shortened: bookkeeping, text and best-so-far columns are not plotted,
  // nor metrics other than the (B) ones, nor learning rates but group 0's.
  out << "epoch,time,images_per_second,validated,current_metric_name,best_epoch,train/box_loss,train/cls_loss,"
         "metrics/mAP75,metrics/mAP50(B),metrics/mAP50-95(B),lr/group0,lr/group1\n"
         "1,2.5,100,0,metrics/mAP50-95,,3.2,5.8,,,,0.01,0.01\n"
         "2,2.4,110,1,metrics/mAP50-95,2,3.0,5.1,0.02,0.1,0.05,0.009,0.009\n"
         "3,2.4,110,1,metrics/mAP50-95,3,2.7,4.6,0.03,0.2,0.09,0.008,0.008\n";
}
}  // namespace

TEST_CASE("chart ticks: round steps of 1, 2 or 5 covering the range") {
  const auto expect_ticks = [](const std::vector<double>& ticks, const std::vector<double>& expected) {
    REQUIRE(ticks.size() == expected.size());
    for (std::size_t i = 0; i < ticks.size(); ++i) CHECK(ticks[i] == doctest::Approx(expected[i]));
  };
  expect_ticks(draw::nice_ticks(0, 1, 5), {0, 0.2, 0.4, 0.6, 0.8, 1});
  expect_ticks(draw::nice_ticks(3.07, 3.26, 4), {3.1, 3.15, 3.2, 3.25});
  expect_ticks(draw::nice_ticks(-0.3, 0.3, 3), {-0.2, 0, 0.2});
  expect_ticks(draw::nice_ticks(2, 2, 4), {2});
  CHECK(draw::tick_label(0.00001) == "1.0e-05");
  CHECK(draw::tick_label(0.25) == "0.25");
  CHECK(draw::tick_label(300) == "300");
}

TEST_CASE("run plots: results.png, labels.jpg and train_batch0.jpg are real pictures of the expected size") {
  const libreyolo::test::TempDir dir;
  write_results_csv(dir / "results.csv");
  if (!draw::drawing_available()) {  // a build without OpenCV refuses, it never writes a blank picture
    CHECK_THROWS_AS(trainer::plot_results(dir / "results.csv", dir / "results.png"), Error);
    CHECK_FALSE(fs::exists(dir / "results.png"));
    return;
  }
  trainer::plot_results(dir / "results.csv", dir / "results.png");
  const auto results = data::decode_image(dir / "results.png");
  CHECK(results.width == 3 * 300);  // two losses, two mAPs, lr/group0: five panels in two rows of three
  CHECK(results.height == 2 * 240);
  CHECK(colours_in(results) > 50);

  std::vector<std::vector<data::LabelBox>> labels = {{{0, 0.5f, 0.5f, 0.2f, 0.3f}, {2, 0.1f, 0.9f, 0.05f, 0.05f}}, {}};
  trainer::plot_labels(labels, {"person", "bicycle", "car"}, dir / "labels.jpg");
  const auto label_picture = data::decode_image(dir / "labels.jpg");
  CHECK(label_picture.width == 800);
  CHECK(label_picture.height == 800);
  CHECK(colours_in(label_picture) > 50);

  std::vector<trainer::BatchTile> tiles(3);
  for (auto& tile : tiles) {
    tile.image.width = tile.image.height = 64;
    tile.image.pixels.assign(64 * 64 * 3, 200);
    tile.boxes.push_back({8, 8, 40, 40, 1, "bicycle"});
  }
  trainer::plot_batch(tiles, dir / "train_batch0.jpg");
  const auto batch = data::decode_image(dir / "train_batch0.jpg");
  CHECK(batch.width == 128);  // three tiles: a 2 x 2 grid
  CHECK(batch.height == 128);
  CHECK(colours_in(batch) > 10);
}

TEST_CASE("run plots: a missing results.csv is an error naming the file") {
  const libreyolo::test::TempDir dir;
  CHECK_THROWS_WITH_AS(trainer::plot_results(dir / "results.csv", dir / "results.png"),
                       doctest::Contains("the file is missing or empty"), Error);
}
