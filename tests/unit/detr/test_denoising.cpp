// Contrastive denoising queries (sdk/detr/denoising): the layout for empty, single and crowded
// batches, the shapes, the attention mask and matched_gt against loops over the rule, the noise
// actually applied, and determinism under a seeded generator. Parity with LibreYOLO's function:
// test_denoising_parity.cpp.
#include "../torch_doctest.hpp"

#include <libreyolo/sdk/detr/box_ops.hpp>
#include <libreyolo/sdk/detr/denoising.hpp>
#include <libreyolo/sdk/detr/denoising_inputs.hpp>

#include <vector>

namespace detr = libreyolo::sdk::detr;

namespace {

constexpr int64_t kClasses = 5, kQueries = 4, kDim = 6;

// A padded batch: image 0 has 3 boxes, image 1 none, image 2 one; M = 4 columns (one spare).
struct Batch {
  torch::Tensor labels, boxes, valid;
  std::vector<int64_t> counts;
};

Batch batch() {
  Batch b;
  b.counts = {3, 0, 1};
  b.labels = torch::tensor({2, 0, 4, 0, 0, 0, 0, 0, 3, 0, 0, 0}, torch::kLong).view({3, 4});
  b.valid = torch::tensor({1, 1, 1, 0, 0, 0, 0, 0, 1, 0, 0, 0}, torch::kBool).view({3, 4});
  b.boxes = torch::zeros({3, 4, 4});
  b.boxes[0][0] = torch::tensor({0.5, 0.5, 0.2, 0.4});
  b.boxes[0][1] = torch::tensor({0.3, 0.6, 0.1, 0.1});
  b.boxes[0][2] = torch::tensor({0.8, 0.2, 0.3, 0.2});
  b.boxes[2][0] = torch::tensor({0.4, 0.4, 0.5, 0.6});
  b.boxes[1][2] = torch::tensor({9.0, 9.0, 9.0, 9.0});  // garbage in padding must not matter
  return b;
}

detr::DenoisingQueries queries_for(const Batch& b, const detr::DenoisingConfig& config, const detr::DenoisingNoise& noise,
                                   const detr::DenoisingLayout& layout) {
  torch::manual_seed(1);
  torch::nn::Embedding embed(torch::nn::EmbeddingOptions(kClasses + 1, kDim).padding_idx(kClasses));
  return detr::make_denoising_queries(b.labels, b.boxes, b.valid, layout, noise, kClasses, kQueries, embed, config);
}

// Noise that changes nothing on positives' labels, for tests that follow the boxes alone.
detr::DenoisingNoise fixed_noise(const detr::DenoisingLayout& layout, int64_t batch, double uniform, double sign) {
  const auto n = layout.num_queries_dn;
  return {torch::ones({batch, n}), torch::zeros({batch, n}, torch::kLong), torch::full({batch, n, 4}, sign),
          torch::full({batch, n, 4}, uniform)};
}

}  // namespace

TEST_CASE("denoising_layout: groups from the largest GT count, inactive without boxes") {
  const detr::DenoisingConfig config;  // 100 denoising queries
  const auto none = detr::denoising_layout({0, 0}, config);
  CHECK_FALSE(none.active());
  CHECK(none.num_queries_dn == 0);
  CHECK_FALSE(detr::denoising_layout({}, config).active());
  const auto one = detr::denoising_layout({1}, config);
  CHECK(one.max_gt == 1);
  CHECK(one.num_group == 100);
  CHECK(one.num_queries_dn == 200);
  const auto mixed = detr::denoising_layout({0, 7, 3}, config);  // 100 / 7 = 14 groups
  CHECK(mixed.max_gt == 7);
  CHECK(mixed.num_group == 14);
  CHECK(mixed.num_queries_dn == 196);
  const auto crowded = detr::denoising_layout({150}, config);  // fewer targets than boxes: one group
  CHECK(crowded.num_group == 1);
  CHECK(crowded.num_queries_dn == 300);
  CHECK_FALSE(detr::denoising_layout({3}, {0, 0.5, 1.0}).active());
  CHECK_THROWS_WITH_AS(detr::denoising_layout({2, -1}, config), doctest::Contains("cannot be negative"), c10::Error);
  CHECK_THROWS_WITH_AS(detr::denoising_layout({2}, {100, 1.5, 1.0}), doctest::Contains("label_noise_ratio"),
                       c10::Error);
}

