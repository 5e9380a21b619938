#include "libreyolo/core/profiler/flop_count.hpp"

#include <torch/csrc/autograd/profiler_kineto.h>

#include <set>

namespace libreyolo::core::profiler {

std::optional<double> count_flops(const std::function<void()>& call) {
  namespace impl = torch::profiler::impl;
  if (torch::profiler::impl::profilerEnabled()) return std::nullopt;  // a profiling session that is not ours to stop
  const impl::ProfilerConfig config(impl::ProfilerState::KINETO, /*report_input_shapes=*/true,
                                    /*profile_memory=*/false, /*with_stack=*/false, /*with_flops=*/true);
  const std::set<impl::ActivityType> activities{impl::ActivityType::CPU};  // operators, not kernels
  try {
    torch::autograd::profiler::prepareProfiler(config, activities);
    torch::autograd::profiler::enableProfiler(config, activities);
  } catch (const std::exception&) {
    return std::nullopt;
  }
  try {
    call();
  } catch (...) {
    torch::autograd::profiler::disableProfiler();
    throw;
  }
  const auto result = torch::autograd::profiler::disableProfiler();
  double flops = 0;
  // Only operators that the counter knows carry a count, and the nested ones it calls do not
  // (aten::conv2d counts; the aten::convolution inside it reports 0), so the sum counts each once.
  for (const auto& event : result->events()) flops += static_cast<double>(event.flops());
  if (flops <= 0) return std::nullopt;
  return flops;
}

}  // namespace libreyolo::core::profiler
