#pragma once
// Counts the operations that make the calling thread wait for a CUDA device (a copy to
// pageable host memory, .item(), nonzero(), a stream or device synchronisation), using torch's
// own sync debug mode: while a counter is counting, every such operation raises a warning that
// the counter swallows and counts instead of printing. `bench step` reports the count per
// training step, the number that says whether the step still waits on the host.
//
// The CPU build (and a CPU device) counts nothing: available() is false.

#include <cstdint>
#include <memory>

namespace libreyolo::core::profiler {

class HostSyncCounter {
 public:
  // device_index < 0: not a CUDA device (the counter stays unavailable).
  explicit HostSyncCounter(int device_index);
  ~HostSyncCounter();
  HostSyncCounter(const HostSyncCounter&) = delete;
  HostSyncCounter& operator=(const HostSyncCounter&) = delete;

  bool available() const;
  // Counting on the calling thread between resume() and pause() (the benchmark's own
  // synchronisations between steps stay out of the count).
  void resume();
  void pause();
  std::int64_t count() const;

  struct State;

 private:
  std::unique_ptr<State> state_;
};

}  // namespace libreyolo::core::profiler
