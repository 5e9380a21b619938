// RTMDet's two loss terms in the SDK: the quality focal loss and the GIoU loss (giou_aligned),
// on crafted inputs whose answers are worked out by hand below, plus the reference's own
// formulation of QFL (a negative term everywhere, overwritten on the positives) on random input.
#include "../torch_doctest.hpp"

#include <libreyolo/sdk/losses/box_ops.hpp>
#include <libreyolo/sdk/losses/quality_focal_loss.hpp>

#include <cmath>
#include <iterator>
#include <vector>

namespace losses = libreyolo::sdk::losses;

namespace {

torch::Tensor rows_of_4(std::vector<float> values) {
  const auto n = static_cast<int64_t>(values.size()) / 4;
  return torch::tensor(values, torch::kFloat32).view({n, 4});
}

double value_of(const torch::Tensor& t, int64_t i) { return t[i].item<double>(); }

// Logits whose sigmoids are 0.5, 0.75 and 0.25.
const float kSigmoidHalf = 0.0f;
const float kSigmoidThreeQuarters = static_cast<float>(std::log(3.0));
const float kSigmoidQuarter = -kSigmoidThreeQuarters;

// Four priors, two classes (background label 2 = C, and -1 outside the range):
//   0: background, logits (0, ln 3): sigmoids 0.5, 0.75. Every class has target 0:
//      BCE(x, 0) = -ln(1 - sigmoid(x)), times sigmoid^2:
//      ln 2 * 0.25 + ln 4 * 0.5625 = 0.1732868 + 0.7797906 = 0.9530774.
//   1: class 1, score 1, logits (-ln 3, ln 3): class 0 (target 0) -ln 0.75 * 0.25^2 = 0.0179801;
//      class 1 (target 1) BCE = -ln 0.75, times |1 - 0.75|^2: 0.0179801. Sum 0.0359602.
//   2: class 0, score 0.3, logits (0, 0): at x = 0, BCE(0, t) = ln 2 for every t.
//      class 0: ln 2 * |0.3 - 0.5|^2 = 0.0277259; class 1: ln 2 * 0.25 = 0.1732868. Sum 0.2010127.
//   3: label -1 (background), logits (ln 3, 0), score 0.9 (ignored): 0.7797906 + 0.1732868 = 0.9530774.
struct QflCase {
  torch::Tensor logits, labels, scores;
};

QflCase crafted_qfl_case() {
  const float logits[] = {kSigmoidHalf,         kSigmoidThreeQuarters,  // prior 0
                          kSigmoidQuarter,      kSigmoidThreeQuarters,  // prior 1
                          kSigmoidHalf,         kSigmoidHalf,           // prior 2
                          kSigmoidThreeQuarters, kSigmoidHalf};          // prior 3
  return {torch::tensor(std::vector<float>(std::begin(logits), std::end(logits))).view({4, 2}),
          torch::tensor({2, 1, 0, -1}, torch::kLong), torch::tensor({0.0f, 1.0f, 0.3f, 0.9f})};
}

// QFL as LibreYOLO writes it: the negative term on every (prior, class), then the positive term
// written over each positive's class.
torch::Tensor two_branch_qfl(const torch::Tensor& logits, const torch::Tensor& labels, const torch::Tensor& scores,
                             double beta) {
  const auto sigmoid = logits.sigmoid();
  auto loss = torch::binary_cross_entropy_with_logits(logits, torch::zeros_like(logits), {}, {}, at::Reduction::None) *
              sigmoid.pow(beta);
  const auto positive = ((labels >= 0) & (labels < logits.size(1))).nonzero().squeeze(1);
  const auto classes = labels.index_select(0, positive);
  const auto pos_logits = logits.index({positive, classes});
  const auto pos_scores = scores.index_select(0, positive);
  const auto positive_term =
      torch::binary_cross_entropy_with_logits(pos_logits, pos_scores, {}, {}, at::Reduction::None) *
      (pos_scores - sigmoid.index({positive, classes})).abs().pow(beta);
  loss = loss.index_put({positive, classes}, positive_term);
  return loss.sum(1);
}

}  // namespace

