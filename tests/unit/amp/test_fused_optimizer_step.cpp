// FusedOptimizerStep (fused_kernels=optimizer_step): the end of a float16 step (unscale and inf
// check, SGD, skip streak, scale update, weight copies, EMA) in three passes, against the
// composed path the trainer takes without it. Twins of one model get the same gradients; after
// each of four steps (two clean ones that grow the scale, one with an inf that skips the update
// and backs the scale off, one more) every parameter, momentum buffer, copy, average and scaler
// value is compared bit for bit. On the GPU the composed path is PyTorch's kernels; on the CPU our
// Sgd::step and the EMA's device-decay arithmetic written out. Either way the fused step first
// measures which of its SGD roundings gives the composed update (optimizer_step_calibration.cpp).
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "../torch_doctest.hpp"
#include "../../../core/src/amp/cuda/optimizer_step_device.cuh"  // the kernels' per-item code, for the host
#include "libreyolo/core/amp/fused_optimizer_step.hpp"
#include "libreyolo/core/amp/grad_scaler.hpp"
#include "libreyolo/core/amp/weight_copies.hpp"
#include "libreyolo/core/optim/adamw.hpp"
#include "libreyolo/core/optim/model_ema.hpp"
#include "libreyolo/core/optim/sgd.hpp"

namespace amp = libreyolo::core::amp;
namespace optim = libreyolo::core::optim;
namespace fused = libreyolo::core::amp::fused;
namespace nn = torch::nn;

