// Which SgdRounding reproduces the composed SGD update on a device. On CUDA that is torch's fused
// SGD kernel (through our Sgd, as the trainer calls it): PyTorch's source says its arithmetic
// (float32 scalars in recent versions, double in older ones) but not which of its multiply-adds
// nvcc fused into one rounding, and a one-ulp difference in a momentum buffer is enough to make
// two runs drift apart. On the CPU it is our
// Sgd::step, whose additions with a factor LibTorch may compute with FMA instructions or not,
// as the CPU allows. So the fused optimizer step measures it once, before the first step: the
// composed update and ours in each rounding on the same 65,536 values; the first of ours that
// matches bit for bit wins (FusedOptimizerStep's constructor).
#include <torch/torch.h>

#include "libreyolo/core/optim/sgd.hpp"
#include "optimizer_step_launch.hpp"

namespace libreyolo::core::amp {
namespace {

constexpr std::int64_t kProbeValues = 1 << 16;
constexpr double kProbeLr = 0.01;

struct SgdSettings {
  double weight_decay, momentum;
  bool nesterov;
};

// Spread values without touching the random generator (a run's seed must give the same run
// whether or not this probe ran): parameters, gradients and momentum of typical sizes.
torch::Tensor probe(double frequency, double scale, torch::Device device) {
  const auto x = torch::arange(kProbeValues, torch::TensorOptions().dtype(torch::kFloat64));
  return (torch::sin(x * frequency + 0.5) * scale).to(torch::kFloat32).to(device);
}

// The composed update of `p` and `m` in place, as the trainer's composed path makes it: our Sgd
// over the one tensor, through torch's fused kernel with the lr on the device where the trainer's
// whole step uses it (step_unless_found_inf), else Sgd::step. False when neither can run here.
bool composed_update(torch::Tensor& p, const torch::Tensor& g, torch::Tensor& m, const SgdSettings& o) {
  std::vector<optim::ParamGroup> groups(1);
  groups[0].params.push_back(p.set_requires_grad(true));
  groups[0].weight_decay = o.weight_decay;
  optim::Sgd sgd(std::move(groups), optim::SgdOptions{o.momentum, o.nesterov});
  const bool on_device = p.is_cuda() && sgd.use_device_lr();
  if (p.is_cuda() && !on_device) return false;  // this LibTorch has no fused SGD reading a device lr
  sgd.set_lr(kProbeLr);
  sgd.momentum_buffer(0, 0).copy_(m);
  p.mutable_grad() = g.clone();
  bool stepped = true;
  if (on_device) {
    stepped = sgd.step_unless_found_inf(torch::zeros({}, p.options()));
  } else {
    sgd.step();
  }
  m.copy_(sgd.momentum_buffer(0, 0));
  p.mutable_grad().reset();
  p.set_requires_grad(false);
  return stepped;
}

// Our update of `p` and `m` in place, in `rounding`; "" or what failed.
std::string our_update(torch::Tensor& p, const torch::Tensor& g, torch::Tensor& m, const SgdSettings& o,
                       const torch::Tensor& lr, std::int32_t rounding) {
  const auto f32 = torch::TensorOptions().dtype(torch::kFloat32).device(p.device());
  const auto found_inf = torch::zeros({}, f32), scale = torch::ones({}, f32);
  const auto growth = torch::zeros({}, f32.dtype(torch::kInt32));
  fused::OptimizerSlot slot;
  slot.param = p.data_ptr();
  slot.grad = g.data_ptr();
  slot.momentum = m.data_ptr<float>();
  slot.numel = static_cast<std::int32_t>(p.numel());
  fused::StepScalars s;
  s.found_inf = found_inf.data_ptr<float>();
  s.scale = scale.data_ptr<float>();
  s.growth_tracker = growth.data_ptr<std::int32_t>();
  s.lr[0] = lr.data_ptr<float>();
  s.weight_decay[0] = o.weight_decay;
  s.momentum = o.momentum;
  s.nesterov = o.nesterov ? 1 : 0;
  s.sgd_rounding = rounding;
  if (p.is_cuda()) return launch_optimizer_step_on_cuda({slot}, {slot}, s, p.device().index());
  run_optimizer_step_on_host({slot}, {slot}, s);
  return "";
}

}  // namespace

std::optional<std::int32_t> measure_sgd_rounding(double weight_decay, double momentum, bool nesterov, torch::Device device) {
  torch::NoGradGuard no_grad;
  const SgdSettings settings{weight_decay, momentum, nesterov};
  const auto p = probe(0.37, 0.1, device), g = probe(1.31, 0.02, device), m = probe(2.17, 0.02, device);
  const auto lr = torch::full({}, kProbeLr, torch::TensorOptions().dtype(torch::kFloat32).device(device));
  auto p_composed = p.clone(), m_composed = m.clone();
  if (!composed_update(p_composed, g, m_composed, settings)) return std::nullopt;
  for (std::int32_t rounding = 0; rounding < fused::kSgdRoundings; ++rounding) {
    auto p_ours = p.clone(), m_ours = m.clone();
    if (!our_update(p_ours, g, m_ours, settings, lr, rounding).empty()) return std::nullopt;
    if (torch::equal(p_ours, p_composed) && torch::equal(m_ours, m_composed)) return rounding;
  }
  return std::nullopt;
}

std::string sgd_rounding_name(std::int32_t rounding) {
  if (rounding & fused::kDoubleScalars) return "double scalars";
  const auto way = [rounding](std::int32_t bit) { return (rounding & bit) ? "fused" : "two roundings"; };
  return std::string("float32 scalars; weight decay ") + way(fused::kFusedDecay) + ", momentum " +
         way(fused::kFusedMomentum) + ", Nesterov " + way(fused::kFusedNesterov) + ", step " + way(fused::kFusedStep);
}

}  // namespace libreyolo::core::amp
