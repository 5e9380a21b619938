// The SDK pieces of D-FINE's criterion on inputs small enough to work out by hand: FGL and DDF
// (detr/distribution_losses), the GO-LSD union of matches and D-FINE's matching cost
// (detr/dfine_matching), its eps-free box helpers (detr/dfine_box_ops). The numbers in the
// comments were derived on paper (logarithms and square roots to 7 digits). Parity with
// LibreYOLO's whole criterion: test_dfine_criterion_parity.cpp.

#include "../torch_doctest.hpp"

#include <libreyolo/sdk/detr/dfine_box_ops.hpp>
#include <libreyolo/sdk/detr/dfine_matching.hpp>
#include <libreyolo/sdk/detr/distribution_losses.hpp>

#include <cmath>
#include <limits>
#include <vector>

namespace detr = libreyolo::sdk::detr;

namespace {

constexpr double kTol = 1e-5;

detr::EdgeBins bins(std::vector<float> bin, std::vector<float> right, std::vector<float> left) {
  return {torch::tensor(bin), torch::tensor(right), torch::tensor(left)};
}

}  // namespace

TEST_CASE("dfine criterion pieces: FGL: two-sided cross-entropy at the bins around the target, weighted by the distances") {
  // reg_max 4 (5 bins). Edge 0: logits (0, ln 2, 0, 0, 0) -> p = (1, 2, 1, 1, 1) / 6; bin 1.25
  // with weights left 0.75, right 0.25: 0.75 (-ln 1/3) + 0.25 (-ln 1/6) = 0.75 * 1.0986123 +
  // 0.25 * 1.7917595 = 1.2718991. Edge 1: bin 3.9 (the clamped top) pushes all onto bin 4:
  // -ln 1/6 = 1.7917595. Edge 2: a NaN bin counts as bin 0 with weight left 1: 1.7917595.
  const float ln2 = static_cast<float>(std::log(2.0));
  const auto logits = torch::tensor({0.f, ln2, 0.f, 0.f, 0.f}).repeat({3, 1}).requires_grad_();
  const auto nan = std::numeric_limits<float>::quiet_NaN();
  const auto loss = detr::fine_grained_localization_loss(logits, bins({1.25f, 3.9f, nan}, {0.25f, 1.f, 0.f},
                                                                      {0.75f, 0.f, 1.f}));
  REQUIRE(loss.sizes() == torch::IntArrayRef{3});
  CHECK(loss[0].item<double>() == doctest::Approx(1.2718991).epsilon(kTol));
  CHECK(loss[1].item<double>() == doctest::Approx(1.7917595).epsilon(kTol));
  CHECK(loss[2].item<double>() == doctest::Approx(1.7917595).epsilon(kTol));
  // d/dlogits of edge 0 = p - (0, 0.75, 0.25, 0, 0) = (1/6, -5/12, -1/12, 1/6, 1/6).
  loss[0].backward();
  const auto grad = logits.grad()[0];
  const double expected[] = {1.0 / 6, -5.0 / 12, -1.0 / 12, 1.0 / 6, 1.0 / 6};
  for (int i = 0; i < 5; ++i) CHECK(grad[i].item<double>() == doctest::Approx(expected[i]).epsilon(kTol));
}

TEST_CASE("dfine criterion pieces: FGL: the bins broadcast over leading dimensions (several layers, one target)") {
  const auto logits = torch::randn({2, 3, 9});
  const auto b = bins({0.5f, 2.0f, 7.9f}, {0.5f, 0.f, 1.f}, {0.5f, 1.f, 0.f});
  const auto all = detr::fine_grained_localization_loss(logits, b);
  REQUIRE(all.sizes() == torch::IntArrayRef{2, 3});
  CHECK(torch::allclose(all[1], detr::fine_grained_localization_loss(logits[1], b)));
}