TEST_CASE("make_denoising_queries: shapes, attention mask and matched_gt follow the group rule") {
  const auto b = batch();
  const detr::DenoisingConfig config{7, 0.5, 1.0};
  const auto layout = detr::denoising_layout(b.counts, config);  // max_gt 3, 2 groups, 12 queries
  REQUIRE(layout.num_group == 2);
  const auto noise = detr::draw_denoising_noise(layout, 3, kClasses, torch::TensorOptions());
  const auto q = queries_for(b, config, noise, layout);
  const int64_t n = layout.num_queries_dn, total = n + kQueries, span = 2 * layout.max_gt;
  CHECK(q.class_embed.sizes() == std::vector<int64_t>{3, n, kDim});
  CHECK(q.bbox_unact.sizes() == std::vector<int64_t>{3, n, 4});
  CHECK(q.attn_mask.sizes() == std::vector<int64_t>{total, total});
  CHECK((q.attn_mask.scalar_type() == torch::kBool));
  // The rule, pair by pair: a denoising key is hidden from matching queries and from other groups.
  for (int64_t i = 0; i < total; ++i)
    for (int64_t j = 0; j < total; ++j) {
      const bool blocked = j < n && (i >= n || i / span != j / span);
      CHECK(q.attn_mask[i][j].item<bool>() == blocked);
    }
  // matched_gt: positives of real boxes point at their column, in every group.
  for (int64_t image = 0; image < 3; ++image)
    for (int64_t j = 0; j < n; ++j) {
      const int64_t column = j % span;
      const bool positive = column < layout.max_gt && column < b.counts[static_cast<size_t>(image)];
      CHECK(q.matched_gt[image][j].item<int64_t>() == (positive ? column : -1));
    }
}

TEST_CASE("make_denoising_queries: padding rows embed the padding label and a zero box") {
  const auto b = batch();
  const detr::DenoisingConfig config{7, 1.0, 1.0};
  const auto layout = detr::denoising_layout(b.counts, config);
  auto noise = fixed_noise(layout, 3, 0.5, 1.0);
  noise.label_uniform.zero_();  // every real label flips ...
  noise.new_label.fill_(1);     // ... to class 1
  torch::manual_seed(1);
  torch::nn::Embedding embed(torch::nn::EmbeddingOptions(kClasses + 1, kDim).padding_idx(kClasses));
  const auto q = detr::make_denoising_queries(b.labels, b.boxes, b.valid, layout, noise, kClasses, kQueries, embed, config);
  // Image 1 has no box: all its rows are padding, never flipped.
  CHECK(torch::equal(q.class_embed[1], embed->weight[kClasses].expand({layout.num_queries_dn, kDim})));
  CHECK(torch::equal(q.class_embed[0][0], embed->weight[1]));
  CHECK(torch::equal(q.class_embed[0][3], embed->weight[1]));  // the negative copy flips too
  // A zero box stays zero: inverse_sigmoid(0) = log(1e-5).
  CHECK(torch::allclose(q.bbox_unact[1], torch::full({layout.num_queries_dn, 4}, std::log(1e-5))));
}

