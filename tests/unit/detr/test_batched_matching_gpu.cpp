// Batched matching on the GPU (the linear_assignment kernel, batched_matching.hpp): the same
// assignment as the host solver, bit for bit, on the shapes a DETR step gives (300 queries, few
// GT), on the other side's shape (fewer queries than GT), on integer costs full of ties (the tie
// rule decides), on matrices too large for shared memory; a non-finite matrix comes back
// unmatched. Skips without a CUDA device or a build with the kernels.
#include "../torch_doctest.hpp"

#include <libreyolo/sdk/detr/batched_matching.hpp>
#include <libreyolo/sdk/fused_kernels.hpp>

#include <limits>
#include <vector>

namespace detr = libreyolo::sdk::detr;
namespace sdk = libreyolo::sdk;

namespace {

struct GpuMatchingOnly {  // the policy is process-wide: leave it as found
  sdk::FusedKernels before = sdk::fused_kernels();
  GpuMatchingOnly() { sdk::set_fused_kernels(sdk::FusedKernels::when_built, "linear_assignment"); }
  ~GpuMatchingOnly() { sdk::set_fused_kernels(before); }
};

bool gpu_matching_runnable() { return torch::cuda::is_available() && sdk::fused_kernels_built(); }

// Counts cycling through 0..max, so every batch has empty, small and full matrices.
std::vector<int64_t> cycling_counts(int64_t matrices, int64_t max_count) {
  std::vector<int64_t> counts;
  for (int64_t i = 0; i < matrices; ++i) counts.push_back((i * 7) % (max_count + 1));
  return counts;
}

// The GPU result against the host solver's on the same values.
void check_equal_to_host(const torch::Tensor& cost, const std::vector<int64_t>& counts) {
  const GpuMatchingOnly policy;
  const auto on_gpu = detr::match_batched(cost.to(torch::kCUDA), counts);
  CHECK(on_gpu.is_cuda());
  CHECK((on_gpu.scalar_type() == torch::kInt64));
  const auto on_host = detr::match_batched_cpu(cost, counts, 1);
  const auto differing = (on_gpu.cpu() != on_host).any(1).nonzero();
  INFO("matrices whose assignment differs: " << differing.flatten());
  CHECK(torch::equal(on_gpu.cpu(), on_host));
}

}  // namespace

TEST_CASE("match_batched on the GPU equals the host solver") {
  if (!gpu_matching_runnable()) {
    MESSAGE("skipped: needs a CUDA device and a build with the fused kernels");
    return;
  }
  torch::manual_seed(17);
  SUBCASE("a DETR step's shape: 300 queries, up to 60 GT, padding NaN") {
    auto cost = torch::rand({112, 300, 60}) * 10 - 3;
    const auto counts = cycling_counts(112, 60);
    for (int64_t i = 0; i < 112; ++i)
      cost[i].narrow(1, counts[static_cast<size_t>(i)], 60 - counts[static_cast<size_t>(i)]).fill_(std::numeric_limits<float>::quiet_NaN());
    check_equal_to_host(cost, counts);
  }
  SUBCASE("fewer queries than GT") { check_equal_to_host(torch::rand({30, 7, 12}), cycling_counts(30, 12)); }
  SUBCASE("integer costs: ties everywhere") {
    check_equal_to_host(torch::randint(0, 4, {64, 40, 25}).to(torch::kFloat32), cycling_counts(64, 25));
    check_equal_to_host(torch::zeros({3, 20, 8}), {8, 3, 0});
  }
  SUBCASE("matrices too large for shared memory: the global workspace") {
    check_equal_to_host(torch::rand({4, 200, 1100}), {1100, 50, 199, 7});
  }
}

TEST_CASE("match_batched on the GPU leaves a non-finite matrix unmatched, the others solved") {
  if (!gpu_matching_runnable()) {
    MESSAGE("skipped: needs a CUDA device and a build with the fused kernels");
    return;
  }
  torch::manual_seed(18);
  auto cost = torch::rand({3, 50, 6});
  cost[1][10][2] = std::numeric_limits<float>::infinity();
  const std::vector<int64_t> counts = {6, 6, 6};
  const GpuMatchingOnly policy;
  const auto result = detr::match_batched(cost.to(torch::kCUDA), counts).cpu();
  CHECK(torch::equal(result[1], torch::full({50}, -1, torch::kInt64)));
  const auto host = detr::match_batched_cpu(cost.index({torch::indexing::Slice(0, 1)}), {6}, 1);
  CHECK(torch::equal(result[0], host[0]));
  CHECK((result[2] >= 0).sum().item<int64_t>() == 6);
}