namespace {

// Enough small layers that the slots fill several launches (host batches of 64, device ones of
// 480), and one large convolution whose slot spans many blocks.
struct ManyLayers : nn::Module {
  std::vector<nn::Conv2d> convs;
  std::vector<nn::BatchNorm2d> norms;
  nn::Conv2d wide{nullptr}, head{nullptr};
  explicit ManyLayers(int layers) {
    for (int i = 0; i < layers; ++i) {
      convs.push_back(register_module("conv" + std::to_string(i), nn::Conv2d(nn::Conv2dOptions(4, 4, 3).bias(false))));
      norms.push_back(register_module("norm" + std::to_string(i), nn::BatchNorm2d(4)));
    }
    wide = register_module("wide", nn::Conv2d(nn::Conv2dOptions(64, 96, 3).bias(false)));  // 55,296 values
    head = register_module("head", nn::Conv2d(nn::Conv2dOptions(96, 7, 1)));               // a bias
  }
};

// The trainer's three groups: BatchNorm weights, other weights (decayed), biases.
std::vector<optim::ParamGroup> groups_of(ManyLayers& model) {
  std::vector<optim::ParamGroup> groups(3);
  groups[1].weight_decay = 5e-4;
  for (const auto& item : model.named_parameters()) {
    const auto& name = item.key();
    const bool bias = name.size() >= 4 && name.compare(name.size() - 4, 4, "bias") == 0;
    const bool norm = name.rfind("norm", 0) == 0;
    groups[bias ? 2 : norm ? 0 : 1].params.push_back(item.value());
  }
  return groups;
}

struct Twin {
  std::shared_ptr<ManyLayers> model;
  std::unique_ptr<optim::Sgd> sgd;
  std::unique_ptr<amp::GradScaler> scaler;
  std::unique_ptr<amp::WeightCopies> copies;
  std::unique_ptr<optim::ModelEma> ema;
  torch::Tensor skip_streak;
};

// with_copies false: an eager step's parts (no float16 weight copies: every gradient a float32 .grad).
Twin make_twin(torch::Device device, bool fused_twin, bool with_copies = true) {
  torch::manual_seed(11);
  Twin t;
  t.model = std::make_shared<ManyLayers>(300);
  t.model->to(device);
  {
    torch::NoGradGuard no_grad;  // running statistics away from 0 and 1, so the EMA moves them
    for (auto& norm : t.model->norms) norm->running_mean.uniform_(-1, 1), norm->running_var.uniform_(0.5, 2);
    if (device.is_cuda()) {  // the trainer's layout on the GPU
      for (auto& conv : t.model->convs) conv->weight.set_data(conv->weight.contiguous(torch::MemoryFormat::ChannelsLast));
      t.model->wide->weight.set_data(t.model->wide->weight.contiguous(torch::MemoryFormat::ChannelsLast));
    }
  }
  t.sgd = std::make_unique<optim::Sgd>(groups_of(*t.model), optim::SgdOptions{0.937, true});
  amp::GradScalerOptions scaler;
  scaler.init_scale = 1024;
  scaler.growth_interval = 2;
  t.scaler = std::make_unique<amp::GradScaler>(device, scaler);
  if (with_copies) {
    t.copies = std::make_unique<amp::WeightCopies>(*t.model, torch::kHalf);
    t.copies->refresh();
  }
  t.ema = std::make_unique<optim::ModelEma>(*t.model, optim::ModelEmaOptions{0.9, 2.0, {}});
  if (device.is_cuda()) {
    REQUIRE(t.sgd->use_device_lr());
    REQUIRE(t.ema->use_device_decay());
  } else if (fused_twin) {
    optim::detail::make_device_lr(t.sgd->groups());
    t.ema->hold_decay_in_tensors();
  }
  t.sgd->set_lr(0.01);
  t.skip_streak = torch::zeros({}, torch::TensorOptions().dtype(torch::kFloat32).device(device));
  return t;
}

// The same scaled gradients for both twins: float16 in the copies, float32 in the others.
struct Gradients {
  std::vector<torch::Tensor> copies, others;
};

// Without copies: a float32 gradient for every parameter, in its layout.
Gradients make_gradients_without_copies(const Twin& t, float scale, bool with_inf) {
  Gradients g;
  for (const auto& p : t.sgd->parameters()) g.others.push_back(torch::randn_like(p) * scale);
  if (with_inf) g.others[5].index_put_({0}, std::numeric_limits<float>::infinity());
  return g;
}

Gradients make_gradients(const Twin& t, float scale, bool with_inf) {
  if (!t.copies) return make_gradients_without_copies(t, scale, with_inf);
  Gradients g;
  for (const auto& copy : t.copies->copies()) {
    auto grad = (torch::randn_like(copy, torch::kFloat32) * scale).to(torch::kHalf);
    // The 1x1 head's gradient with channels-last strides ([C, 1, C, C]) where its weight says
    // [C, 1, 1, 1], as cuDNN may hand it back: the same memory order, so still fused.
    if (copy.dim() == 4 && copy.size(2) == 1 && copy.size(3) == 1) grad = grad.contiguous(torch::MemoryFormat::ChannelsLast);
    g.copies.push_back(grad);
  }
  for (const auto& p : t.sgd->parameters()) {
    if (p.scalar_type() == torch::kFloat32 && p.dim() == 1 && p.size(0) == 4) g.others.push_back(torch::randn_like(p) * scale);
  }
  if (with_inf) g.copies[5].index_put_({0, 1, 2, 0}, std::numeric_limits<float>::infinity());
  return g;
}

// Hands the gradients over as a backward through the copies would leave them; the last
// BatchNorm bias gets none (a parameter the loss did not reach: not updated, no momentum).
void give(Twin& t, const Gradients& g) {
  t.sgd->zero_grad(/*set_to_none=*/true);  // as the trainer clears them after every step
  if (!t.copies) {  // every parameter but the last gets its gradient
    const auto params = t.sgd->parameters();
    for (std::size_t i = 0; i + 1 < params.size(); ++i) {
      auto p = params[i];
      p.mutable_grad() = g.others[i].clone(torch::MemoryFormat::Preserve);
    }
    return;
  }
  for (std::size_t i = 0; i < g.copies.size(); ++i) {
    auto copy = t.copies->copies()[i];
    copy.mutable_grad() = g.copies[i].clone(torch::MemoryFormat::Preserve);
  }
  std::size_t next = 0;
  for (auto p : t.sgd->parameters()) {
    if (p.dim() == 1 && p.size(0) == 4 && next + 1 < g.others.size()) p.mutable_grad() = g.others[next++].clone();
  }
}

// ModelEma::apply's device-decay arithmetic (what a whole step runs), written out for the CPU,
// whose LibTorch 1.13 lacks the multi-tensor multiply by a tensor: ema * d, p * (1 - d), their sum,
// each rounded to float32; integer buffers copied.
void device_decay_ema(optim::ModelEma& ema, const nn::Module& model) {
  const double d = ema.decay_at(ema.updates());
  const auto decay = torch::tensor(static_cast<float>(d)), keep = torch::tensor(static_cast<float>(1.0 - d));
  const auto averages = ema.averages(model);
  torch::NoGradGuard no_grad;
  for (std::size_t i = 0; i < averages.ema_float.size(); ++i) {
    auto average = averages.ema_float[i];
    average.mul_(decay).add_(averages.model_float[i] * keep);
  }
  for (std::size_t i = 0; i < averages.ema_int.size(); ++i) {
    auto average = averages.ema_int[i];
    average.copy_(averages.model_int[i]);
  }
}

// finish_window_on_device's sequence (on the CPU the scaler reads found_inf on the host).
void composed_end(Twin& t) {
  if (t.copies) t.copies->pass_gradients();
  if (t.skip_streak.is_cuda()) {
    REQUIRE(t.scaler->step_on_device(*t.sgd));
  } else {
    t.scaler->step(*t.sgd);
  }
  t.skip_streak.add_(1).mul_(t.scaler->found_inf());
  t.scaler->update();
  if (t.copies) t.copies->refresh();
  t.ema->advance();
  if (t.skip_streak.is_cuda()) {
    t.ema->apply(*t.model);
  } else {
    device_decay_ema(*t.ema, *t.model);
  }
}

void fused_end(Twin& t, amp::FusedOptimizerStep& step) {
  t.ema->advance();
  std::string why;
  REQUIRE_MESSAGE(step.run(t.skip_streak, why), why);
}

// How `actual` differs from `expected`: how many elements, the largest difference and where.
std::string difference_of(const torch::Tensor& expected, const torch::Tensor& actual) {
  const auto e = expected.to(torch::kFloat64).reshape(-1).cpu(), a = actual.to(torch::kFloat64).reshape(-1).cpu();
  const auto difference = (e - a).abs();
  const auto worst = difference.argmax().item<int64_t>();
  std::ostringstream out;
  out.precision(10);
  out << difference.ne(0).sum().item<int64_t>() << " of " << e.numel() << " elements differ; the largest difference "
      << difference[worst].item<double>() << " (expected " << e[worst].item<double>() << ", got " << a[worst].item<double>()
      << ")";
  return out.str();
}

void check_equal(const torch::Tensor& expected, const torch::Tensor& actual, const std::string& what) {
  INFO(what);
  INFO(difference_of(expected, actual));
  REQUIRE(expected.sizes() == actual.sizes());
  CHECK(torch::equal(expected, actual));
}

void check_twins(const Twin& composed, const Twin& fused_twin) {
  const auto a = composed.sgd->parameters(), b = fused_twin.sgd->parameters();
  for (std::size_t i = 0; i < a.size(); ++i) check_equal(a[i], b[i], "parameter " + std::to_string(i));
  const auto ma = composed.sgd->state(), mb = fused_twin.sgd->state();
  REQUIRE(ma.size() == mb.size());
  for (std::size_t i = 0; i < ma.size(); ++i) check_equal(ma[i].second, mb[i].second, ma[i].first);
  const auto& ea = composed.ema->state();
  const auto& eb = fused_twin.ema->state();
  for (std::size_t i = 0; i < ea.size(); ++i) check_equal(ea[i].second, eb[i].second, "EMA " + ea[i].first);
  for (std::size_t i = 0; fused_twin.copies && i < fused_twin.copies->copies().size(); ++i) {
    // The copies are the parameters rounded, and the same as the composed path's.
    check_equal(fused_twin.copies->masters()[i].to(torch::kHalf), fused_twin.copies->copies()[i], "copy");
    check_equal(composed.copies->copies()[i], fused_twin.copies->copies()[i], "copy");
  }
  CHECK(composed.scaler->current_scale() == fused_twin.scaler->current_scale());
  CHECK(composed.scaler->state().growth_tracker == fused_twin.scaler->state().growth_tracker);
  CHECK(fused_twin.scaler->found_inf().item<float>() == 0.f);
  CHECK(composed.skip_streak.item<float>() == fused_twin.skip_streak.item<float>());
}

void compare_steps(torch::Device device, bool with_copies = true) {
  Twin composed = make_twin(device, false, with_copies), fused_twin = make_twin(device, true, with_copies);
  const amp::OptimizerStepParts parts{fused_twin.sgd.get(), fused_twin.scaler.get(), fused_twin.copies.get(),
                                      fused_twin.ema.get(), fused_twin.model.get()};
  REQUIRE(amp::FusedOptimizerStep::refusal(parts) == "");
  amp::FusedOptimizerStep step(parts);
  const bool inf_steps[] = {false, false, true, false};
  torch::manual_seed(5);
  int step_number = 0;
  for (const bool with_inf : inf_steps) {
    INFO("step " << ++step_number);
    const auto gradients = make_gradients(composed, static_cast<float>(composed.scaler->current_scale()) / 64, with_inf);
    give(composed, gradients);
    give(fused_twin, gradients);
    composed_end(composed);
    fused_end(fused_twin, step);
    check_twins(composed, fused_twin);
  }
  CHECK(composed.scaler->current_scale() == 1024.0);  // grown to 2048, backed off by the inf step
  CHECK(composed.skip_streak.item<float>() == 0.f);
}

std::uint32_t bits_of(float x) {
  std::uint32_t b;
  std::memcpy(&b, &x, sizeof b);
  return b;
}

}  // namespace

