#include "branch_streams_setup.hpp"

#include <libreyolo/sdk/fused_kernels.hpp>
#include <libreyolo/sdk/side_by_side.hpp>

#include <exception>
#include <string>

#include "libreyolo/core/log/log.hpp"
#include "session.hpp"

namespace libreyolo::core::trainer {

void prepare_branch_streams(Session& s) {
  sdk::permit_branch_streams(-1);  // a session before this one (bench fused) may have permitted them
  if (!sdk::branch_streams_requested()) return;
  std::string refusal;
  if (!s.device.is_cuda()) refusal = "the run is not on a CUDA device";
  if (s.gradient_sync) refusal = "distributed training expects autograd's work on one stream";
  if (refusal.empty()) {
    try {
      sdk::permit_branch_streams(s.device.index());
    } catch (const std::exception& e) {
      refusal = e.what();
    }
  }
  if (!refusal.empty()) {
    log::info("fused_kernels: the network's branches run one after the other (", refusal, ")");
    return;
  }
  if (sdk::fused_kernel_allowed("branch_streams"))
    log::info("fused_kernels: the network's independent branches run side by side on CUDA streams");
  else
    log::info("fused_kernels: the detector's level branches (heads, towers) run side by side on CUDA streams");
}

}  // namespace libreyolo::core::trainer
