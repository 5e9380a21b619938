#include "libreyolo/core/trainer/device_choice.hpp"

#include <torch/cuda.h>

#include <cctype>

#include "libreyolo/core/error.hpp"

namespace libreyolo::core::trainer {

torch::Device choose_device(const std::string& raw) {
  std::string spec;
  for (char c : raw) {
    if (!std::isspace(static_cast<unsigned char>(c))) spec += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  const bool cuda = torch::cuda::is_available();
  if (spec.empty() || spec == "auto") return cuda ? torch::Device(torch::kCUDA, 0) : torch::Device(torch::kCPU);
  if (spec == "cpu") return torch::kCPU;
  if (spec == "mps") {
    throw Error("device=mps is not available", "Apple's Metal backend exists only on macOS builds of LibTorch",
                "use device=cpu or a CUDA GPU index");
  }
  if (spec.find(',') != std::string::npos || spec.front() == '[') {
    throw Error("device=" + raw + " asks for several GPUs", "multi-GPU training is not built yet in this version",
                "train on one GPU (device=0)");
  }
  std::string index = spec.rfind("cuda:", 0) == 0 ? spec.substr(5) : spec == "cuda" ? "0" : spec;
  if (index.empty() || index.find_first_not_of("0123456789") != std::string::npos) {
    throw Error("device=" + raw + " is not a device", "expected auto, cpu, a GPU index (0) or cuda:N",
                "write e.g. device=0");
  }
  const int n = std::stoi(index);
  const auto count = cuda ? static_cast<int>(torch::cuda::device_count()) : 0;
  if (n >= count) {
    throw Error("device=" + raw + " does not exist",
                count == 0 ? "this machine has no CUDA GPU (or this build has no CUDA)"
                           : "this machine has " + std::to_string(count) + " CUDA GPU(s)",
                count == 0 ? "use device=cpu" : "use an index below " + std::to_string(count));
  }
  return {torch::kCUDA, static_cast<torch::DeviceIndex>(n)};
}

}  // namespace libreyolo::core::trainer
