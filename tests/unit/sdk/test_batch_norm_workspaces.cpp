// The BatchNorm workspaces of fused_kernels=batch_norm_memsets (batch_norm_workspaces.cpp,
// cudnn_persistent_batch_norm.cpp). On every build: a layer keeps its workspace while it is large
// enough, keeps what it outgrew (a recorded graph may still write there), counts claims since the
// last start, hands out nothing for 0 bytes; and the SDK's BatchNorm on the CPU gives the default's
// bits under the policy (it never takes the path there). On a GPU: float16 channels-last maps of
// YOLOv9-t's and YOLOX-s's kinds give PyTorch's cuDNN BatchNorm's outputs, gradients and running
// statistics bit for bit (the same cuDNN calls), through the path's own backward node, with one
// claim of each direction's workspace a training pass; and with batch_norm_memsets_recording_only
// an eager pass keeps PyTorch's node and claims nothing (the captured side is
// tests/unit/capture/test_batch_norm_memsets.cpp's).
#include "../torch_doctest.hpp"

#include <libreyolo/sdk/batch_norm.hpp>
#include <libreyolo/sdk/batch_norm_workspaces.hpp>

#include <string>
#include <vector>

#include "../../../sdk/src/batch_norm_workspace.hpp"
#include "fused_test_support.hpp"

namespace sdk = libreyolo::sdk;
using libreyolo::test::PolicyGuard;

namespace {

struct Trained {
  torch::Tensor y, grad_x, grad_weight, grad_bias, running_mean, running_var;
  std::string node;
};

Trained train_once(const torch::Tensor& x_in, const torch::Tensor& upstream, const std::string& names) {
  const PolicyGuard policy(names.empty() ? sdk::FusedKernels::off : sdk::FusedKernels::when_built, names);
  torch::manual_seed(12);
  sdk::BatchNorm2d layer(torch::nn::BatchNorm2dOptions(x_in.size(1)).eps(1e-3).momentum(0.03));
  layer->to(x_in.device());
  {
    torch::NoGradGuard no_grad;
    layer->weight.uniform_(0.5, 1.5);
    layer->bias.uniform_(-0.5, 0.5);
  }
  layer->train();
  auto x = x_in.detach().requires_grad_(true);
  const auto y = layer(x);
  const std::string node = y.grad_fn() ? y.grad_fn()->name() : "(none)";
  (y.to(torch::kFloat) * upstream).sum().backward();
  return {y.detach(), x.grad(), layer->weight.grad(), layer->bias.grad(), layer->running_mean.clone(),
          layer->running_var.clone(), node};
}

void check_same_bits(const Trained& got, const Trained& want) {
  CHECK(torch::equal(got.y, want.y));
  CHECK(torch::equal(got.grad_x, want.grad_x));
  CHECK(torch::equal(got.grad_weight, want.grad_weight));
  CHECK(torch::equal(got.grad_bias, want.grad_bias));
  CHECK(torch::equal(got.running_mean, want.running_mean));
  CHECK(torch::equal(got.running_var, want.running_var));
}

int claims_of(const torch::Tensor& workspace) {
  const auto begin = reinterpret_cast<std::uintptr_t>(workspace.data_ptr());
  for (const auto& range : sdk::claimed_workspaces()) {
    if (range.begin == begin) return range.claims;
  }
  return 0;
}

}  // namespace

TEST_CASE("BatchNorm workspaces: kept per layer and direction, outgrown ones kept, claims counted") {
  const int owner = 0, other = 0;
  const torch::Device cpu(torch::kCPU);
  sdk::start_counting_workspace_claims();
  const auto first = sdk::batch_norm_workspace(&owner, sdk::WorkspaceUse::forward, 1000, cpu);
  REQUIRE(first.defined());
  CHECK(first.numel() >= 1000);
  CHECK(first.numel() % 256 == 0);
  const auto again = sdk::batch_norm_workspace(&owner, sdk::WorkspaceUse::forward, 500, cpu);
  CHECK(again.data_ptr() == first.data_ptr());  // large enough: the same memory
  CHECK(claims_of(first) == 2);
  const auto backward = sdk::batch_norm_workspace(&owner, sdk::WorkspaceUse::backward, 1000, cpu);
  const auto others = sdk::batch_norm_workspace(&other, sdk::WorkspaceUse::forward, 1000, cpu);
  CHECK(backward.data_ptr() != first.data_ptr());
  CHECK(others.data_ptr() != first.data_ptr());
  CHECK(others.data_ptr() != backward.data_ptr());
  CHECK_FALSE(sdk::batch_norm_workspace(&owner, sdk::WorkspaceUse::forward, 0, cpu).defined());
  sdk::start_counting_workspace_claims();
  CHECK(claims_of(first) == 0);
  const auto grown = sdk::batch_norm_workspace(&owner, sdk::WorkspaceUse::forward, 100000, cpu);
  CHECK(grown.data_ptr() != first.data_ptr());
  CHECK(first.use_count() >= 2);  // the registry still holds the outgrown memory
  CHECK(claims_of(grown) == 1);
  const auto ranges = sdk::claimed_workspaces();
  REQUIRE(ranges.size() == 1);
  CHECK(ranges[0].end - ranges[0].begin >= 100000);
}