TEST_CASE("the fused optimizer step's float16 conversions are PyTorch's") {
  // Every float16 value to float32.
  auto all = torch::arange(0, 65536, torch::kInt32).to(torch::kInt16).view(torch::kHalf).to(torch::kFloat32);
  for (int h = 0; h < 65536; ++h) {
    const float expected = all[h].item<float>(), actual = fused::half_to_float(static_cast<std::uint16_t>(h));
    if (expected != expected) {
      CHECK(actual != actual);
    } else if (bits_of(expected) != bits_of(actual)) {
      FAIL_CHECK("float16 bits " << h << ": " << actual << " instead of " << expected);
    }
  }
  // float32 to float16: every exponent from float32's subnormals to past float16's range, with
  // mantissas at and around the ties, and the edges.
  torch::manual_seed(2);
  auto values = torch::cat({torch::randn({20000}) * torch::pow(2.0, torch::randint(-30, 18, {20000}).to(torch::kFloat32)),
                            torch::tensor({0.f, -0.f, 65504.f, 65519.f, 65520.f, 1e30f, 5.9604645e-8f, 2.9802322e-8f,
                                           2.9802326e-8f, 4.4703484e-8f, 6.1035156e-5f, 6.1035152e-5f, 1e-45f,
                                           std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity(),
                                           std::numeric_limits<float>::quiet_NaN()})});
  const auto rounded = values.to(torch::kHalf).view(torch::kInt16).to(torch::kInt32);
  int mismatches = 0;
  for (int64_t i = 0; i < values.numel(); ++i) {
    const float x = values[i].item<float>();
    const auto expected = static_cast<std::uint16_t>(rounded[i].item<int>() & 0xffff);
    const auto actual = fused::float_to_half(x);
    const bool both_nan = (expected & 0x7c00) == 0x7c00 && (expected & 0x3ff) && (actual & 0x7c00) == 0x7c00 && (actual & 0x3ff);
    if (expected != actual && !both_nan && mismatches++ < 5) FAIL_CHECK(x << " rounds to " << actual << ", PyTorch " << expected);
  }
  CHECK(mismatches == 0);
}