TEST_CASE("make_denoising_queries: positives move less than half a box, negatives between one half and a whole") {
  const auto b = batch();
  const detr::DenoisingConfig config{7, 0.0, 1.0};
  const auto layout = detr::denoising_layout(b.counts, config);
  // uniform 0.5, sign +1: positives' corners move by +0.5 half-sizes, negatives' by +1.5.
  const auto q = queries_for(b, config, fixed_noise(layout, 3, 0.5, 1.0), layout);
  const auto boxes = torch::sigmoid(q.bbox_unact);
  // Image 0, box 0: (0.5, 0.5, 0.2, 0.4) -> corners (0.4, 0.3, 0.6, 0.7); half-sizes (0.1, 0.2).
  const auto positive = torch::tensor({0.4f + 0.05f, 0.3f + 0.1f, 0.6f + 0.05f, 0.7f + 0.1f});
  const auto negative = torch::tensor({0.4f + 0.15f, 0.3f + 0.3f, 0.6f + 0.15f, 0.7f + 0.3f});
  const auto xyxy = [](const torch::Tensor& cxcywh) {
    return torch::cat({cxcywh.narrow(-1, 0, 2) - cxcywh.narrow(-1, 2, 2) * 0.5,
                       cxcywh.narrow(-1, 0, 2) + cxcywh.narrow(-1, 2, 2) * 0.5}, -1);
  };
  CHECK(torch::allclose(xyxy(boxes[0][0]), positive, 1e-4, 1e-4));
  CHECK(torch::allclose(xyxy(boxes[0][3]), negative, 1e-4, 1e-4));
  CHECK(torch::allclose(xyxy(boxes[0][6]), positive, 1e-4, 1e-4));  // group 2 repeats the noise rule
  // Image 0, box 2: (0.8, 0.2, 0.3, 0.2) -> x2 = 0.95 + 1.5 * 0.15 > 1 is clipped to the image.
  CHECK(xyxy(boxes[0][5])[2].item<float>() == doctest::Approx(1.0).epsilon(1e-4));
}

TEST_CASE("make_denoising_queries: crossed corners of a negative flip to a positive size only when asked (D-FINE)") {
  const auto b = batch();
  detr::DenoisingConfig config{7, 0.0, 1.0};
  const auto layout = detr::denoising_layout(b.counts, config);
  // uniform 0.9 on a negative: 1.9 half-sizes. Signs +1 on x1/y1 and -1 on x2/y2 move the corners
  // towards each other past the centre: image 0, box 0 (corners 0.4, 0.3, 0.6, 0.7; half-sizes
  // 0.1, 0.2) becomes x1 0.59 > x2 0.41, y1 0.68 > y2 0.32, i.e. w -0.18, h -0.36 before the flip.
  auto noise = fixed_noise(layout, 3, 0.9, 1.0);
  noise.box_sign.narrow(2, 2, 2).fill_(-1.0);
  // RT-DETR's rule (the default): the negative sizes reach inverse_sigmoid, which clamps them to 0.
  const auto kept = torch::sigmoid(queries_for(b, config, noise, layout).bbox_unact);
  CHECK(torch::allclose(kept[0][3], torch::tensor({0.5f, 0.5f, 1e-5f, 1e-5f}), 1e-4, 1e-6));
  config.flip_negative_sizes = true;
  const auto flipped = torch::sigmoid(queries_for(b, config, noise, layout).bbox_unact);
  CHECK(torch::allclose(flipped[0][3], torch::tensor({0.5f, 0.5f, 0.18f, 0.36f}), 1e-4, 1e-4));
  CHECK(torch::equal(flipped[0][0], kept[0][0]));  // positives do not cross
}

TEST_CASE("draw_denoising_noise: a seeded generator gives the same queries twice, another seed others") {
  const auto b = batch();
  const detr::DenoisingConfig config{7, 0.5, 1.0};
  const auto layout = detr::denoising_layout(b.counts, config);
  const auto draw = [&](uint64_t seed) {
    auto generator = at::detail::createCPUGenerator(seed);
    return detr::draw_denoising_noise(layout, 3, kClasses, torch::TensorOptions(), generator);
  };
  const auto first = queries_for(b, config, draw(42), layout), second = queries_for(b, config, draw(42), layout);
  const auto other = queries_for(b, config, draw(43), layout);
  CHECK(torch::equal(first.bbox_unact, second.bbox_unact));
  CHECK(torch::equal(first.class_embed, second.class_embed));
  CHECK_FALSE(torch::equal(first.bbox_unact, other.bbox_unact));
  const auto noise = draw(42);
  CHECK(noise.new_label.min().item<int64_t>() >= 0);
  CHECK(noise.new_label.max().item<int64_t>() < kClasses);
  CHECK(torch::equal(noise.box_sign.abs(), torch::ones_like(noise.box_sign)));
  CHECK(noise.box_uniform.min().item<float>() >= 0.0f);
  CHECK(noise.box_uniform.max().item<float>() < 1.0f);
}