TEST_CASE("qfl: crafted priors (background, score 1, score 0.3, label outside the classes)") {
  const auto c = crafted_qfl_case();
  const auto loss = losses::quality_focal_loss(c.logits, c.labels, c.scores);
  REQUIRE(loss.sizes() == torch::IntArrayRef({4}));
  CHECK((loss.scalar_type() == torch::kFloat32));
  CHECK(value_of(loss, 0) == doctest::Approx(0.9530774).epsilon(1e-5));
  CHECK(value_of(loss, 1) == doctest::Approx(0.0359602).epsilon(1e-5));
  CHECK(value_of(loss, 2) == doctest::Approx(0.2010127).epsilon(1e-5));
  CHECK(value_of(loss, 3) == doctest::Approx(0.9530774).epsilon(1e-5));
}

TEST_CASE("qfl: beta other than 2, batch shapes, float16 input") {
  const auto c = crafted_qfl_case();
  // beta 1, prior 2: ln 2 * |0.3 - 0.5| + ln 2 * 0.5 = 0.1386294 + 0.3465736 = 0.4852030.
  CHECK(value_of(losses::quality_focal_loss(c.logits, c.labels, c.scores, 1.0), 2) ==
        doctest::Approx(0.4852030).epsilon(1e-5));

  // [B, A, C] in, [B, A] out: the same four priors as a 2 x 2 batch.
  const auto batched = losses::quality_focal_loss(c.logits.view({2, 2, 2}), c.labels.view({2, 2}),
                                                  c.scores.view({2, 2}));
  REQUIRE(batched.sizes() == torch::IntArrayRef({2, 2}));
  CHECK(torch::allclose(batched.flatten(), losses::quality_focal_loss(c.logits, c.labels, c.scores)));

  // float16 logits and scores: computed in float32 (ln 3 rounds to 1.0986328 in half precision).
  const auto half = losses::quality_focal_loss(c.logits.to(torch::kHalf), c.labels, c.scores.to(torch::kHalf));
  CHECK((half.scalar_type() == torch::kFloat32));
  CHECK(value_of(half, 0) == doctest::Approx(0.9530774).epsilon(1e-3));
  CHECK(value_of(half, 2) == doctest::Approx(0.2010127).epsilon(1e-3));
}

TEST_CASE("qfl: equals the reference's two-branch form, values and gradients") {
  torch::manual_seed(3);
  const int64_t priors = 500, classes = 7;
  const auto logits = torch::randn({priors, classes}) * 3;
  // About a third positive; background as C.
  const auto labels = torch::where(torch::rand({priors}) < 0.35, torch::randint(0, classes, {priors}),
                                   torch::full({priors}, classes, torch::kLong));
  const auto scores = torch::rand({priors});
  auto ours = logits.clone().requires_grad_(true), theirs = logits.clone().requires_grad_(true);
  const auto a = losses::quality_focal_loss(ours, labels, scores);
  const auto b = two_branch_qfl(theirs, labels, scores, 2.0);
  CHECK(torch::allclose(a, b, 1e-6, 1e-7));
  const auto weights = torch::rand({priors});
  (a * weights).sum().backward();
  (b * weights).sum().backward();
  CHECK(torch::allclose(ours.grad(), theirs.grad(), 1e-5, 1e-7));
}