TEST_CASE("dfine criterion pieces: distillation KL: T^2 KL(softmax(teacher / T) || softmax(student / T)), teacher detached") {
  // T = 2: teacher (2 ln 3, 0) / 2 -> softmax (3/4, 1/4); student (0, 0) -> (1/2, 1/2).
  // KL = 0.75 ln 1.5 + 0.25 ln 0.5 = 0.1308120; times T^2 = 4: 0.5232481.
  const auto teacher = torch::tensor({static_cast<float>(2 * std::log(3.0)), 0.f}).requires_grad_();
  const auto student = torch::zeros({2}).requires_grad_();
  const auto kl = detr::distillation_kl(student, teacher, 2.0);
  CHECK(kl.item<double>() == doctest::Approx(0.5232481).epsilon(kTol));
  kl.backward();
  CHECK(!teacher.grad().defined());
  // d/dstudent = T^2 / T (q - p) = 2 ((1/2, 1/2) - (3/4, 1/4)) = (-0.5, 0.5).
  CHECK(student.grad()[0].item<double>() == doctest::Approx(-0.5).epsilon(kTol));
  CHECK(student.grad()[1].item<double>() == doctest::Approx(0.5).epsilon(kTol));
  // Identical distributions: 0.
  CHECK(detr::distillation_kl(teacher.detach(), teacher.detach(), 5.0).item<double>() == doctest::Approx(0.0));
}

TEST_CASE("dfine criterion pieces: DDF weight: the IoU for matched queries, the teacher's best class probability otherwise") {
  // Teacher logits: q0 (0, 1) -> max sigmoid 0.7310586, q1 (-1, 2) -> sigmoid(2) = 0.8807971.
  const auto teacher_logits = torch::tensor({0.f, 1.f, -1.f, 2.f}).view({1, 2, 2});
  const auto matched = torch::tensor({true, false}).view({1, 2});
  const auto iou = torch::tensor({0.5f, 0.9f}).view({1, 2});
  const auto w = detr::distillation_weight(teacher_logits, matched, iou);
  CHECK(w[0][0].item<double>() == doctest::Approx(0.5).epsilon(kTol));
  CHECK(w[0][1].item<double>() == doctest::Approx(0.8807971).epsilon(kTol));
}

TEST_CASE("dfine criterion pieces: DDF: matched and unmatched means mixed by sqrt(4 n 8 / B)") {
  // B = 1, Q = 3: q0 matched (weight 0.5, KL 1 on each edge), q1 and q2 not (weights 0.8 and
  // 0.1, KL 2 and 3). Matched mean 0.5; unmatched mean (4 * 1.6 + 4 * 0.3) / 8 = 0.95.
  // Balance: sqrt(4 * 1 * 8) = 5.6568542, sqrt(4 * 2 * 8) = 8.
  // DDF = (0.5 * 5.6568542 + 0.95 * 8) / 13.6568542 = 0.7636039.
  const auto matched = torch::tensor({true, false, false}).view({1, 3});
  const auto balance = detr::distillation_balance(matched);
  CHECK(balance.matched.item<double>() == doctest::Approx(5.6568542).epsilon(kTol));
  CHECK(balance.unmatched.item<double>() == doctest::Approx(8.0).epsilon(kTol));
  const auto kl = torch::tensor({1.f, 2.f, 3.f}).view({1, 3, 1}).expand({1, 3, 4});
  const auto weight = torch::tensor({0.5f, 0.8f, 0.1f}).view({1, 3});
  CHECK(detr::decoupled_distillation_loss(kl, weight, matched, balance).item<double>() ==
        doctest::Approx(0.7636039).epsilon(kTol));
  // Stacked over two sets [2, B, Q, 4]: each set its own value (the second's KL doubled).
  const auto two = detr::decoupled_distillation_loss(torch::stack({kl, 2 * kl}), weight.expand({2, 1, 3}),
                                                     matched.expand({2, 1, 3}), balance);
  CHECK(two[1].item<double>() == doctest::Approx(2 * 0.7636039).epsilon(kTol));
  // Nothing matched: the matched mean is 0 (not NaN) and its balance 0, so DDF is the
  // unmatched mean: (0.5 + 1.6 + 0.3) / 3 = 0.8.
  const auto none = torch::zeros({1, 3}, torch::kBool);
  CHECK(detr::decoupled_distillation_loss(kl, weight, none, detr::distillation_balance(none)).item<double>() ==
        doctest::Approx(0.8).epsilon(kTol));
}