TEST_CASE("batch_norm_memsets: on the CPU the SDK's BatchNorm gives the default's bits") {
  torch::manual_seed(3);
  const auto x = (torch::randn({3, 5, 6, 7}) * 2 + 1).contiguous(torch::MemoryFormat::ChannelsLast);
  const auto upstream = torch::randn({3, 5, 6, 7});
  check_same_bits(train_once(x, upstream, "batch_norm_memsets"), train_once(x, upstream, ""));
}

TEST_CASE("batch_norm_memsets: float16 channels-last on the GPU gives PyTorch's cuDNN BatchNorm bit for bit") {
  if (!torch::cuda::is_available()) {
    MESSAGE("skipped: no CUDA device");
    return;
  }
  torch::manual_seed(7);
  const auto gpu = torch::TensorOptions().device(torch::kCUDA, 0);
  const auto half_channels_last = [](const torch::Tensor& t) {
    return t.to(torch::kHalf).contiguous(torch::MemoryFormat::ChannelsLast);
  };
  // YOLOv9-t's small and large kinds, and YOLOX-s's widest and largest maps (its gradients with
  // batch_norm_memsets differed from the default's in run41d, while the forward's workspace size
  // was asked without x's descriptor for z; as PyTorch asks it, they pass here: run42a).
  for (const auto& shape : {std::vector<int64_t>{16, 64, 20, 20}, std::vector<int64_t>{16, 32, 80, 80},
                            std::vector<int64_t>{16, 16, 160, 160}, std::vector<int64_t>{16, 512, 20, 20},
                            std::vector<int64_t>{16, 256, 40, 40}, std::vector<int64_t>{16, 32, 320, 320}}) {
    INFO("shape " << torch::IntArrayRef(shape));
    const auto x = half_channels_last(torch::randn(shape, gpu) * 2 + 1);
    const auto upstream = torch::randn(shape, gpu);
    const auto pytorch = train_once(x, upstream, "");
    sdk::start_counting_workspace_claims();
    const auto ours = train_once(x, upstream, "batch_norm_memsets");
    check_same_bits(ours, pytorch);
    CAPTURE(pytorch.node);
    CAPTURE(ours.node);
    CHECK(pytorch.node.find("Cudnn") != std::string::npos);
    CHECK(ours.node.find("OwnWorkspaceBatchNorm") != std::string::npos);
    for (const auto& range : sdk::claimed_workspaces()) CHECK(range.claims == 1);
  }
}

TEST_CASE("batch_norm_memsets_recording_only: an eager step keeps PyTorch's own cuDNN call and claims no workspace") {
  if (!torch::cuda::is_available()) {
    MESSAGE("skipped: no CUDA device");
    return;
  }
  torch::manual_seed(9);
  const auto gpu = torch::TensorOptions().device(torch::kCUDA, 0);
  const auto x = (torch::randn({16, 64, 20, 20}, gpu) * 2 + 1).to(torch::kHalf).contiguous(torch::MemoryFormat::ChannelsLast);
  const auto upstream = torch::randn({16, 64, 20, 20}, gpu);
  sdk::start_counting_workspace_claims();
  const auto eager = train_once(x, upstream, "batch_norm_memsets+batch_norm_memsets_recording_only");
  CAPTURE(eager.node);
  CHECK(eager.node.find("Cudnn") != std::string::npos);
  CHECK(sdk::claimed_workspaces().empty());
  check_same_bits(eager, train_once(x, upstream, ""));
}
