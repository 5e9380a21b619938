#include "libreyolo/core/trainer/lagged_device_read.hpp"

#include <c10/core/Event.h>
#include <c10/core/impl/DeviceGuardImplInterface.h>
#include <torch/torch.h>

namespace libreyolo::core::trainer {

struct LaggedDeviceRead::State {
  torch::Tensor host;                // pinned when the value lives on a GPU
  std::optional<c10::Event> copied;  // recorded after the copy on the value's stream
  bool pending = false;
};

LaggedDeviceRead::LaggedDeviceRead() : state_(std::make_unique<State>()) {}
LaggedDeviceRead::~LaggedDeviceRead() = default;
LaggedDeviceRead::LaggedDeviceRead(LaggedDeviceRead&&) noexcept = default;
LaggedDeviceRead& LaggedDeviceRead::operator=(LaggedDeviceRead&&) noexcept = default;

void LaggedDeviceRead::request(const torch::Tensor& value) {
  TORCH_CHECK(value.numel() == 1, "LaggedDeviceRead: one element expected, got ", value.sizes());
  auto& s = *state_;
  if (value.device().is_cpu()) {
    s.host = value.detach().clone();
    s.copied.reset();
    s.pending = true;
    return;
  }
  if (!s.host.defined() || s.host.scalar_type() != value.scalar_type()) {
    s.host = torch::empty({1}, value.options().device(torch::kCPU).pinned_memory(true));
  }
  s.host.copy_(value.detach().reshape({1}), /*non_blocking=*/true);
  const auto* guard = c10::impl::getDeviceGuardImpl(value.device().type());
  if (!s.copied || s.copied->device_type() != value.device().type()) s.copied.emplace(value.device().type());
  s.copied->record(guard->getStream(value.device()));
  s.pending = true;
}

std::optional<double> LaggedDeviceRead::take() {
  auto& s = *state_;
  if (!s.pending || (s.copied && !s.copied->query())) return std::nullopt;
  s.pending = false;
  return s.host.reshape({-1})[0].item<double>();
}

}  // namespace libreyolo::core::trainer