TEST_CASE("giou: crafted pairs and the loss 1 - GIoU") {
  // a = [0,0,2,2], b = [1,1,3,3]: inter 1, union 7, enclosing 9: GIoU 1/7 - 2/9 = -5/63, loss 68/63.
  // Identical boxes: GIoU 1, loss 0.
  // [0,0,1,1] vs [2,0,3,1]: inter 0, union 2, enclosing [0,0,3,1] = 3: GIoU -1/3, loss 4/3.
  const auto pred = rows_of_4({0, 0, 2, 2, 0, 0, 4, 2, 0, 0, 1, 1});
  const auto target = rows_of_4({1, 1, 3, 3, 0, 0, 4, 2, 2, 0, 3, 1});
  const auto giou = losses::giou_aligned(pred, target);
  CHECK(value_of(giou, 0) == doctest::Approx(-5.0 / 63).epsilon(1e-6));
  CHECK(value_of(giou, 1) == doctest::Approx(1.0).epsilon(1e-6));
  CHECK(value_of(giou, 2) == doctest::Approx(-1.0 / 3).epsilon(1e-6));
  const auto loss = losses::giou_loss(pred, target);
  REQUIRE(loss.sizes() == torch::IntArrayRef({3}));
  CHECK(value_of(loss, 0) == doctest::Approx(68.0 / 63).epsilon(1e-6));
  CHECK(value_of(loss, 1) == doctest::Approx(0.0));
  CHECK(value_of(loss, 2) == doctest::Approx(4.0 / 3).epsilon(1e-6));
  // float16 in, float32 out; broadcasting like box_iou.
  const auto half = losses::giou_loss(pred.to(torch::kHalf), target.to(torch::kHalf));
  CHECK((half.scalar_type() == torch::kFloat32));
  CHECK(losses::giou_loss(pred.unsqueeze(1), target.unsqueeze(0)).sizes() == torch::IntArrayRef({3, 3}));
}

TEST_CASE("giou: degenerate boxes follow the reference, where box_iou's GIoU does not") {
  // Two identical points [5,5,5,5]: inter 0, union 0 -> IoU 0 / max(0, eps) = 0; enclosing 0 ->
  //   (0 - 0) / max(0, eps) = 0: GIoU 0, loss 1. box_iou adds eps instead: 0 - (eps - 0) / eps = -1.
  // Inverted [4,0,2,2] (x2 < x1) vs [0,0,2,2]: width clamped to 0, area 0; inter 0; union 4;
  //   enclosing x from min(4, 0) = 0 to max(2, 2) = 2, y 0..2: 4. GIoU 0 - (4 - 4) / 4 = 0.
  //   box_iou counts the area as -2 * 2 = -4: union 0, GIoU 0 - (4 + eps) / (4 + eps) = -1.
  // A point inside a box, [1,1,1,1] vs [0,0,2,2]: union 4, enclosing 4: GIoU 0 in both.
  const auto pred = rows_of_4({5, 5, 5, 5, 4, 0, 2, 2, 1, 1, 1, 1});
  const auto target = rows_of_4({5, 5, 5, 5, 0, 0, 2, 2, 0, 0, 2, 2});
  const auto ours = losses::giou_aligned(pred, target);
  const auto family = losses::box_iou(pred, target, losses::IoUKind::giou);
  CHECK(value_of(ours, 0) == doctest::Approx(0.0));
  CHECK(value_of(ours, 1) == doctest::Approx(0.0));
  CHECK(value_of(ours, 2) == doctest::Approx(0.0));
  CHECK(value_of(family, 0) == doctest::Approx(-1.0));
  CHECK(value_of(family, 1) == doctest::Approx(-1.0));
  CHECK(std::abs(value_of(family, 2)) < 1e-6);

  // No NaN in values or gradients on these.
  auto x = pred.clone().requires_grad_(true);
  losses::giou_loss(x, target).sum().backward();
  CHECK(torch::isfinite(x.grad()).all().item<bool>());
}

TEST_CASE("giou: equals box_iou's GIoU on ordinary pixel boxes") {
  // The two differ only in how eps guards the divisions: by about eps / union, far below 1e-6
  // for boxes of a pixel or more.
  torch::manual_seed(11);
  const auto centres = torch::rand({400, 2}) * 100, sizes = torch::rand({400, 2}) * 60 + 1;
  const auto a = torch::cat({centres - sizes / 2, centres + sizes / 2}, 1);
  const auto b = a + torch::randn({400, 4}) * 10;
  const auto valid = (b.narrow(1, 2, 2) > b.narrow(1, 0, 2) + 1).all(1);  // ordinary (not inverted) targets
  const auto difference =
      (losses::giou_aligned(a, b) - losses::box_iou(a, b, losses::IoUKind::giou)).abs().masked_select(valid);
  CHECK(valid.sum().item<int64_t>() > 300);
  CHECK(difference.max().item<double>() < 1e-6);
}
