#include "libreyolo/core/device/device_choice.hpp"

#include <torch/cuda.h>

#include <algorithm>
#include <cctype>

#include "libreyolo/core/distributed/rank_environment.hpp"
#include "libreyolo/core/error.hpp"

namespace libreyolo::core::device {
namespace {

// Lower case, no spaces, no brackets: "[0, 1]" and "0,1" read the same.
std::string normalized(const std::string& raw) {
  std::string spec;
  for (char c : raw) {
    if (std::isspace(static_cast<unsigned char>(c)) || c == '[' || c == ']') continue;
    spec += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return spec;
}

int cuda_device_count() { return torch::cuda::is_available() ? static_cast<int>(torch::cuda::device_count()) : 0; }

// "0", "cuda:0" or "cuda" to a GPU index that exists here.
int gpu_index(const std::string& entry, const std::string& raw) {
  const std::string index = entry.rfind("cuda:", 0) == 0 ? entry.substr(5) : entry == "cuda" ? "0" : entry;
  if (index.empty() || index.size() > 4 || index.find_first_not_of("0123456789") != std::string::npos) {
    throw Error("device=" + raw + " is not a device", "expected auto, cpu, a GPU index (0), cuda:N or a list 0,1",
                "write e.g. device=0 or device=0,1");
  }
  const int n = std::stoi(index);
  const int count = cuda_device_count();
  if (n >= count) {
    throw Error("device=" + raw + " names GPU " + std::to_string(n) + ", which does not exist",
                count == 0 ? "this machine has no CUDA GPU (or this build has no CUDA)"
                           : "this machine has " + std::to_string(count) + " CUDA GPU(s)",
                count == 0 ? "use device=cpu" : "use indices below " + std::to_string(count));
  }
  return n;
}

// The non-empty entries of a comma-separated spec ("0,1," -> "0", "1").
std::vector<std::string> list_entries(const std::string& spec) {
  std::vector<std::string> entries;
  std::size_t start = 0;
  while (start <= spec.size()) {
    const auto end = std::min(spec.find(',', start), spec.size());
    if (end > start) entries.push_back(spec.substr(start, end - start));
    start = end + 1;
  }
  return entries;
}

void refuse_mps(const std::string& spec) {
  if (spec == "mps") {
    throw Error("device=mps is not available", "Apple's Metal backend exists only on macOS builds of LibTorch",
                "use device=cpu or a CUDA GPU index");
  }
}

}  // namespace

std::vector<int> requested_gpus(const std::string& raw) {
  const auto spec = normalized(raw);
  refuse_mps(spec);
  if (spec.find(',') == std::string::npos) return {};
  std::vector<int> gpus;
  for (const auto& entry : list_entries(spec)) {
    const int n = gpu_index(entry, raw);
    if (std::find(gpus.begin(), gpus.end(), n) != gpus.end()) {
      throw Error("device=" + raw + " names GPU " + std::to_string(n) + " twice",
                  "each rank needs a GPU of its own", "list every GPU once, e.g. device=0,1");
    }
    gpus.push_back(n);
  }
  return gpus;
}

torch::Device choose_device(const std::string& raw) {
  const auto spec = normalized(raw);
  refuse_mps(spec);
  if (spec.empty() || spec == "auto") return cuda_device_count() > 0 ? torch::Device(torch::kCUDA, 0) : torch::Device(torch::kCPU);
  if (spec == "cpu") return torch::kCPU;
  if (spec.find(',') != std::string::npos) {
    const auto entries = list_entries(spec);
    if (entries.size() <= 1) {  // "0," is one GPU; "," none (gpu_index says it is not a device)
      return {torch::kCUDA, static_cast<torch::DeviceIndex>(gpu_index(entries.empty() ? "" : entries.front(), raw))};
    }
    throw Error("device=" + raw + " names several GPUs", "this command runs in one process on one device",
                "give one device (device=0); only `libreyolo-host train` starts one worker per GPU");
  }
  return {torch::kCUDA, static_cast<torch::DeviceIndex>(gpu_index(spec, raw))};
}

torch::Device choose_rank_device(const std::string& raw, const distributed::RankEnvironment& ranks) {
  if (ranks.worker_device) return {torch::kCUDA, static_cast<torch::DeviceIndex>(*ranks.worker_device)};
  const auto spec = normalized(raw);
  refuse_mps(spec);
  const int count = cuda_device_count();
  if (spec == "cpu" || (count == 0 && (spec.empty() || spec == "auto"))) return torch::kCPU;
  if (ranks.local_rank >= count) {
    throw Error("rank " + std::to_string(ranks.rank) + " has LOCAL_RANK=" + std::to_string(ranks.local_rank) +
                    " but this machine has " + std::to_string(count) + " CUDA GPU(s)",
                "under an external launcher each rank trains on cuda:LOCAL_RANK",
                "start at most " + std::to_string(count) + " processes per node (--nproc_per_node), or device=cpu");
  }
  return {torch::kCUDA, static_cast<torch::DeviceIndex>(ranks.local_rank)};
}

}  // namespace libreyolo::core::device
