#include "libreyolo/core/profiler/op_census.hpp"

#include <ATen/record_function.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <mutex>
#include <stdexcept>

namespace libreyolo::core::profiler {
namespace {

// The callbacks are plain function pointers, so what they count lives here. A phase's slot
// kStepPhaseCount collects what runs outside any step (between step_ends and step_begins).
struct Counts {
  std::array<std::atomic<std::int64_t>, kStepPhaseCount + 1> outermost{}, all{};
  std::atomic<int> phase{kStepPhaseCount};
  std::atomic<bool> open{false};
  std::mutex names_mutex;  // the callbacks run on autograd's threads too
  std::array<std::map<std::string, OpTally>, kStepPhaseCount + 1> names;
};
Counts counts;

using Clock = std::chrono::steady_clock;

// This thread's outermost operator in progress: where and when it began.
struct Outermost {
  int depth = 0;  // operators in progress on this thread
  std::size_t phase = 0;
  Clock::time_point start;
};
thread_local Outermost current;

std::unique_ptr<at::ObserverContext> on_start(const at::RecordFunction& fn) {
  const auto phase = static_cast<std::size_t>(counts.phase.load(std::memory_order_relaxed));
  if (current.depth++ == 0) {
    counts.outermost[phase].fetch_add(1, std::memory_order_relaxed);
    {
      const std::lock_guard<std::mutex> lock(counts.names_mutex);
      auto& tally = counts.names[phase][fn.name()];
      if (tally.name.empty()) tally.name = fn.name();
      ++tally.calls;
    }
    current.phase = phase;
    current.start = Clock::now();  // last: the bookkeeping above is not the operator's time
  }
  counts.all[phase].fetch_add(1, std::memory_order_relaxed);
  return nullptr;
}

void on_end(const at::RecordFunction& fn) {
  if (current.depth == 0 || --current.depth > 0) return;
  const double ms = std::chrono::duration<double, std::milli>(Clock::now() - current.start).count();
  const std::lock_guard<std::mutex> lock(counts.names_mutex);
  counts.names[current.phase][fn.name()].host_ms += ms;
}

void on_end_callback(const at::RecordFunction& fn, at::ObserverContext*) { on_end(fn); }

}  // namespace

OpCensus::OpCensus() {
  if (counts.open.exchange(true)) throw std::logic_error("an op census is already open");
  for (auto& c : counts.outermost) c = 0;
  for (auto& c : counts.all) c = 0;
  for (auto& n : counts.names) n.clear();
  counts.phase = kStepPhaseCount;
  handle_ = at::addGlobalCallback(
      at::RecordFunctionCallback(on_start, on_end_callback).scopes({at::RecordScope::FUNCTION, at::RecordScope::BACKWARD_FUNCTION}));
}

OpCensus::~OpCensus() {
  at::removeCallback(handle_);
  counts.open = false;
}

void OpCensus::step_begins() {
  ++steps_;
  counts.phase = static_cast<int>(StepPhase::data_wait);
}

void OpCensus::phase_begins(StepPhase phase) { counts.phase = static_cast<int>(phase); }

void OpCensus::step_ends() { counts.phase = kStepPhaseCount; }

OpCount OpCensus::count(StepPhase phase) const {
  const auto i = static_cast<std::size_t>(phase);
  return {counts.outermost[i].load(), counts.all[i].load()};
}

std::vector<OpTally> OpCensus::top(StepPhase phase, std::size_t most, OpOrder order) const {
  const std::lock_guard<std::mutex> lock(counts.names_mutex);
  const auto& names = counts.names[static_cast<std::size_t>(phase)];
  std::vector<OpTally> sorted;
  for (const auto& entry : names) sorted.push_back(entry.second);
  const auto first = [order](const OpTally& a, const OpTally& b) {
    return order == OpOrder::calls ? a.calls > b.calls : a.host_ms > b.host_ms;
  };
  std::stable_sort(sorted.begin(), sorted.end(), first);
  if (sorted.size() > most) sorted.resize(most);
  return sorted;
}

OpCount OpCensus::total() const {
  OpCount sum;
  for (int i = 0; i < kStepPhaseCount; ++i) {
    sum.outermost += counts.outermost[static_cast<std::size_t>(i)].load();
    sum.all += counts.all[static_cast<std::size_t>(i)].load();
  }
  return sum;
}

}  // namespace libreyolo::core::profiler
