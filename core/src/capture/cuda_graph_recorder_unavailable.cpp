// Builds without CUDA (see core/CMakeLists.txt): there is nothing to record graphs with, and
// the capture manager says so in its one log line.
#include "libreyolo/core/capture/region_graph.hpp"

namespace libreyolo::core::capture {

std::unique_ptr<GraphRecorder> make_cuda_graph_recorder() { return nullptr; }

}  // namespace libreyolo::core::capture
