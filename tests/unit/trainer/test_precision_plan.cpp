#include "../torch_doctest.hpp"

#include "libreyolo/core/amp/precision_plan.hpp"

using namespace libreyolo::core::amp;

TEST_CASE("AMP policy: float16 with a scaler, bfloat16 without, fallbacks said once") {
  const torch::Device cuda(torch::kCUDA, 0);
  auto fp16 = plan_precision(true, "float16", cuda, true);
  CHECK(fp16.autocast);
  CHECK((fp16.dtype == torch::kFloat16));
  CHECK(fp16.grad_scaler);
  CHECK(fp16.note.empty());

  auto bf16 = plan_precision(true, "bfloat16", cuda, true);
  CHECK((bf16.dtype == torch::kBFloat16));
  CHECK_FALSE(bf16.grad_scaler);

  auto fallback = plan_precision(true, "bfloat16", cuda, false);
  CHECK((fallback.dtype == torch::kFloat16));
  CHECK(fallback.grad_scaler);
  CHECK(fallback.note.find("not supported by this GPU") != std::string::npos);

  auto cpu = plan_precision(true, "float16", torch::kCPU, false);
  CHECK_FALSE(cpu.autocast);
  CHECK(cpu.note.find("no effect on cpu") != std::string::npos);

  auto off = plan_precision(false, "float16", cuda, true);
  CHECK_FALSE(off.autocast);
  CHECK(off.note.empty());
}

TEST_CASE("autocast scope is a no-op when the plan has autocast off") {
  PrecisionPlan plan;
  AutocastScope scope(plan);
  const auto x = torch::ones({2, 2});
  CHECK((torch::mm(x, x).scalar_type() == torch::kFloat32));
}
