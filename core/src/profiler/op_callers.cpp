#include "libreyolo/core/profiler/op_callers.hpp"

#include <ATen/record_function.h>

#include <algorithm>
#include <atomic>
#include <map>
#include <mutex>
#include <sstream>
#include <stdexcept>

namespace libreyolo::core::profiler {
namespace {

// The callbacks are plain function pointers, so what they record lives here.
struct Recording {
  std::string op;
  int depth = 4;
  std::atomic<bool> open{false};
  mutable std::mutex mutex;  // the callbacks run on autograd's threads too
  std::map<std::string, std::int64_t> calls;
};
Recording recording;

thread_local std::vector<std::string> enclosing;  // this thread's operators in progress, outermost first

// The first two tensor inputs' sizes and strides (copy_'s destination, then its source).
std::string shapes_of(const at::RecordFunction& fn) {
  std::ostringstream text;
  int shown = 0;
  for (const auto& input : fn.inputs()) {
    if (shown == 2 || !input.isTensor()) continue;
    const auto& t = input.toTensor();
    if (!t.defined()) continue;
    text << (shown++ == 0 ? " " : "; ") << t.sizes() << " strides " << t.strides();
  }
  return text.str();
}

std::string chain_to(const std::string& name) {
  const auto begin = enclosing.size() > static_cast<std::size_t>(recording.depth)
                         ? enclosing.end() - recording.depth
                         : enclosing.begin();
  std::string chain;
  for (auto it = begin; it != enclosing.end(); ++it) chain += *it + " > ";
  return chain + name;
}

std::unique_ptr<at::ObserverContext> on_start(const at::RecordFunction& fn) {
  std::string name = fn.name();
  static const std::string engine = "autograd::engine::evaluate_function: ";  // the backward node's name follows
  if (name.compare(0, engine.size(), engine) == 0) name = name.substr(engine.size());
  if (name == recording.op) {
    const auto key = chain_to(name) + shapes_of(fn);
    const std::lock_guard<std::mutex> lock(recording.mutex);
    ++recording.calls[key];
  }
  enclosing.push_back(std::move(name));
  return nullptr;
}

void on_end(const at::RecordFunction&, at::ObserverContext*) {
  if (!enclosing.empty()) enclosing.pop_back();
}

}  // namespace

OpCallers::OpCallers(std::string op, int depth) {
  if (recording.open.exchange(true)) throw std::logic_error("an op-callers recording is already open");
  recording.op = std::move(op);
  recording.depth = std::max(depth, 0);
  recording.calls.clear();
  handle_ = at::addGlobalCallback(at::RecordFunctionCallback(on_start, on_end)
                                      .needsInputs(true)
                                      .scopes({at::RecordScope::FUNCTION, at::RecordScope::BACKWARD_FUNCTION}));
}

OpCallers::~OpCallers() {
  at::removeCallback(handle_);
  recording.open = false;
}

std::vector<CallerTally> OpCallers::top(std::size_t most) const {
  std::vector<CallerTally> sorted;
  {
    const std::lock_guard<std::mutex> lock(recording.mutex);
    for (const auto& [chain, calls] : recording.calls) sorted.push_back({chain, calls});
  }
  const auto more_calls = [](const CallerTally& a, const CallerTally& b) { return a.calls > b.calls; };
  std::stable_sort(sorted.begin(), sorted.end(), more_calls);
  if (sorted.size() > most) sorted.resize(most);
  return sorted;
}

}  // namespace libreyolo::core::profiler
