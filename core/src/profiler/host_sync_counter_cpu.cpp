// The CPU-only build's counter: there is no device to wait for. The CUDA build uses
// host_sync_counter_cuda.cpp instead.
#include "libreyolo/core/profiler/host_sync_counter.hpp"

namespace libreyolo::core::profiler {

struct HostSyncCounter::State {};

HostSyncCounter::HostSyncCounter(int) {}
HostSyncCounter::~HostSyncCounter() = default;
bool HostSyncCounter::available() const { return false; }
void HostSyncCounter::resume() {}
void HostSyncCounter::pause() {}
std::int64_t HostSyncCounter::count() const { return 0; }

}  // namespace libreyolo::core::profiler
