// save_checkpoint -> load_checkpoint keeps metadata, weights (bit for bit) and training state.

#include <ATen/CPUGeneratorImpl.h>

#include <cmath>

#include "test_checkpoint_support.hpp"
#include "../temp_dir.hpp"

namespace ck = libreyolo::core::checkpoint;
using namespace libreyolo::test::checkpoint;
using libreyolo::test::TempDir;

TEST_CASE("checkpoint round trip keeps metadata and weights bit for bit") {
  TempDir dir;
  TinyNet net = trained_net();
  ck::Checkpoint saved = sample_checkpoint(net);
  const auto path = dir / "best.pt";
  ck::save_checkpoint(path, saved);

  const ck::Checkpoint loaded = ck::load_checkpoint(path);
  CHECK(loaded.metadata.schema_version == "1.0");
  CHECK(loaded.metadata.libreyolo_version == ck::kWriterVersion);
  CHECK(loaded.metadata.model_family == "yolo9");
  CHECK(loaded.metadata.size == "t");
  CHECK(loaded.metadata.task == "detect");
  CHECK(loaded.metadata.nc == 3);
  CHECK(loaded.metadata.names == std::vector<std::string>{"cat", "dog", "person"});
  CHECK(loaded.metadata.imgsz == 640);
  CHECK(loaded.warnings.empty());
  CHECK(loaded.missing_metadata.empty());
  CHECK_FALSE(loaded.train.has_value());

  // PyTorch's state_dict() order: conv.weight, bn.weight, bn.bias, bn.running_mean,
  // bn.running_var, bn.num_batches_tracked, head.weight, head.bias.
  CHECK(loaded.model.keys() == std::vector<std::string>{"conv.weight", "bn.weight", "bn.bias", "bn.running_mean",
                                                          "bn.running_var", "bn.num_batches_tracked",
                                                          "head.weight", "head.bias"});
  CHECK(bit_equal(loaded.model, saved.model));
  CHECK((loaded.model["bn.num_batches_tracked"].scalar_type() == torch::kLong));
  CHECK(loaded.model["bn.num_batches_tracked"].item<int64_t>() == 3);

  // The weights load back into a fresh model and give the same outputs.
  TinyNet fresh(3);
  const auto report = ck::load_state_dict_into(*fresh, loaded.model, /*strict=*/true);
  CHECK(report.loaded == 8);
  net->eval();
  fresh->eval();
  const auto x = torch::randn({1, 3, 8, 8});
  CHECK(bit_equal(net->forward(x), fresh->forward(x)));
}

TEST_CASE("empty names are written as class_i") {
  TempDir dir;
  ck::Checkpoint c = sample_checkpoint(trained_net());
  c.metadata.names.clear();
  ck::save_checkpoint(dir / "a.pt", c);
  CHECK(ck::load_checkpoint(dir / "a.pt").metadata.names ==
        std::vector<std::string>{"class_0", "class_1", "class_2"});
}

