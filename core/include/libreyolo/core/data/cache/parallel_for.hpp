#pragma once
// Runs body(i) for i in [0, count) on a few std::threads that pull indices from one counter,
// so a slow image does not hold back a fixed share of the work.

#include <cstddef>
#include <functional>

namespace libreyolo::core::data {

// `threads` <= 0: one per hardware thread. Never more threads than items. If a body throws,
// the remaining items still run and the first exception is rethrown after every thread joined.
void parallel_for(std::size_t count, int threads, const std::function<void(std::size_t)>& body);

// The thread count parallel_for would use.
int resolve_thread_count(int threads, std::size_t count);

}  // namespace libreyolo::core::data