TEST_CASE("make_denoising_queries: an inactive layout gives empty queries and an open mask") {
  const auto b = batch();
  const detr::DenoisingConfig config{0, 0.5, 1.0};
  const auto layout = detr::denoising_layout(b.counts, config);
  const auto q = queries_for(b, config, detr::draw_denoising_noise(layout, 3, kClasses, torch::TensorOptions()), layout);
  CHECK_FALSE(q.layout.active());
  CHECK(q.class_embed.sizes() == std::vector<int64_t>{3, 0, kDim});
  CHECK(q.bbox_unact.sizes() == std::vector<int64_t>{3, 0, 4});
  CHECK(q.matched_gt.sizes() == std::vector<int64_t>{3, 0});
  CHECK(q.attn_mask.sizes() == std::vector<int64_t>{kQueries, kQueries});
  CHECK_FALSE(q.attn_mask.any().item<bool>());
}

TEST_CASE("make_denoising_queries: bad inputs are refused with a message") {
  const auto b = batch();
  const detr::DenoisingConfig config{7, 0.5, 1.0};
  const auto layout = detr::denoising_layout(b.counts, config);
  const auto noise = detr::draw_denoising_noise(layout, 3, kClasses, torch::TensorOptions());
  torch::nn::Embedding embed(kClasses + 1, kDim), small(kClasses, kDim);
  CHECK_THROWS_WITH_AS(detr::make_denoising_queries(b.labels, b.boxes, b.valid, layout, noise, kClasses, kQueries,
                                                    small, config),
                       doctest::Contains("num_classes + 1"), c10::Error);
  CHECK_THROWS_WITH_AS(detr::make_denoising_queries(b.labels.narrow(1, 0, 2), b.boxes.narrow(1, 0, 2),
                                                    b.valid.narrow(1, 0, 2), layout, noise, kClasses, kQueries, embed,
                                                    config),
                       doctest::Contains("build the layout from these targets"), c10::Error);
  CHECK_THROWS_WITH_AS(detr::make_denoising_queries(b.labels.to(torch::kFloat32), b.boxes, b.valid, layout, noise,
                                                    kClasses, kQueries, embed, config),
                       doctest::Contains("integer class indices"), c10::Error);
  auto short_noise = noise;
  short_noise.box_uniform = short_noise.box_uniform.narrow(1, 0, 3);
  CHECK_THROWS_WITH_AS(detr::make_denoising_queries(b.labels, b.boxes, b.valid, layout, short_noise, kClasses, kQueries,
                                                    embed, config),
                       doctest::Contains("noise.box_uniform"), c10::Error);
}

TEST_CASE("pad_denoising: real queries and mask kept, padding sees only itself and nobody sees it") {
  const auto b = batch();
  detr::DenoisingConfig config;
  config.num_denoising = 7;  // max_gt 3 -> 2 groups -> 12 real queries
  const auto layout = detr::denoising_layout(b.counts, config);
  REQUIRE(layout.num_queries_dn == 12);
  const auto q = queries_for(b, config, fixed_noise(layout, 3, 0.25, 1.0), layout);
  const int64_t capacity = 16, real = 12, total = capacity + kQueries;
  const auto p = detr::pad_denoising(q, capacity, kQueries, kClasses);
  REQUIRE(p.labels.sizes() == torch::IntArrayRef({3, capacity}));
  REQUIRE(p.bbox_unact.sizes() == torch::IntArrayRef({3, capacity, 4}));
  REQUIRE(p.attn_mask.sizes() == torch::IntArrayRef({total, total}));
  CHECK(torch::equal(p.labels.narrow(1, 0, real), q.labels));
  CHECK((p.labels.narrow(1, real, capacity - real) == kClasses).all().item<bool>());
  CHECK(torch::equal(p.bbox_unact.narrow(1, 0, real), q.bbox_unact));
  CHECK((p.bbox_unact.narrow(1, real, capacity - real) == 0).all().item<bool>());
  // Where an unpadded index goes in the padded layout.
  auto place = [&](int64_t i) { return i < real ? i : i + (capacity - real); };
  const auto unpadded = q.attn_mask.accessor<bool, 2>();
  const auto padded = p.attn_mask.accessor<bool, 2>();
  for (int64_t i = 0; i < real + kQueries; ++i)
    for (int64_t j = 0; j < real + kQueries; ++j) CHECK(padded[place(i)][place(j)] == unpadded[i][j]);
  for (int64_t i = 0; i < total; ++i) {
    for (int64_t j = real; j < capacity; ++j) {
      INFO("row ", i, ", padding column ", j);
      CHECK(padded[i][j] == (i != j));  // a padding query is seen by itself only
      CHECK(padded[j][i] == (i != j));  // and sees itself only
    }
  }
  CHECK_THROWS(detr::pad_denoising(q, real - 1, kQueries, kClasses));
}