TEST_CASE("the fused optimizer step's SGD is torch's fused SGD formula") {
  // One element by hand, in every rounding: decay 0.1, momentum 0.5, Nesterov, lr 0.25.
  for (std::int32_t rounding = 0; rounding < fused::kSgdRoundings; ++rounding) {
    INFO("rounding " << rounding);
    float p = 2.f, m = 1.f;
    fused::sgd_element(p, 0.5f, m, 0.1, 0.5, true, 0.25, rounding);
    // g = 0.5 + 0.2 = 0.7; buf = 0.5 * 1 + 0.7 = 1.2; g = 0.7 + 0.6 = 1.3; p = 2 - 0.325
    CHECK(m == doctest::Approx(1.2f).epsilon(1e-7));
    CHECK(p == doctest::Approx(1.675f).epsilon(1e-7));
    float q = 2.f, n = 1.f;
    fused::sgd_element(q, 0.5f, n, 0.0, 0.5, false, 0.25, rounding);  // plain momentum: g = buf = 1.0
    CHECK(n == 1.f);
    CHECK(q == 1.75f);
  }
  // The roundings differ where they should: p - lr * g with p the rounded product leaves 0 after
  // two roundings and the product's rounding error after one.
  const float g = 1.f + 0x1p-23f, lr = static_cast<float>(1.0 / 3.0);
  const float rounded_product = lr * g;
  float fused_p = rounded_product, fused_m = 0.f, split_p = rounded_product, split_m = 0.f;
  fused::sgd_element(fused_p, g, fused_m, 0.0, 0.5, false, 1.0 / 3.0, fused::kFusedStep);
  fused::sgd_element(split_p, g, split_m, 0.0, 0.5, false, 1.0 / 3.0, 0);
  CHECK(fused_m == split_m);
  CHECK(split_p == 0.f);
  CHECK(fused_p != 0.f);
}

