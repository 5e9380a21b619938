// The DETR loss pieces against LibreYOLO's HungarianMatcher and SetCriterion on
// tests/fixtures/detr/matcher_cost.json (tests/python/rtdetr_ops_parity.py): the cost matrix it
// hands to linear_sum_assignment, and loss_labels_vfl / loss_labels_focal / loss_boxes for its
// assignment, rebuilt here from the element-wise pieces and the criterion's reduction
// (mean over queries, sum, times Q / num_boxes).
#include "../torch_doctest.hpp"

#include <libreyolo/sdk/detr/box_ops.hpp>
#include <libreyolo/sdk/detr/detr_losses.hpp>
#include <libreyolo/sdk/losses/box_ops.hpp>

#include "detr_fixture.hpp"

#include <vector>

namespace detr = libreyolo::sdk::detr;
namespace losses = libreyolo::sdk::losses;
namespace fixture = libreyolo::test::detr;

namespace {

// The assignment as index tensors: image, query and GT column of every matched pair.
struct Matches {
  torch::Tensor image, query, gt;
};

Matches matches_from(const fixture::Json& assignment) {
  std::vector<int64_t> image, query, gt;
  for (size_t b = 0; b < assignment.items.size(); ++b) {
    const auto& pair = assignment.items[b];
    for (size_t k = 0; k < pair.items[0].items.size(); ++k) {
      image.push_back(static_cast<int64_t>(b));
      query.push_back(static_cast<int64_t>(pair.items[0].items[k].number));
      gt.push_back(static_cast<int64_t>(pair.items[1].items[k].number));
    }
  }
  return {torch::tensor(image), torch::tensor(query), torch::tensor(gt)};
}

}  // namespace

TEST_CASE("detr_matching_cost parity: LibreYOLO's HungarianMatcher cost, image by image") {
  const auto json = fixture::read_fixture("matcher_cost.json");
  const auto cost = detr::detr_matching_cost(fixture::to_tensor(json["logits"]), fixture::to_tensor(json["pred_boxes"]),
                                             fixture::to_tensor(json["gt_labels"], torch::kLong),
                                             fixture::to_tensor(json["gt_boxes"]));
  const auto& counts = json["counts"].items;
  for (size_t b = 0; b < counts.size(); ++b) {
    const auto expected = fixture::to_tensor(json["cost_blocks"].items[b]);
    const auto actual = cost[static_cast<int64_t>(b)].narrow(1, 0, static_cast<int64_t>(counts[b].number));
    CHECK(torch::allclose(actual, expected, 1e-5, 1e-5));
  }
}

TEST_CASE("DETR losses parity: LibreYOLO's VFL, focal, L1 and GIoU losses for its assignment") {
  const auto json = fixture::read_fixture("matcher_cost.json");
  const auto logits = fixture::to_tensor(json["logits"]), pred = fixture::to_tensor(json["pred_boxes"]);
  const auto labels = fixture::to_tensor(json["gt_labels"], torch::kLong), gt = fixture::to_tensor(json["gt_boxes"]);
  const auto m = matches_from(json["assignment"]);
  const double num_boxes = json["num_boxes"].number, queries = static_cast<double>(logits.size(1));
  const auto src_boxes = pred.index({m.image, m.query}), target_boxes = gt.index({m.image, m.gt});
  const auto classes = labels.index({m.image, m.gt});
  auto one_hot = torch::zeros_like(logits);
  one_hot.index_put_({m.image, m.query, classes}, torch::ones({classes.numel()}));
  const auto iou = losses::box_iou(losses::xywh_to_xyxy(src_boxes), losses::xywh_to_xyxy(target_boxes),
                                   losses::IoUKind::iou, 1e-6);
  auto score = torch::zeros_like(logits);
  score.index_put_({m.image, m.query, classes}, iou);
  const auto reduce = [&](const torch::Tensor& loss) {
    return (loss.mean(1).sum() * queries / num_boxes).item<double>();
  };
  const double alpha = json["criterion_alpha"].number, gamma = json["criterion_gamma"].number;
  CHECK(reduce(detr::varifocal_loss(logits, score, one_hot, alpha, gamma)) ==
        doctest::Approx(json["loss_vfl"].number).epsilon(1e-5));
  CHECK(reduce(detr::sigmoid_focal_loss(logits, one_hot, alpha, gamma)) ==
        doctest::Approx(json["loss_focal"].number).epsilon(1e-5));
  CHECK((src_boxes - target_boxes).abs().sum().item<double>() / num_boxes ==
        doctest::Approx(json["loss_bbox"].number).epsilon(1e-5));
  const auto giou = detr::generalized_box_iou(losses::xywh_to_xyxy(src_boxes), losses::xywh_to_xyxy(target_boxes));
  CHECK((1.0 - giou).sum().item<double>() / num_boxes == doctest::Approx(json["loss_giou"].number).epsilon(1e-5));
}

TEST_CASE("sigmoid_focal_loss parity: torchvision's values element by element") {
  const auto json = fixture::read_fixture("matcher_cost.json");
  const auto loss = detr::sigmoid_focal_loss(fixture::to_tensor(json["logits"]), fixture::to_tensor(json["focal_targets"]),
                                             0.25, 2.0);
  CHECK(torch::allclose(loss, fixture::to_tensor(json["sigmoid_focal_loss"]), 1e-5, 1e-6));
}
