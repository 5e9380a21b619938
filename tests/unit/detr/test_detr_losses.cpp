// The DETR loss and matching-cost pieces (sdk/detr/detr_losses, detr::generalized_box_iou)
// against their formulas written out per element. Parity with LibreYOLO's matcher and criterion:
// test_detr_losses_parity.cpp.
#include "../torch_doctest.hpp"

#include <libreyolo/sdk/detr/box_ops.hpp>
#include <libreyolo/sdk/detr/detr_losses.hpp>
#include <libreyolo/sdk/losses/box_ops.hpp>

#include <algorithm>
#include <cmath>

namespace detr = libreyolo::sdk::detr;
namespace losses = libreyolo::sdk::losses;

namespace {

double sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }

// BCE with logits, the numerically stable form.
double bce(double x, double t) { return std::max(x, 0.0) - x * t + std::log1p(std::exp(-std::abs(x))); }

// LibreYOLO's GIoU of two xyxy boxes, in double.
double giou(const double* a, const double* b) {
  const double inter = std::max(0.0, std::min(a[2], b[2]) - std::max(a[0], b[0])) *
                       std::max(0.0, std::min(a[3], b[3]) - std::max(a[1], b[1]));
  const double uni = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter;
  const double area = (std::max(a[2], b[2]) - std::min(a[0], b[0])) * (std::max(a[3], b[3]) - std::min(a[1], b[1]));
  return inter / (uni + 1e-6) - (area - uni) / (area + 1e-6);
}

double focal_cost(double p, double alpha, double gamma) {
  return alpha * std::pow(1 - p, gamma) * -std::log(p + 1e-8) - (1 - alpha) * std::pow(p, gamma) * -std::log(1 - p + 1e-8);
}

}  // namespace

TEST_CASE("varifocal_loss: BCE towards the IoU score, negatives weighted by alpha p^gamma, weight without gradient") {
  torch::manual_seed(2);
  const auto logits = (torch::randn({2, 3, 4}) * 2).requires_grad_();
  const auto one_hot = (torch::rand({2, 3, 4}) < 0.3).to(torch::kFloat32);
  const auto score = one_hot * torch::rand({2, 3, 4});
  const auto loss = detr::varifocal_loss(logits, score, one_hot);
  loss.sum().backward();
  const auto x = logits.detach().flatten(), t = score.flatten(), h = one_hot.flatten();
  const auto value = loss.detach().flatten(), grad = logits.grad().flatten();
  for (int64_t i = 0; i < x.numel(); ++i) {
    const double xi = x[i].item<double>(), ti = t[i].item<double>(), hi = h[i].item<double>();
    const double weight = 0.75 * std::pow(sigmoid(xi), 2.0) * (1 - hi) + ti;
    CHECK(value[i].item<double>() == doctest::Approx(weight * bce(xi, ti)).epsilon(1e-5));
    CHECK(grad[i].item<double>() == doctest::Approx(weight * (sigmoid(xi) - ti)).epsilon(1e-4));
  }
  CHECK_THROWS_WITH_AS(detr::varifocal_loss(logits, score.narrow(2, 0, 3), one_hot), doctest::Contains("target_score"),
                       c10::Error);
}

TEST_CASE("sigmoid_focal_loss: torchvision's formula, with and without alpha") {
  torch::manual_seed(3);
  const auto logits = torch::randn({3, 5}) * 3;
  const auto targets = (torch::rand({3, 5}) < 0.4).to(torch::kFloat32);
  for (const double alpha : {0.25, -1.0}) {
    CAPTURE(alpha);
    const auto loss = detr::sigmoid_focal_loss(logits, targets, alpha, 2.0).flatten();
    for (int64_t i = 0; i < loss.numel(); ++i) {
      const double x = logits.flatten()[i].item<double>(), t = targets.flatten()[i].item<double>();
      const double p = sigmoid(x), p_t = p * t + (1 - p) * (1 - t);
      const double alpha_t = alpha >= 0 ? alpha * t + (1 - alpha) * (1 - t) : 1.0;
      CHECK(loss[i].item<double>() == doctest::Approx(alpha_t * bce(x, t) * std::pow(1 - p_t, 2.0)).epsilon(1e-5));
    }
  }
}

