#include "libreyolo/core/profiler/host_sync_counter.hpp"

#include <c10/cuda/CUDAFunctions.h>
#include <c10/util/Exception.h>

#include <string>

namespace libreyolo::core::profiler {
namespace {

// Swallows and counts torch's "called a synchronizing CUDA operation" warnings; hands every
// other warning to the handler that was there before.
class CountingHandler : public c10::WarningHandler {
 public:
  explicit CountingHandler(c10::WarningHandler* previous) : previous_(previous) {}
  void process(const c10::Warning& warning) override {
    if (warning.msg().find("synchronizing CUDA operation") != std::string::npos) {
      ++count;
      return;
    }
    if (previous_ != nullptr) previous_->process(warning);
  }
  std::int64_t count = 0;

 private:
  c10::WarningHandler* previous_;
};

}  // namespace

struct HostSyncCounter::State {
  bool available = false;
  bool counting = false;
  c10::cuda::SyncDebugMode previous_mode = c10::cuda::SyncDebugMode::L_DISABLED;
  c10::WarningHandler* previous_handler = nullptr;
  std::unique_ptr<CountingHandler> handler;
};

HostSyncCounter::HostSyncCounter(int device_index) : state_(std::make_unique<State>()) {
  state_->available = device_index >= 0;
}

HostSyncCounter::~HostSyncCounter() { pause(); }

bool HostSyncCounter::available() const { return state_->available; }

void HostSyncCounter::resume() {
  if (!state_->available || state_->counting) return;
  state_->previous_handler = c10::WarningUtils::get_warning_handler();
  if (!state_->handler) state_->handler = std::make_unique<CountingHandler>(state_->previous_handler);
  c10::WarningUtils::set_warning_handler(state_->handler.get());
  state_->previous_mode = c10::cuda::warning_state().get_sync_debug_mode();
  c10::cuda::warning_state().set_sync_debug_mode(c10::cuda::SyncDebugMode::L_WARN);
  state_->counting = true;
}

void HostSyncCounter::pause() {
  if (!state_->counting) return;
  c10::cuda::warning_state().set_sync_debug_mode(state_->previous_mode);
  c10::WarningUtils::set_warning_handler(state_->previous_handler);
  state_->counting = false;
}

std::int64_t HostSyncCounter::count() const { return state_->handler ? state_->handler->count : 0; }

}  // namespace libreyolo::core::profiler
