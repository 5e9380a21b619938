#include "libreyolo/sdk/batch_norm.hpp"

#include <torch/torch.h>

#include <sstream>
#include <tuple>
#include <utility>

#include "cudnn_persistent_batch_norm.hpp"
#include "libreyolo/sdk/batch_count.hpp"
#include "libreyolo/sdk/batch_norm_workspaces.hpp"
#include "libreyolo/sdk/fused_kernels.hpp"
#include "libreyolo/sdk/user_error.hpp"
#include "module_copy.hpp"

// LibTorch 1.13 defines this member in libtorch but does not export it, while the construction
// vtable of any class derived from torch::nn::BatchNorm2dImpl (the vtable in force while the
// base part is being built) refers to it. This definition, emitted next to sdk::BatchNorm2dImpl's
// vtable, satisfies that reference; where a LibTorch does export its own, the two are
// interchangeable (only text for operator<< during construction).
template <>
void torch::nn::BatchNormImplBase<2, torch::nn::BatchNorm2dImpl>::pretty_print(std::ostream& stream) const {
  stream << "torch::nn::BatchNorm2d(" << options.num_features() << ")";
}

namespace libreyolo::sdk {

BatchNormSynchronizer::~BatchNormSynchronizer() = default;

BatchNorm2dImpl::~BatchNorm2dImpl() = default;

namespace {

// Under batch_norm_memsets the same cuDNN calls as PyTorch's with this layer's own workspaces, so
// that a recorded graph can take cuDNN's memsets off its critical path (batch_norm_workspaces.hpp);
// with batch_norm_memsets_recording_only beside it only while a graph is being recorded, since
// eager steps gain nothing from them (the bits are the same either way).
bool takes_own_workspaces(const torch::nn::BatchNormOptions& options, const torch::Tensor& input,
                          const torch::Tensor& weight, const torch::Tensor& bias, const torch::Tensor& running_mean,
                          const torch::Tensor& running_var) {
  if (!batch_norm_memsets_allowed() || !options.affine()) return false;
  if (!own_workspace_batch_norm_fits(input, weight, bias, running_mean, running_var)) return false;
  if (!own_workspace_batch_norm_unavailable().empty()) return false;
  return !fused_kernel_allowed("batch_norm_memsets_recording_only") || stream_is_recording(input.device());
}

// Training statistics need two values per channel or more. One value is the user's setting (a
// batch of one image whose deepest maps are 1x1, e.g. batch=1 at imgsz=32), not a fault: say so
// before PyTorch's own check does, which the host would report as a bug.
void require_two_values_per_channel(const torch::Tensor& input) {
  if (input.dim() != 4 || input.size(0) * input.size(2) * input.size(3) != 1) return;
  std::ostringstream shape;
  shape << input.sizes();
  throw UserError("a BatchNorm layer got one value per channel in training (input " + shape.str() + ")",
                  "a batch of one image at this image size leaves the network's deepest maps 1x1, and "
                  "training statistics need at least two values",
                  "train with batch=2 or more (per GPU), or a larger imgsz");
}

}  // namespace

// torch::nn::BatchNorm2d's training forward with its counter moved through count_batch (one
// kernel a step inside a BatchCountDeferral, batch_count.hpp). Where the momentum is unset the
// running averages read the count, so those layers keep the base forward.
torch::Tensor BatchNorm2dImpl::forward(const torch::Tensor& input) {
  if (is_training() && synchronizer_) return synchronizer_->forward(*this, input);
  if (is_training()) require_two_values_per_channel(input);
  const bool counts = is_training() && options.track_running_stats() && num_batches_tracked.defined();
  if (!counts || !options.momentum()) return torch::nn::BatchNorm2dImpl::forward(input);
  _check_input_dim(input);
  count_batch(num_batches_tracked);
  // torch::nn::functional::batch_norm's own check and call, or under native_batch_norm PyTorch's
  // own BatchNorm kernels instead of cuDNN's (which make a memset per call each way and take 8-9 us
  // on a step's small maps), a candidate measured in the step. Called by name: torch::batch_norm's
  // cudnn_enabled argument no longer chooses anything (PyTorch 2.11 asks the global cuDNN switch
  // alone; passing false left the step's kernels and bits unchanged on the GPU, 2026-12-06).
  if (takes_own_workspaces(options, input, weight, bias, running_mean, running_var)) {
    return own_workspace_batch_norm(this, input, weight, bias, running_mean, running_var, *options.momentum(),
                                    options.eps());
  }
  if (fused_kernel_allowed("native_batch_norm")) {
    return std::get<0>(torch::native_batch_norm(input, weight, bias, running_mean, running_var, /*training=*/true,
                                                *options.momentum(), options.eps()));
  }
  return torch::batch_norm(input, weight, bias, running_mean, running_var, /*training=*/true, *options.momentum(),
                           options.eps(), at::globalContext().userEnabledCuDNN());
}

void BatchNorm2dImpl::set_synchronizer(std::shared_ptr<BatchNormSynchronizer> synchronizer) {
  synchronizer_ = std::move(synchronizer);
}

void BatchNorm2dImpl::pretty_print(std::ostream& stream) const {
  stream << "libreyolo::sdk::BatchNorm2d(" << options.num_features() << ", eps=" << options.eps()
         << ", momentum=";
  if (options.momentum()) {
    stream << *options.momentum();
  } else {
    stream << "None";
  }
  stream << ", affine=" << std::boolalpha << options.affine()
         << ", track_running_stats=" << options.track_running_stats() << std::noboolalpha
         << (synchronized() ? ", synchronized" : "") << ")";
}


std::shared_ptr<torch::nn::Module> BatchNorm2dImpl::clone(
    const c10::optional<torch::Device>& device) const {
  auto copy = std::make_shared<BatchNorm2dImpl>(options);
  detail::copy_own_values(*this, *copy, device);
  copy->train(is_training());
  copy->synchronizer_ = synchronizer_;
  return copy;
}

}  // namespace libreyolo::sdk
