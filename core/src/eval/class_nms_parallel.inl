// parallel_for (class_nms.hpp): a fixed pool of std::threads taking indices from one counter.
#include <algorithm>
#include <atomic>
#include <thread>

namespace libreyolo::core::eval::detail {

template <class Work>
void parallel_for(int count, int threads, const Work& work) {
  std::atomic<int> next{0};
  auto run = [&] {
    for (int i = next++; i < count; i = next++) work(i);
  };
  const int helpers = std::max(0, std::min(threads, count) - 1);
  std::vector<std::thread> pool;
  pool.reserve(static_cast<size_t>(helpers));
  for (int t = 0; t < helpers; ++t) pool.emplace_back(run);
  run();
  for (auto& thread : pool) thread.join();
}

}  // namespace libreyolo::core::eval::detail
