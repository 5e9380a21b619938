// LibreYOLO's YOLOX-style split: BatchNorm weights, other weights (decayed), biases.

#include "../torch_doctest.hpp"

#include <algorithm>

#include "libreyolo/core/error.hpp"
#include "libreyolo/core/optim/param_groups.hpp"

namespace optim = libreyolo::core::optim;

namespace {

// Stands for a synchronized BatchNorm of our own: recognised by its type name.
struct SyncBatchNormImpl : torch::nn::Module {
  SyncBatchNormImpl() {
    weight = register_parameter("weight", torch::ones({4}));
    bias = register_parameter("bias", torch::zeros({4}));
  }
  torch::Tensor weight, bias;
};

// A learnable scale named neither weight nor bias (LibreYOLO never optimizes such).
struct ScaleImpl : torch::nn::Module {
  ScaleImpl() { scale = register_parameter("scale", torch::ones({1})); }
  torch::Tensor scale;
};

struct Net : torch::nn::Module {
  Net() {
    conv1 = register_module("conv1", torch::nn::Conv2d(torch::nn::Conv2dOptions(3, 4, 3).bias(false)));
    bn = register_module("bn", torch::nn::BatchNorm2d(4));
    conv2 = register_module("conv2", torch::nn::Conv2d(4, 4, 1));
    sync_bn = register_module("sync_bn", std::make_shared<SyncBatchNormImpl>());
    head = register_module("head", torch::nn::Linear(4, 2));
    scale = register_module("scale", std::make_shared<ScaleImpl>());
  }
  torch::nn::Conv2d conv1{nullptr}, conv2{nullptr};
  torch::nn::BatchNorm2d bn{nullptr};
  std::shared_ptr<SyncBatchNormImpl> sync_bn;
  torch::nn::Linear head{nullptr};
  std::shared_ptr<ScaleImpl> scale;
};

bool same(const torch::Tensor& a, const torch::Tensor& b) {
  return a.unsafeGetTensorImpl() == b.unsafeGetTensorImpl();
}

bool holds(const optim::ParamGroup& group, const torch::Tensor& t) {
  return std::any_of(group.params.begin(), group.params.end(),
                     [&](const torch::Tensor& p) { return same(p, t); });
}

}  // namespace

TEST_CASE("split_param_groups: BatchNorm weights, decayed weights, biases, in that order") {
  Net net;  // a plain object, not a shared_ptr: the split must cope
  const auto split = optim::split_param_groups(net, 5e-4);
  REQUIRE(split.groups.size() == 3);
  const auto& bn = split.groups[0];
  const auto& decay = split.groups[1];
  const auto& bias = split.groups[2];
  CHECK(bn.name == "batchnorm");
  CHECK(decay.name == "decay");
  CHECK(bias.name == "bias");
  CHECK(bn.weight_decay == 0.0);
  CHECK(decay.weight_decay == 5e-4);
  CHECK(bias.weight_decay == 0.0);

  CHECK(bn.params.size() == 2);
  CHECK(holds(bn, net.bn->weight));
  CHECK(holds(bn, net.sync_bn->weight));
  CHECK(decay.params.size() == 3);
  CHECK(holds(decay, net.conv1->weight));
  CHECK(holds(decay, net.conv2->weight));
  CHECK(holds(decay, net.head->weight));
  CHECK(bias.params.size() == 4);
  CHECK(holds(bias, net.bn->bias));
  CHECK(holds(bias, net.conv2->bias));
  CHECK(holds(bias, net.sync_bn->bias));
  CHECK(holds(bias, net.head->bias));

  REQUIRE(split.ungrouped.size() == 1);
  CHECK(split.ungrouped[0] == "scale.scale");
}

TEST_CASE("split_param_groups: frozen parameters stay out; empty groups are dropped") {
  Net net;
  for (auto& p : net.parameters()) p.requires_grad_(false);
  net.head->weight.requires_grad_(true);
  const auto split = optim::split_param_groups(net, 1e-3, 0.01);
  REQUIRE(split.groups.size() == 1);
  CHECK(split.groups[0].name == "decay");
  CHECK(split.groups[0].params.size() == 1);
  CHECK(split.ungrouped.empty());

  net.head->weight.requires_grad_(false);
  CHECK_THROWS_AS(optim::split_param_groups(net, 1e-3), libreyolo::core::Error);
}

TEST_CASE("split_param_groups: no-decay groups take the given decay (AdamW default 0.01)") {
  Net net;
  const auto split = optim::split_param_groups(net, 0.05, 0.01);
  CHECK(split.groups[0].weight_decay == 0.01);
  CHECK(split.groups[1].weight_decay == 0.05);
  CHECK(split.groups[2].weight_decay == 0.01);
}

TEST_CASE("split_param_groups: a parameter shared by two modules is grouped once") {
  struct Tied : torch::nn::Module {
    explicit Tied(const torch::Tensor& shared) { register_parameter("weight", shared); }
  };
  struct Pair : torch::nn::Module {
    Pair() {
      const auto shared = torch::ones({2, 2});
      register_module("a", std::make_shared<Tied>(shared));
      register_module("b", std::make_shared<Tied>(shared));
    }
  };
  Pair pair;
  const auto split = optim::split_param_groups(pair, 0.0);
  REQUIRE(split.groups.size() == 1);
  CHECK(split.groups[0].params.size() == 1);
}

TEST_CASE("is_batchnorm: by module type") {
  CHECK(optim::is_batchnorm(*torch::nn::BatchNorm1d(3)));
  CHECK(optim::is_batchnorm(*torch::nn::BatchNorm2d(3)));
  CHECK(optim::is_batchnorm(*torch::nn::BatchNorm3d(3)));
  CHECK(optim::is_batchnorm(SyncBatchNormImpl()));
  CHECK_FALSE(optim::is_batchnorm(*torch::nn::LayerNorm(torch::nn::LayerNormOptions({3}))));
  CHECK_FALSE(optim::is_batchnorm(*torch::nn::GroupNorm(1, 3)));
  CHECK_FALSE(optim::is_batchnorm(*torch::nn::InstanceNorm2d(3)));
  CHECK_FALSE(optim::is_batchnorm(*torch::nn::Conv2d(3, 3, 1)));
}