TEST_CASE("the fused optimizer step says why it cannot run") {
  Twin t = make_twin(torch::kCPU, false);
  amp::OptimizerStepParts parts{t.sgd.get(), t.scaler.get(), t.copies.get(), nullptr, t.model.get()};
  CHECK(amp::FusedOptimizerStep::refusal(parts) == "the optimizer reads its learning rate from the host");
  optim::detail::make_device_lr(t.sgd->groups());
  CHECK(amp::FusedOptimizerStep::refusal(parts) == "");
  parts.ema = t.ema.get();
  CHECK(amp::FusedOptimizerStep::refusal(parts) == "the EMA's decay is not held on the device");
  amp::GradScalerOptions off;
  off.enabled = false;
  amp::GradScaler disabled(torch::kCPU, off);
  parts.ema = nullptr;
  parts.scaler = &disabled;
  CHECK(amp::FusedOptimizerStep::refusal(parts) == "there is no float16 gradient scaler");
  optim::AdamW adamw(groups_of(*t.model));
  parts.scaler = t.scaler.get();
  parts.optimizer = &adamw;
  CHECK(amp::FusedOptimizerStep::refusal(parts) == "the optimizer is not SGD (only SGD's update is fused)");
}

TEST_CASE("the fused optimizer step leaves a step it cannot take untouched") {
  Twin t = make_twin(torch::kCPU, true);
  const amp::OptimizerStepParts parts{t.sgd.get(), t.scaler.get(), t.copies.get(), t.ema.get(), t.model.get()};
  amp::FusedOptimizerStep step(parts);
  give(t, make_gradients(t, 1.f, false));
  auto master = t.copies->masters().front();
  master.mutable_grad() = torch::ones_like(master);  // a gradient in both the weight and its copy
  const auto before = master.clone();
  std::string why;
  CHECK_FALSE(step.run(t.skip_streak, why));
  CHECK(why == "a weight has gradients both in its float32 tensor and in its float16 copy");
  CHECK(torch::equal(before, master));
}

TEST_CASE("the fused optimizer step on the CPU equals the composed one bit for bit") {
  compare_steps(torch::kCPU);
}

TEST_CASE("the fused optimizer step on the GPU equals PyTorch's kernels bit for bit") {
  if (!torch::cuda::is_available()) return;  // CPU machines: the CPU case above
  compare_steps(torch::Device(torch::kCUDA));
}

// An eager step's parts (train_step's eager path): no weight copies, float32 gradients.
TEST_CASE("the fused optimizer step without weight copies equals the composed one bit for bit (CPU)") {
  compare_steps(torch::kCPU, /*with_copies=*/false);
}

TEST_CASE("the fused optimizer step without weight copies equals PyTorch's kernels bit for bit (GPU)") {
  if (!torch::cuda::is_available()) return;  // CPU machines: the CPU case above
  compare_steps(torch::Device(torch::kCUDA), /*with_copies=*/false);
}
