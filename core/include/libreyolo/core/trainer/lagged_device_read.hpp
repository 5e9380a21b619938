#pragma once
// Reads a small device tensor's value a while after asking for it, without making the host wait:
// request() starts an asynchronous copy into pinned host memory and records an event; take()
// returns the value once that event has completed, and nothing before. The trainer uses it for
// values it only needs to watch (the streak of skipped optimizer steps), so that watching them
// adds no host synchronisation to any step. A CPU tensor is read at once.

#include <torch/types.h>

#include <memory>
#include <optional>

namespace libreyolo::core::trainer {

class LaggedDeviceRead {
 public:
  LaggedDeviceRead();
  ~LaggedDeviceRead();
  LaggedDeviceRead(LaggedDeviceRead&&) noexcept;
  LaggedDeviceRead& operator=(LaggedDeviceRead&&) noexcept;

  // Starts reading `value` (one element); a request not yet taken is replaced.
  void request(const torch::Tensor& value);
  // The requested value if its copy has finished (never waits); then the request is done.
  std::optional<double> take();

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace libreyolo::core::trainer
