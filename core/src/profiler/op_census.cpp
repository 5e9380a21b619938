#include "libreyolo/core/profiler/op_census.hpp"

#include <ATen/record_function.h>

#include <algorithm>
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
  std::array<std::map<std::string, std::int64_t>, kStepPhaseCount + 1> names;
};
Counts counts;
thread_local int depth = 0;  // operators in progress on this thread

std::unique_ptr<at::ObserverContext> on_start(const at::RecordFunction& fn) {
  const auto phase = static_cast<std::size_t>(counts.phase.load(std::memory_order_relaxed));
  if (depth++ == 0) {
    counts.outermost[phase].fetch_add(1, std::memory_order_relaxed);
    const std::lock_guard<std::mutex> lock(counts.names_mutex);
    ++counts.names[phase][fn.name()];
  }
  counts.all[phase].fetch_add(1, std::memory_order_relaxed);
  return nullptr;
}

void on_end(const at::RecordFunction&, at::ObserverContext*) {
  if (depth > 0) --depth;
}

}  // namespace

OpCensus::OpCensus() {
  if (counts.open.exchange(true)) throw std::logic_error("an op census is already open");
  for (auto& c : counts.outermost) c = 0;
  for (auto& c : counts.all) c = 0;
  for (auto& n : counts.names) n.clear();
  counts.phase = kStepPhaseCount;
  handle_ = at::addGlobalCallback(
      at::RecordFunctionCallback(on_start, on_end).scopes({at::RecordScope::FUNCTION, at::RecordScope::BACKWARD_FUNCTION}));
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

std::vector<std::pair<std::string, std::int64_t>> OpCensus::top(StepPhase phase, std::size_t most) const {
  const std::lock_guard<std::mutex> lock(counts.names_mutex);
  const auto& names = counts.names[static_cast<std::size_t>(phase)];
  std::vector<std::pair<std::string, std::int64_t>> sorted(names.begin(), names.end());
  std::stable_sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
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
