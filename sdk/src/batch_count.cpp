#include "libreyolo/sdk/batch_count.hpp"

#include <ATen/ATen.h>

#include <exception>
#include <unordered_set>

#include "libreyolo/sdk/log.hpp"

namespace libreyolo::sdk {
namespace {

thread_local BatchCountDeferral* current = nullptr;

}  // namespace

BatchCountDeferral::BatchCountDeferral() : enclosing_(current) { current = this; }

BatchCountDeferral::~BatchCountDeferral() {
  current = enclosing_;
  try {
    flush();
  } catch (const std::exception& e) {  // a destructor must not throw; the counters are bookkeeping only
    log::warn("BatchNorm step counters were not advanced: ", e.what());
  }
}

// A layer run twice in one forward hands its counter over twice; one multi-tensor kernel with a
// tensor listed twice would race on it, so each repeat goes into a later round.
void BatchCountDeferral::flush() {
  std::vector<at::Tensor> round;
  round.swap(pending_);  // emptied first: a failed add is not repeated by the destructor
  at::NoGradGuard no_grad;
  while (!round.empty()) {
    std::vector<at::Tensor> unique, repeats;
    std::unordered_set<const void*> seen;
    for (auto& counter : round)
      (seen.insert(counter.unsafeGetTensorImpl()).second ? unique : repeats).push_back(std::move(counter));
    at::_foreach_add_(unique, 1);
    round.swap(repeats);
  }
}

void count_batch(const at::Tensor& counter) {
  if (current) {
    current->pending_.push_back(counter);
  } else {
    at::NoGradGuard no_grad;
    counter.add_(1);
  }
}

bool batch_counts_deferred() { return current != nullptr; }

}  // namespace libreyolo::sdk