TEST_CASE("tensors of every checkpoint dtype and layout round trip") {
  TempDir dir;
  ck::Checkpoint c = sample_checkpoint(trained_net());
  c.model = ck::StateDict();
  c.model.insert("f32", torch::randn({3, 4}));
  c.model.insert("f64", torch::randn({2}, torch::kDouble));
  c.model.insert("f16", torch::randn({5}).to(torch::kHalf));
  c.model.insert("bf16", torch::randn({5}).to(torch::kBFloat16));
  c.model.insert("i64", torch::arange(7, torch::kLong));
  c.model.insert("i32", torch::arange(7, torch::kInt));
  c.model.insert("u8", torch::arange(7, torch::kByte));
  c.model.insert("b", torch::tensor({true, false, true}));
  c.model.insert("scalar", torch::tensor(3.5));
  c.model.insert("empty", torch::empty({0, 4}));
  c.model.insert("nan", torch::tensor({std::nanf(""), 1.0f}));
  // Channels-last weights and a transposed view must come back with the same values, stored
  // row-major.
  auto conv = torch::randn({8, 3, 3, 3}).contiguous(torch::MemoryFormat::ChannelsLast);
  auto transposed = torch::randn({4, 6}).t();
  c.model.insert("channels_last", conv);
  c.model.insert("transposed", transposed);
  // A slice of a bigger buffer (a flat parameter store) keeps its values.
  auto flat = torch::arange(20, torch::kFloat);
  c.model.insert("slice", flat.narrow(0, 5, 10));
  ck::save_checkpoint(dir / "t.pt", c);

  ck::LoadOptions codec_only;
  codec_only.allow_non_finite = true;  // the NaN tensor tests the codec; loads for use refuse it
  const auto loaded = ck::load_checkpoint(dir / "t.pt", codec_only);
  REQUIRE(loaded.model.keys() == c.model.keys());
  for (const auto& item : c.model) {
    INFO(item.key());
    CHECK(bit_equal(loaded.model[item.key()], item.value()));
  }
  CHECK(loaded.model["channels_last"].is_contiguous());
  CHECK(loaded.model["transposed"].is_contiguous());
  CHECK(torch::equal(loaded.model["slice"], torch::arange(5, 15, torch::kFloat)));
}

TEST_CASE("tensors that share storage are stored once, as torch.save does") {
  TempDir dir;
  TinyNet net = trained_net();
  ck::Checkpoint c = sample_checkpoint(net);
  ck::save_checkpoint(dir / "plain.pt", c);

  ck::Checkpoint with_ema = c;
  with_ema.train.emplace();
  with_ema.train->ema = ck::EmaState{c.model, 10};  // the EMA weights are the model weights
  with_ema.train->train_model = c.model;             // (as when EMA is what `model` holds)
  ck::save_checkpoint(dir / "ema.pt", with_ema);
  const auto plain_size = std::filesystem::file_size(dir / "plain.pt");
  const auto ema_size = std::filesystem::file_size(dir / "ema.pt");
  // Three state dicts, one copy of the data: only the pickle and zip headers grow.
  CHECK(ema_size < plain_size + 4096);
}

TEST_CASE("training state round trips") {
  TempDir dir;
  TinyNet net = trained_net();
  ck::Checkpoint c = sample_checkpoint(net);
  ck::TrainState t;
  t.epoch = 41;
  t.global_step = 123456;
  t.best_metric_key = "metrics/mAP50-95";
  t.best_fitness = 0.512345678901234;
  t.best_epoch = 39;
  TinyNet raw = trained_net(3, 99);
  t.train_model = ck::state_dict_of(*raw);
  t.ema = ck::EmaState{c.model, 98765};
  t.optimizer.name = "SGD";
  t.optimizer.step = 123000;
  for (const auto& item : ck::state_dict_of(*raw)) {
    ck::StateDict buffers;
    buffers.insert("momentum_buffer", torch::randn(item.value().sizes()));
    t.optimizer.params.insert(item.key(), buffers);
  }
  t.scaler = {true, 32768.0, 17};
  t.rng.seed = 0xfedcba9876543210ULL;  // above 2^63: stored as its two's complement
  t.rng.cpu_state = at::detail::getDefaultCPUGenerator().get_state();
  t.rng.cuda_states = {torch::arange(16, torch::kByte), torch::arange(8, torch::kByte)};
  t.options = {{"epochs", "300"}, {"batch", "16"}, {"data", "coco8.yaml"}};
  c.train = t;
  ck::save_checkpoint(dir / "last.pt", c);

  const auto loaded = ck::load_checkpoint(dir / "last.pt");
  REQUIRE(loaded.train.has_value());
  const ck::TrainState& l = *loaded.train;
  CHECK(l.epoch == 41);
  CHECK(l.global_step == 123456);
  CHECK(l.best_metric_key == "metrics/mAP50-95");
  CHECK(l.best_fitness == t.best_fitness);
  CHECK(l.best_epoch == 39);
  REQUIRE(l.ema.has_value());
  CHECK(l.ema->updates == 98765);
  CHECK(bit_equal(l.ema->weights, c.model));
  CHECK(bit_equal(l.train_model, t.train_model));
  CHECK(l.optimizer.name == "SGD");
  CHECK(l.optimizer.step == 123000);
  REQUIRE(l.optimizer.params.keys() == t.optimizer.params.keys());
  for (const auto& p : t.optimizer.params) CHECK(bit_equal(l.optimizer.params[p.key()], p.value()));
  CHECK(l.scaler.enabled);
  CHECK(l.scaler.scale == 32768.0);
  CHECK(l.scaler.growth_tracker == 17);
  CHECK(l.rng.seed == 0xfedcba9876543210ULL);
  CHECK(bit_equal(l.rng.cpu_state, t.rng.cpu_state));
  REQUIRE(l.rng.cuda_states.size() == 2);
  CHECK(bit_equal(l.rng.cuda_states[1], t.rng.cuda_states[1]));
  CHECK(l.options == t.options);

  // The restored generator state reproduces the same random numbers.
  auto generator = torch::make_generator<at::CPUGeneratorImpl>();
  generator.set_state(l.rng.cpu_state);
  auto expected_generator = torch::make_generator<at::CPUGeneratorImpl>();
  expected_generator.set_state(t.rng.cpu_state);
  CHECK(torch::equal(torch::randn({4}, generator), torch::randn({4}, expected_generator)));
}