TEST_CASE("pad_denoising: a batch without GT pads to queries that only see themselves") {
  detr::DenoisingQueries none;
  none.labels = torch::zeros({2, 0}, torch::kLong);
  none.bbox_unact = torch::zeros({2, 0, 4});
  none.attn_mask = torch::zeros({kQueries, kQueries}, torch::kBool);
  const auto p = detr::pad_denoising(none, 3, kQueries, kClasses);
  const auto expected = torch::tensor({0, 1, 1, 1, 1, 1, 1,  //
                                       1, 0, 1, 1, 1, 1, 1,  //
                                       1, 1, 0, 1, 1, 1, 1,  //
                                       1, 1, 1, 0, 0, 0, 0,  //
                                       1, 1, 1, 0, 0, 0, 0,  //
                                       1, 1, 1, 0, 0, 0, 0,  //
                                       1, 1, 1, 0, 0, 0, 0},
                                      torch::kBool)
                            .view({7, 7});
  CHECK(torch::equal(p.attn_mask, expected));
  CHECK((p.labels == kClasses).all().item<bool>());
}

TEST_CASE("DenoisingInputs: static shapes keep one home per shape; split drops the padding") {
  const auto b = batch();
  detr::DenoisingConfig config;
  config.num_denoising = 7;  // 12 real queries, padded to 14
  const auto layout = detr::denoising_layout(b.counts, config);
  const auto q = queries_for(b, config, fixed_noise(layout, 3, 0.25, 1.0), layout);
  const detr::DenoisingInputs::Settings settings{7, kQueries, kClasses};
  detr::DenoisingInputs inputs;
  CHECK(inputs.prepare(q, 3, torch::kCPU, settings, /*static_shapes=*/true) == std::vector<int64_t>{14});
  const auto* home = inputs.inputs().labels.data_ptr();
  const auto first_mask = inputs.inputs().attn_mask.clone();
  // The next batch has no GT: same key, same tensors, new contents.
  CHECK(inputs.prepare(std::nullopt, 3, torch::kCPU, settings, true) == std::vector<int64_t>{14});
  CHECK(inputs.inputs().labels.data_ptr() == home);
  CHECK((inputs.inputs().labels == kClasses).all().item<bool>());
  CHECK_FALSE(torch::equal(inputs.inputs().attn_mask, first_mask));
  const auto output = torch::arange(14 + kQueries).view({1, -1});
  auto [dn, matching] = inputs.split(output, 1);
  CHECK_FALSE(dn.defined());
  CHECK(torch::equal(matching, torch::arange(14, 14 + kQueries).view({1, -1})));
  // Unpadded: the batch's own count, nothing kept.
  CHECK(inputs.prepare(q, 3, torch::kCPU, settings, false) == std::vector<int64_t>{12});
  std::tie(dn, matching) = inputs.split(torch::arange(12 + kQueries).view({1, -1}), 1);
  CHECK(dn.size(1) == 12);
  CHECK(matching.size(1) == kQueries);
  inputs.forget();
  CHECK_FALSE(inputs.prepared());
}
