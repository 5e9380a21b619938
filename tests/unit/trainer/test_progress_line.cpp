#include <doctest/doctest.h>

#include <algorithm>
#include <string>

#include "libreyolo/core/trainer/progress_display.hpp"

using namespace libreyolo::core::trainer;

namespace {
ProgressFields example_fields() {
  ProgressFields f;
  f.epoch = 2;
  f.epochs = 100;
  f.step = 12;
  f.steps = 64;
  f.images_per_second = 611.4;
  f.epoch_eta_seconds = 5;
  f.run_eta_seconds = 3723;
  f.gpu_memory_gb = 7.25;
  f.losses = {{"box", 1.23456}, {"cls", 2.5}, {"dfl", 0.75}};
  return f;
}
}  // namespace

TEST_CASE("progress line: everything on a wide terminal, most important first") {
  CHECK(progress_line(example_fields(), 200) ==
        " epoch 3/100  12/64  611 img/s  ETA 0:05 (run 1:02:03)  7.2G  box 1.2346  cls 2.5000  dfl 0.7500");
}

TEST_CASE("progress line: a narrow terminal drops loss parts whole and never reaches the last column") {
  const auto f = example_fields();
  for (std::size_t width : {10u, 40u, 60u, 70u, 80u}) {
    CAPTURE(width);
    const auto line = progress_line(f, width);
    CHECK(line.size() <= width - 1);
    const std::string start = " epoch 3/100";  // cut itself only below its own length
    const auto shared = std::min(line.size(), start.size());
    CHECK(line.substr(0, shared) == start.substr(0, shared));
  }
  CHECK(progress_line(f, 70) == " epoch 3/100  12/64  611 img/s  ETA 0:05 (run 1:02:03)  7.2G");
  CHECK(progress_line(f, 80) == " epoch 3/100  12/64  611 img/s  ETA 0:05 (run 1:02:03)  7.2G  box 1.2346");
}

TEST_CASE("progress line: no GPU memory on the CPU") {
  auto f = example_fields();
  f.gpu_memory_gb = -1;
  f.losses.clear();
  CHECK(progress_line(f, 200) == " epoch 3/100  12/64  611 img/s  ETA 0:05 (run 1:02:03)");
}

TEST_CASE("images a second: whole above 10, one decimal below (a CPU's 0.8 is not a stall)") {
  using libreyolo::core::trainer::format_images_per_second;
  CHECK(format_images_per_second(611.4) == "611 img/s");
  CHECK(format_images_per_second(0.84) == "0.8 img/s");
  CHECK(format_images_per_second(9.94) == "9.9 img/s");
  CHECK(format_images_per_second(0) == "0.0 img/s");
}
