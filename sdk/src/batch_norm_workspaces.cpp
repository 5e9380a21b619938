// batch_norm_workspaces.hpp and batch_norm_workspace.hpp: one registry of workspaces for the
// process, guarded by a mutex (autograd runs a CUDA backward on its own device thread).
#include "libreyolo/sdk/batch_norm_workspaces.hpp"

#include <torch/torch.h>

#include <map>
#include <mutex>
#include <tuple>
#include <vector>

#include "batch_norm_workspace.hpp"
#include "libreyolo/sdk/fused_kernels.hpp"

namespace libreyolo::sdk {
namespace {

constexpr std::int64_t kAlignment = 256;  // cuDNN's workspaces, as the caching allocator rounds them

using Key = std::tuple<const void*, int, int>;  // owner, use, device index

struct Slot {
  torch::Tensor memory;
  int claims = 0;  // since the last start_counting_workspace_claims()
};

struct Registry {
  std::mutex mutex;
  std::map<Key, Slot> slots;
  std::vector<torch::Tensor> outgrown;  // kept: a recorded graph may still write into them
};

Registry& registry() {
  static auto* r = new Registry;  // never destroyed: graphs alive at exit may still refer to it
  return *r;
}

std::int64_t rounded_up(std::int64_t bytes) { return (bytes + kAlignment - 1) / kAlignment * kAlignment; }

}  // namespace

torch::Tensor batch_norm_workspace(const void* owner, WorkspaceUse use, std::int64_t bytes, const torch::Device& device) {
  if (bytes <= 0) return {};
  auto& r = registry();
  const std::lock_guard<std::mutex> lock(r.mutex);
  auto& slot = r.slots[Key{owner, static_cast<int>(use), device.has_index() ? device.index() : -1}];
  if (!slot.memory.defined() || slot.memory.numel() < bytes) {
    if (slot.memory.defined()) r.outgrown.push_back(slot.memory);
    slot.memory = torch::empty({rounded_up(bytes)}, torch::TensorOptions().dtype(torch::kByte).device(device));
  }
  ++slot.claims;
  return slot.memory;
}

void start_counting_workspace_claims() {
  auto& r = registry();
  const std::lock_guard<std::mutex> lock(r.mutex);
  for (auto& entry : r.slots) entry.second.claims = 0;
}

std::vector<WorkspaceRange> claimed_workspaces() {
  auto& r = registry();
  const std::lock_guard<std::mutex> lock(r.mutex);
  std::vector<WorkspaceRange> ranges;
  for (const auto& entry : r.slots) {
    const auto& slot = entry.second;
    if (slot.claims == 0) continue;
    const auto begin = reinterpret_cast<std::uintptr_t>(slot.memory.data_ptr());
    ranges.push_back({begin, begin + static_cast<std::uintptr_t>(slot.memory.numel()), slot.claims});
  }
  return ranges;
}

bool batch_norm_memsets_allowed() {
  return fused_kernel_allowed("batch_norm_memsets") || fused_kernel_allowed("batch_norm_memsets_shifted") ||
         fused_kernel_allowed("batch_norm_memsets_merged") || fused_kernel_allowed("batch_norm_memsets_leading");
}

}  // namespace libreyolo::sdk
