// `libreyolo-host version`: what this binary was built with and what it sees at run time.

#include <torch/cuda.h>

#include <iostream>

#include "commands.hpp"
#include "libreyolo/core/plugins/plugin_loader.hpp"
#include "libreyolo/core/weights/download.hpp"
#include "libreyolo/sdk/compat.hpp"
#include "libreyolo/sdk/version.hpp"

#ifndef LIBREYOLO_HOST_VERSION
#define LIBREYOLO_HOST_VERSION "unknown"
#endif

namespace libreyolo::app {

int run_version(const Args&) {
  const bool cuda = torch::cuda::is_available();
  std::cout << "libreyolo-host " << LIBREYOLO_HOST_VERSION << "\n"
            << "SDK            " << LIBREYOLO_SDK_VERSION << " (ABI " << LIBREYOLO_SDK_ABI_VERSION
            << ")\n"
            << "LibTorch       " << sdk::compat::torch_version() << "\n"
            << "CUDA devices   " << (cuda ? std::to_string(torch::cuda::device_count()) : "none")
            << "\n"
            << "ABI stamp      " << core::plugins::host_abi_stamp() << "\n"
            << "downloader     " << core::weights::downloader_description() << "\n";
  return kExitOk;
}

}  // namespace libreyolo::app