TEST_CASE("a training checkpoint without EMA stores the raw weights as model") {
  TempDir dir;
  ck::Checkpoint c = sample_checkpoint(trained_net());
  c.train.emplace();
  c.train->optimizer.name = "AdamW";
  ck::save_checkpoint(dir / "last.pt", c);
  const auto root = ck::read_torch_archive(dir / "last.pt");
  REQUIRE(root->find("is_ema_weights") != nullptr);
  CHECK_FALSE((*root->find("is_ema_weights"))->boolean);
  CHECK(root->find("ema") == nullptr);
  CHECK(root->find("train_model") == nullptr);
  const auto loaded = ck::load_checkpoint(dir / "last.pt");
  REQUIRE(loaded.train.has_value());
  CHECK_FALSE(loaded.train->ema.has_value());
  CHECK(loaded.train->optimizer.name == "AdamW");
}

TEST_CASE("the file holds LibreYOLO's keys in LibreYOLO's order") {
  TempDir dir;
  ck::Checkpoint c = sample_checkpoint(trained_net());
  c.train.emplace();
  ck::save_checkpoint(dir / "last.pt", c);
  const auto root = ck::read_torch_archive(dir / "last.pt");
  CHECK(root->string_keys() ==
        std::vector<std::string>{"model", "schema_version", "libreyolo_version", "model_family", "size", "task",
                                 "nc", "names", "imgsz", "epoch", "best_metric_key", "best_metric_value",
                                 "best_epoch", "is_ema_weights", "host_train_state"});
  CHECK((*root->find("model"))->ordered);       // collections.OrderedDict, like state_dict()
  const auto& names = **root->find("names");
  REQUIRE(names.entries.size() == 3);
  CHECK(names.entries[0].first->kind == ck::PickleValue::Kind::Int);  // {0: "cat", ...}
}

TEST_CASE("save refuses a checkpoint LibreYOLO could not load, before touching the disk") {
  TempDir dir;
  const auto path = dir / "best.pt";
  ck::Checkpoint good = sample_checkpoint(trained_net());
  ck::save_checkpoint(path, good);
  const std::string before = read_bytes(path);

  auto refused = [&](ck::Checkpoint c) {
    CHECK_THROWS_AS(ck::save_checkpoint(path, c), libreyolo::core::Error);
    CHECK(read_bytes(path) == before);
  };
  ck::Checkpoint c = good;
  c.metadata.model_family.clear();
  refused(c);
  c = good;
  c.metadata.nc = 0;
  refused(c);
  c = good;
  c.metadata.names = {"only-one"};
  refused(c);
  c = good;
  c.metadata.imgsz = -1;
  refused(c);
  c = good;
  c.metadata.task = "tracking";
  refused(c);
  c = good;
  c.model = ck::StateDict();
  refused(c);
}
