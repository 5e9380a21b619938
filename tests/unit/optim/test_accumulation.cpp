// Gradient accumulation as LibreYOLO plans it: round(nbs / batch) micro-batches per step.

#include <doctest/doctest.h>

#include "libreyolo/core/error.hpp"
#include "libreyolo/core/optim/accumulation.hpp"

namespace optim = libreyolo::core::optim;

TEST_CASE("accumulation_steps: max(1, round(nbs / batch)), Python rounding") {
  CHECK(optim::accumulation_steps(std::nullopt, 16) == 1);  // nbs unset: no accumulation
  CHECK(optim::accumulation_steps(64, 16) == 4);
  CHECK(optim::accumulation_steps(64, 64) == 1);
  CHECK(optim::accumulation_steps(64, 24) == 3);   // 2.67
  CHECK(optim::accumulation_steps(40, 16) == 2);   // 2.5: halves go to even
  CHECK(optim::accumulation_steps(56, 16) == 4);   // 3.5: halves go to even
  CHECK(optim::accumulation_steps(8, 16) == 1);    // 0.5 rounds to 0, at least 1
  CHECK(optim::accumulation_steps(16, 128) == 1);  // batch above nbs
  CHECK_THROWS_AS(optim::accumulation_steps(64, 0), libreyolo::core::Error);
  CHECK_THROWS_AS(optim::accumulation_steps(0, 16), libreyolo::core::Error);
}

TEST_CASE("optimizer_steps_per_epoch: ceil(batches / accumulate)") {
  CHECK(optim::optimizer_steps_per_epoch(10, 1) == 10);
  CHECK(optim::optimizer_steps_per_epoch(10, 4) == 3);
  CHECK(optim::optimizer_steps_per_epoch(12, 4) == 3);
  CHECK(optim::optimizer_steps_per_epoch(3, 4) == 1);
}

TEST_CASE("accumulation_window: where each micro-batch falls") {
  // Epoch 1 of 10 micro-batches, 4 per window: windows [0-3] [4-7] [8-9].
  auto w = optim::accumulation_window(1, 0, 10, 4);
  CHECK(w.optimizer_step == 3);
  CHECK(w.starts_window);
  CHECK_FALSE(w.ends_window);
  CHECK(w.window_size == 4);

  w = optim::accumulation_window(1, 3, 10, 4);
  CHECK(w.optimizer_step == 3);
  CHECK_FALSE(w.starts_window);
  CHECK(w.ends_window);

  w = optim::accumulation_window(1, 8, 10, 4);  // the short last window
  CHECK(w.optimizer_step == 5);
  CHECK(w.starts_window);
  CHECK_FALSE(w.ends_window);
  CHECK(w.window_size == 2);

  w = optim::accumulation_window(1, 9, 10, 4);
  CHECK(w.optimizer_step == 5);
  CHECK(w.ends_window);
  CHECK(w.window_size == 2);

  // No accumulation: every micro-batch is a whole window.
  w = optim::accumulation_window(2, 5, 10, 1);
  CHECK(w.optimizer_step == 25);
  CHECK(w.starts_window);
  CHECK(w.ends_window);
  CHECK(w.window_size == 1);
}
