#include "../torch_doctest.hpp"

#include "libreyolo/core/trainer/autobatch.hpp"

using namespace libreyolo::core::trainer;

TEST_CASE("autobatch: the line through the probe, then the power of two below it") {
  // 2 GiB fixed + 0.5 GiB per image: 60% of 80 GiB (48 GiB) is reached at 92 images -> 64.
  MemoryProbe probe{{1, 2, 4, 8, 16}, {2.5, 3.0, 4.0, 6.0, 10.0}};
  CHECK(batch_for_memory(probe, 48.0) == 64);
  CHECK(batch_for_memory(probe, 33.9) == 32);  // 63.8 images: the power of two below -> 32
  CHECK(batch_for_memory(probe, 2.4) == 1);     // not even one image: 1, never 0
  CHECK(batch_for_memory(probe, 1e9) == kAutobatchMax);
  CHECK_FALSE(batch_for_memory({{1}, {2.5}}, 48.0).has_value());                  // one point: no line
  CHECK_FALSE(batch_for_memory({{1, 2, 4}, {3.0, 3.0, 2.0}}, 48.0).has_value());  // memory does not grow
}

TEST_CASE("autobatch: the global batch under multi-GPU") {
  CHECK(global_autobatch(64, 1, 0) == 64);
  CHECK(global_autobatch(64, 2, 0) == 128);
  CHECK(global_autobatch(64, 4, 64) == 64);   // nbs caps the global batch: 16 per GPU, no accumulation
  CHECK(global_autobatch(32, 3, 64) == 63);   // capped, rounded down to a multiple of world_size
  CHECK(global_autobatch(8, 4, 2) == 4);      // never below one image per rank
}
