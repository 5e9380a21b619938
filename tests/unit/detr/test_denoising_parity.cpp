// make_denoising_queries against LibreYOLO's get_contrastive_denoising_training_group on
// tests/fixtures/detr/denoising.json (tests/python/rtdetr_ops_parity.py): given the noise
// LibreYOLO drew (recorded by the script), the same embedded labels, noised boxes, attention mask,
// group count and positive-query -> GT pairs (its dn_positive_idx with get_cdn_matched_indices'
// gt_idx = arange(n) tiled per group).
#include "../torch_doctest.hpp"

#include <libreyolo/sdk/detr/denoising.hpp>

#include "detr_fixture.hpp"

#include <vector>

namespace detr = libreyolo::sdk::detr;
namespace fixture = libreyolo::test::detr;

namespace {

void check_positive_pairs(const torch::Tensor& matched_gt, const fixture::Json& positive_idx,
                          const std::vector<int64_t>& counts) {
  for (size_t image = 0; image < counts.size(); ++image) {
    const auto& queries = positive_idx.items[image].items;
    const auto row = matched_gt[static_cast<int64_t>(image)];
    CHECK(row.ge(0).sum().item<int64_t>() == static_cast<int64_t>(queries.size()));
    for (size_t k = 0; k < queries.size(); ++k) {
      const auto query = static_cast<int64_t>(queries[k].number);
      CHECK(row[query].item<int64_t>() == static_cast<int64_t>(k) % counts[image]);
    }
  }
}

}  // namespace

TEST_CASE("make_denoising_queries parity: LibreYOLO's queries for the same noise") {
  const auto json = fixture::read_fixture("denoising.json");
  const auto num_classes = static_cast<int64_t>(json["num_classes"].number);
  const auto num_queries = static_cast<int64_t>(json["num_queries"].number);
  const auto weight = fixture::to_tensor(json["embed_weight"]);
  torch::nn::Embedding embed(torch::nn::EmbeddingOptions(weight.size(0), weight.size(1)).padding_idx(num_classes));
  {
    torch::NoGradGuard no_grad;
    embed->weight.copy_(weight);
  }
  for (const auto& entry : json["cases"].items) {
    CAPTURE(entry["name"].text);
    std::vector<int64_t> counts;
    for (const auto& count : entry["counts"].items) counts.push_back(static_cast<int64_t>(count.number));
    const detr::DenoisingConfig config{static_cast<int64_t>(entry["num_denoising"].number),
                                       json["label_noise_ratio"].number, json["box_noise_scale"].number};
    const auto layout = detr::denoising_layout(counts, config);
    CHECK(layout.num_group == static_cast<int64_t>(entry["num_group"].number));
    CHECK(layout.num_queries_dn == static_cast<int64_t>(entry["num_split"].items[0].number));
    const auto labels = fixture::to_tensor(entry["gt_labels"], torch::kLong);
    const auto boxes = fixture::to_tensor(entry["gt_boxes"]);
    const auto valid = torch::arange(labels.size(1)).unsqueeze(0) < torch::tensor(counts).unsqueeze(1);
    const detr::DenoisingNoise noise{fixture::to_tensor(entry["label_uniform"]),
                                     fixture::to_tensor(entry["new_label"], torch::kLong),
                                     fixture::to_tensor(entry["box_sign"]), fixture::to_tensor(entry["box_uniform"])};
    const auto q = detr::make_denoising_queries(labels, boxes, valid, layout, noise, num_classes, num_queries, embed,
                                                config);
    CHECK(torch::allclose(q.class_embed, fixture::to_tensor(entry["class_embed"]), 0.0, 1e-6));
    CHECK(torch::allclose(q.bbox_unact, fixture::to_tensor(entry["bbox_unact"]), 1e-5, 1e-5));
    CHECK(torch::equal(q.attn_mask, fixture::to_tensor(entry["attn_mask"], torch::kBool)));
    check_positive_pairs(q.matched_gt, entry["positive_idx"], counts);
  }
}