TEST_CASE("dfine criterion pieces: GO-LSD union: the GT matched most often, ties to the lowest index, -1 if never matched") {
  // Three sets, one image, four queries: q0 (0, 0, 1) -> 0; q1 (1, 0, -1) -> a tie, 0;
  // q2 never matched -> -1; q3 (2, 2, 1) -> 2.
  const auto matched = torch::tensor({0, 1, -1, 2, 0, 0, -1, 2, 1, -1, -1, 1}, torch::kInt64).view({3, 1, 4});
  const auto go = detr::union_of_matches(matched, 3);
  CHECK(torch::equal(go, torch::tensor({0, 0, -1, 2}, torch::kInt64).view({1, 4})));
  CHECK(torch::equal(detr::union_of_matches(torch::full({2, 1, 3}, -1, torch::kInt64), 0),
                     torch::full({1, 3}, -1, torch::kInt64)));
}

TEST_CASE("dfine criterion pieces: D-FINE boxes: sizes clamped at 0, IoU and GIoU without eps") {
  const auto inverted = detr::dfine_xywh_to_xyxy(torch::tensor({0.5f, 0.5f, -0.2f, 0.4f}));
  CHECK(torch::allclose(inverted, torch::tensor({0.5f, 0.3f, 0.5f, 0.7f})));
  // (0, 0, 2, 2) and (1, 1, 3, 3): inter 1, union 7, enclose 9: IoU 1/7, GIoU 1/7 - 2/9.
  const auto a = torch::tensor({0.f, 0.f, 2.f, 2.f}), b = torch::tensor({1.f, 1.f, 3.f, 3.f});
  CHECK(detr::dfine_box_iou(a, b).item<double>() == doctest::Approx(1.0 / 7).epsilon(1e-6));
  CHECK(detr::dfine_generalized_box_iou(a, b).item<double>() == doctest::Approx(1.0 / 7 - 2.0 / 9).epsilon(1e-6));
  CHECK(detr::dfine_pairwise_generalized_box_iou(torch::stack({a, b}), b.unsqueeze(0)).sizes() ==
        torch::IntArrayRef{2, 1});
}

TEST_CASE("dfine criterion pieces: D-FINE matching cost: NaN costs become 1.0") {
  // Query 0's logits are NaN: every cost of its row is NaN before the matcher's nan_to_num.
  auto logits = torch::zeros({1, 2, 3});
  logits[0][0].fill_(std::numeric_limits<float>::quiet_NaN());
  const auto boxes = torch::tensor({0.5f, 0.5f, 0.2f, 0.2f, 0.3f, 0.3f, 0.2f, 0.2f}).view({1, 2, 4});
  const auto gt_boxes = torch::tensor({0.5f, 0.5f, 0.2f, 0.2f}).view({1, 1, 4});
  const auto gt_labels = torch::zeros({1, 1}, torch::kInt64);
  const auto cost = detr::dfine_matching_cost(logits, boxes, gt_labels, gt_boxes);
  CHECK(cost[0][0][0].item<double>() == 1.0);
  // Query 1: L1 0.4 -> 5 * 0.4; p = 0.5: 2 (0.25 * 0.25 (-ln 0.5) - 0.75 * 0.25 (-ln 0.5)) =
  // -0.1732868; disjoint boxes (0.2..0.4 and 0.4..0.6, touching): GIoU = 0 - (0.16 - 0.08) / 0.16
  // = -0.5 -> 2 * 0.5. Total 2 - 0.1732868 + 1 = 2.8267132.
  CHECK(cost[0][1][0].item<double>() == doctest::Approx(2.8267132).epsilon(kTol));
}
