#include "libreyolo/core/data/cache/parallel_for.hpp"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace libreyolo::core::data {

int resolve_thread_count(int threads, std::size_t count) {
  if (threads <= 0) threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  return static_cast<int>(std::max<std::size_t>(1, std::min<std::size_t>(threads, count)));
}

void parallel_for(std::size_t count, int threads, const std::function<void(std::size_t)>& body) {
  if (count == 0) return;
  const int workers = resolve_thread_count(threads, count);
  std::atomic<std::size_t> next{0};
  std::exception_ptr first_error;
  std::mutex error_mutex;
  auto work = [&] {
    for (std::size_t i = next.fetch_add(1); i < count; i = next.fetch_add(1)) {
      try {
        body(i);
      } catch (...) {
        std::lock_guard<std::mutex> lock(error_mutex);
        if (!first_error) first_error = std::current_exception();
      }
    }
  };
  if (workers == 1) {
    work();
  } else {
    std::vector<std::thread> pool;
    pool.reserve(static_cast<std::size_t>(workers - 1));
    for (int t = 1; t < workers; ++t) pool.emplace_back(work);
    work();  // the calling thread is one of the workers
    for (std::thread& thread : pool) thread.join();
  }
  if (first_error) std::rethrow_exception(first_error);
}

}  // namespace libreyolo::core::data
