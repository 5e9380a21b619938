// Times the host's post-processing (candidate selection + per-class greedy NMS) on what an
// unconfident model gives at validation (conf 0.001): 16 images, 8400 anchors, 80 classes, every
// (anchor, class) pair above conf, RTMDet's 90000-candidate cap. docs/benchmarks.md, "NMS".
//   nms_bench [repeats=3]
#include <torch/torch.h>

#include <chrono>
#include <cstdlib>
#include <iostream>
#include <vector>

#include "libreyolo/core/eval/nms.hpp"

using namespace libreyolo::core::eval;

int main(int argc, char** argv) {
  const int repeats = argc > 1 ? std::atoi(argv[1]) : 3;
  torch::manual_seed(0);
  const int64_t images = 16, anchors = 8400, classes = 80;
  const auto centre = torch::rand({images, anchors, 2}) * 640;
  const auto size = torch::rand({images, anchors, 2}) * 120 + 4;
  const auto boxes = torch::cat({centre - size / 2, centre + size / 2}, 2);
  const auto scores = torch::rand({images, anchors, classes}) * 0.05;
  InputToOriginal map;
  map.original_width = 640;
  map.original_height = 640;
  NmsOptions options;
  options.multi_label = true;
  options.max_candidates = 90000;
  for (int r = 0; r < repeats; ++r) {
    const auto start = std::chrono::steady_clock::now();
    const auto out = postprocess_detections(boxes, scores, std::vector<InputToOriginal>(images, map), options);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    size_t kept = 0;
    for (const auto& image : out) kept += image.size();
    std::cout << "nms_bench: " << seconds << " s for " << images << " images (" << kept << " detections kept)\n";
  }
  return 0;
}
