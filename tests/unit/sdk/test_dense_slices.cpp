// Dense slices (dense_slices.hpp, fused_kernels=dense_slices): a channel chunk of a channels-last
// activation copied once into a dense tensor before its readers. On every build: what
// dense_slice returns under each policy, and YOLOv9's blocks that read a chunk (ELAN,
// RepNCSPELAN, ADown) give the same outputs, input and parameter gradients bit for bit with and
// without it. On a GPU: YOLOv9-t's whole pass under float16 autocast, bit for bit.
#include "../torch_doctest.hpp"

#include <libreyolo/sdk/dense_slices.hpp>
#include <libreyolo/sdk/fused_kernels.hpp>

#include <vector>

#include "blocks.hpp"
#include "fused_test_support.hpp"
#include "model_pass_equality.hpp"
#include "yolo9_detector.hpp"

namespace sdk = libreyolo::sdk;
namespace yolo9 = libreyolo::families::yolo9;
using libreyolo::test::PolicyGuard;

TEST_CASE("dense slices: a channels-last chunk is copied dense in its layout only where the policy allows it") {
  const auto x = torch::randn({2, 8, 5, 6}).contiguous(torch::MemoryFormat::ChannelsLast);
  const auto half = x.chunk(2, 1)[1];
  REQUIRE_FALSE(half.is_contiguous(torch::MemoryFormat::ChannelsLast));
  {
    const PolicyGuard off(sdk::FusedKernels::off);
    CHECK(sdk::dense_slice(half).is_same(half));
  }
  {
    const PolicyGuard measured(sdk::FusedKernels::measured);  // in the default since 2026-12-05
    CHECK(sdk::dense_slice(half).is_contiguous(torch::MemoryFormat::ChannelsLast));
  }
  {
    const PolicyGuard other(sdk::FusedKernels::when_built, "block_tails");
    CHECK(sdk::dense_slice(half).is_same(half));
  }
  const PolicyGuard on(sdk::FusedKernels::when_built, "dense_slices");
  const auto dense = sdk::dense_slice(half);
  CHECK(dense.is_contiguous(torch::MemoryFormat::ChannelsLast));
  CHECK(torch::equal(dense, half));
  CHECK(dense.data_ptr() != half.data_ptr());
  // Already dense: itself, in either layout (a channel chunk of NCHW is dense with one image).
  CHECK(sdk::dense_slice(x).is_same(x));
  const auto one_image_half = torch::randn({1, 8, 5, 6}).chunk(2, 1)[1];
  CHECK(sdk::dense_slice(one_image_half).is_same(one_image_half));
  // With more images an NCHW chunk is not dense either: copied, and stays NCHW.
  const auto nchw_half = torch::randn({2, 8, 5, 6}).chunk(2, 1)[1];
  const auto nchw_dense = sdk::dense_slice(nchw_half);
  CHECK(nchw_dense.is_contiguous());
  CHECK(torch::equal(nchw_dense, nchw_half));
}

namespace {

struct PassResult {
  std::vector<torch::Tensor> all;  // output, input gradient, parameter gradients
};

template <typename Block>
PassResult block_pass(Block& block, const torch::Tensor& x_in, const torch::Tensor& upstream) {
  auto x = x_in.detach().requires_grad_();
  for (auto& p : block->parameters()) p.mutable_grad().reset();
  const auto y = block->forward(x);
  y.backward(upstream);
  PassResult r{{y.detach(), x.grad()}};
  for (const auto& p : block->parameters()) r.all.push_back(p.grad());
  return r;
}

template <typename Block>
void check_block_equal(Block block, int64_t channels) {
  torch::manual_seed(3);
  block->train();
  for (auto& p : block->parameters()) {
    torch::NoGradGuard no_grad;
    if (p.dim() == 4) p.set_data(p.contiguous(torch::MemoryFormat::ChannelsLast));
  }
  const auto x = torch::randn({2, channels, 12, 12}).contiguous(torch::MemoryFormat::ChannelsLast);
  const auto probe = block->forward(x).detach();
  const auto upstream = torch::randn(probe.sizes()).contiguous(torch::MemoryFormat::ChannelsLast);
  PassResult without, with;
  {
    const PolicyGuard off(sdk::FusedKernels::off);
    without = block_pass(block, x, upstream);
  }
  {
    const PolicyGuard on(sdk::FusedKernels::when_built, "dense_slices");
    with = block_pass(block, x, upstream);
  }
  REQUIRE(with.all.size() == without.all.size());
  for (std::size_t i = 0; i < with.all.size(); ++i) {
    CAPTURE(i);
    CHECK(torch::equal(with.all[i], without.all[i]));
  }
}

}  // namespace

TEST_CASE("dense slices: YOLOv9's blocks that read a chunk give the same bits with it (CPU, channels-last)") {
  SUBCASE("ELAN") { check_block_equal(yolo9::ELAN(16, 16, 8, 16, 1), 16); }
  SUBCASE("RepNCSPELAN") { check_block_equal(yolo9::RepNCSPELAN(16, 16, 8, 16, 1), 16); }
  SUBCASE("ADown") { check_block_equal(yolo9::ADown(16, 16), 16); }
}

TEST_CASE("dense slices: YOLOv9-t's loss and gradients on a GPU under float16 autocast, bit for bit") {
  if (!torch::cuda::is_available()) {
    MESSAGE("skipped: no CUDA device");
    return;
  }
  libreyolo::test::check_passes_equal<yolo9::Yolo9Detector>("t", {sdk::FusedKernels::when_built, "block_tails"},
                                                           {sdk::FusedKernels::when_built, "block_tails+dense_slices"});
}