TEST_CASE("focal_matching_cost: the matcher's class cost at each GT's class, padding labels clamped") {
  torch::manual_seed(4);
  const auto logits = torch::randn({2, 3, 4}) * 2;
  const auto labels = torch::tensor({3, 0, 1, 2, 2, -1}, torch::kLong).view({2, 3});  // -1: padding
  const auto cost = detr::focal_matching_cost(logits, labels);
  REQUIRE(cost.sizes() == std::vector<int64_t>{2, 3, 3});
  for (int64_t b = 0; b < 2; ++b)
    for (int64_t q = 0; q < 3; ++q)
      for (int64_t m = 0; m < 3; ++m) {
        const auto label = std::max<int64_t>(0, labels[b][m].item<int64_t>());
        const double p = sigmoid(logits[b][q][label].item<double>());
        CHECK(cost[b][q][m].item<double>() == doctest::Approx(focal_cost(p, 0.25, 2.0)).epsilon(1e-5));
      }
  CHECK_THROWS_WITH_AS(detr::focal_matching_cost(logits, labels.to(torch::kFloat32)),
                       doctest::Contains("integer class indices"), c10::Error);
  CHECK_THROWS_AS(detr::focal_matching_cost(logits, labels.narrow(0, 0, 1)), c10::Error);
}

TEST_CASE("generalized_box_iou: LibreYOLO's eps placement, unlike sdk::losses::box_iou's on small boxes") {
  // a = [0, 0, .01, .01], b = [.005, .005, .015, .015]: inter 2.5e-5, union 1.75e-4, enclosing 2.25e-4.
  const auto a = torch::tensor({0.0, 0.0, 0.01, 0.01}, torch::kFloat64);
  const auto b = torch::tensor({0.005, 0.005, 0.015, 0.015}, torch::kFloat64);
  const double expected = 2.5e-5 / (1.75e-4 + 1e-6) - (2.25e-4 - 1.75e-4) / (2.25e-4 + 1e-6);
  CHECK(detr::generalized_box_iou(a, b).item<double>() == doctest::Approx(expected).epsilon(1e-9));
  // The shared one adds eps to the enclosing area before subtracting the union: off by ~eps / area.
  const double shared = losses::box_iou(a, b, losses::IoUKind::giou, 1e-6).item<double>();
  CHECK(std::abs(shared - expected) > 1e-3);
  const auto pairwise = detr::pairwise_generalized_box_iou(torch::stack({a, b}).unsqueeze(0), b.view({1, 1, 4}));
  CHECK(pairwise.sizes() == std::vector<int64_t>{1, 2, 1});
  CHECK(pairwise[0][1][0].item<double>() == doctest::Approx(1.0 / (1.0 + 1e-6 / 1e-4)).epsilon(1e-9));
}

TEST_CASE("detr_matching_cost: 5 L1 + 2 focal class cost - 2 GIoU, each image against its own GTs") {
  torch::manual_seed(5);
  const int64_t B = 2, Q = 4, M = 3, C = 3;
  const auto logits = torch::randn({B, Q, C});
  const auto boxes = torch::cat({torch::rand({B, Q, 2}) * 0.6 + 0.2, torch::rand({B, Q, 2}) * 0.4 + 0.1}, -1);
  auto gt_boxes = torch::cat({torch::rand({B, M, 2}) * 0.6 + 0.2, torch::rand({B, M, 2}) * 0.4 + 0.1}, -1);
  gt_boxes[1][2].zero_();  // a padding column: zero box, label 0, must stay finite
  const auto labels = torch::tensor({0, 2, 1, 1, 1, 0}, torch::kLong).view({B, M});
  const auto cost = detr::detr_matching_cost(logits, boxes.requires_grad_(), labels, gt_boxes);
  REQUIRE(cost.sizes() == std::vector<int64_t>{B, Q, M});
  CHECK_FALSE(cost.requires_grad());
  CHECK(torch::isfinite(cost).all().item<bool>());
  const auto pred_xyxy = losses::xywh_to_xyxy(boxes.detach()).to(torch::kFloat64).contiguous();
  const auto gt_xyxy = losses::xywh_to_xyxy(gt_boxes).to(torch::kFloat64).contiguous();
  for (int64_t b = 0; b < B; ++b)
    for (int64_t q = 0; q < Q; ++q)
      for (int64_t m = 0; m < M; ++m) {
        const double l1 = (boxes[b][q] - gt_boxes[b][m]).abs().sum().item<double>();
        const double p = sigmoid(logits[b][q][labels[b][m]].item<double>());
        const double g = giou(pred_xyxy[b][q].data_ptr<double>(), gt_xyxy[b][m].data_ptr<double>());
        CHECK(cost[b][q][m].item<double>() ==
              doctest::Approx(5 * l1 + 2 * focal_cost(p, 0.25, 2.0) - 2 * g).epsilon(1e-5));
      }
  CHECK_THROWS_WITH_AS(detr::detr_matching_cost(logits, boxes, labels, gt_boxes.narrow(0, 0, 1)),
                       doctest::Contains("gt_labels must be [B, M]"), c10::Error);
}
