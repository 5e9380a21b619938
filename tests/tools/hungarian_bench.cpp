// Times batched Hungarian matching (sdk/detr/batched_matching.hpp) on one RT-DETR training
// step's worth of matrices: 16 images x 300 queries x 100 GT, costs built like the RT-DETR
// matcher's (focal class cost + L1 + GIoU of random boxes, some queries near a GT).
// docs/families/rtdetr-matcher.md, "Speed".
//   hungarian_bench [repeats=10] [matrices=16] [threads=0 (choose)]
#include <torch/torch.h>

#include <libreyolo/sdk/detr/batched_matching.hpp>
#include <libreyolo/sdk/losses/box_ops.hpp>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <vector>

namespace losses = libreyolo::sdk::losses;

namespace {

// cx, cy, w, h in [0, 1].
torch::Tensor random_boxes(int64_t n, int64_t count) {
  return torch::cat({torch::rand({n, count, 2}), 0.02 + 0.5 * torch::rand({n, count, 2})}, 2);
}

torch::Tensor detr_like_cost(int64_t n, int64_t queries, int64_t gts) {
  const auto gt = random_boxes(n, gts);
  auto pred = random_boxes(n, queries);
  // 30% of the queries sit close to a GT box, as after some training.
  const auto pick = torch::randint(gts, {n, queries});
  const auto near = gt.gather(1, pick.unsqueeze(2).expand({n, queries, 4})) + 0.02 * torch::randn({n, queries, 4});
  const auto chosen = (torch::rand({n, queries, 1}) < 0.3).expand({n, queries, 4});
  pred = torch::where(chosen, near, pred);
  pred = torch::cat({pred.narrow(2, 0, 2), pred.narrow(2, 2, 2).abs() + 0.01}, 2);

  const double alpha = 0.25;
  const auto p = torch::sigmoid(torch::randn({n, queries, gts}) * 1.5 - 4);
  const auto pos = alpha * (1 - p).pow(2) * -(p + 1e-8).log();
  const auto neg = (1 - alpha) * p.pow(2) * -(1 - p + 1e-8).log();
  const auto l1 = torch::cdist(pred, gt, 1);
  const auto giou = losses::pairwise_box_iou(losses::xywh_to_xyxy(pred), losses::xywh_to_xyxy(gt),
                                             losses::IoUKind::giou);
  return 2 * (pos - neg) + 5 * l1 - 2 * giou;
}

}  // namespace

int main(int argc, char** argv) {
  const int repeats = argc > 1 ? std::atoi(argv[1]) : 10;
  const int64_t matrices = argc > 2 ? std::atoll(argv[2]) : 16;
  const int threads = argc > 3 ? std::atoi(argv[3]) : 0;
  const int64_t queries = 300, gts = 100;
  torch::manual_seed(0);
  const auto cost = detr_like_cost(matrices, queries, gts).contiguous();
  const std::vector<int64_t> gt_counts(static_cast<size_t>(matrices), gts);
  std::vector<double> ms;
  for (int r = 0; r < repeats; ++r) {
    const auto start = std::chrono::steady_clock::now();
    const auto result = threads > 0 ? libreyolo::sdk::detr::match_batched_cpu(cost, gt_counts, threads)
                                    : libreyolo::sdk::detr::match_batched(cost, gt_counts);
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
    if ((result >= 0).sum().item<int64_t>() != matrices * gts) {
      std::cerr << "hungarian_bench: not every GT was matched\n";
      return 1;
    }
  }
  std::sort(ms.begin(), ms.end());
  std::cout << "hungarian_bench: [" << matrices << ", " << queries << ", " << gts << "] float32, "
            << (threads > 0 ? std::to_string(threads) : std::string("auto")) << " threads, " << repeats
            << " repeats: median " << ms[ms.size() / 2] << " ms, min " << ms.front() << " ms, max " << ms.back()
            << " ms per batch\n";
  return 0;
}
