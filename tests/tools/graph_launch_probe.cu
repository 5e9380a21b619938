// Issue #21 probe (not part of the build): does relaunching a CUDA graph that is still running
// block the host, and do memset nodes or cooperative kernel nodes make it? YOLOv9-t trained end to
// end at 796-806 images/s with cuDNN's BatchNorm (a memset before each call, ~440 a step) and at
// 931-943 with PyTorch's (no memsets), while its synchronised step differed by under 1%
// (docs/benchmarks.md, "Twenty-ninth session"): if a launch waits for the previous run of the
// same graph only when the graph holds memsets (or cuDNN's cooperative kernels), the host cannot
// run ahead with cuDNN's BatchNorm, and the step's host issue time adds to every step.
//
// Each variant captures a chain of small kernels the size of a step's (about 2,700), with a
// memset or a cooperative kernel every sixth kernel where asked, launches the graph R times
// without synchronising, and prints: the GPU time of one run, the host time of each launch call
// (median, largest), and the host time to issue all R against the time until they all finish.
// A launch that does not block takes microseconds to a few milliseconds whatever the GPU time;
// one that blocks takes about one run's GPU time from the second launch on. The variants with
// extra nodes run again with two executable copies of the graph launched in turn.
//
// Build and run on the GPU machine:
//   nvcc -O2 -std=c++17 -arch=sm_90 tests/tools/graph_launch_probe.cu -o /tmp/graph_probe && /tmp/graph_probe
#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK_CUDA(x)                                                                     \
  do {                                                                                    \
    cudaError_t e = (x);                                                                  \
    if (e != cudaSuccess) {                                                               \
      std::printf("cuda error %s at line %d\n", cudaGetErrorString(e), __LINE__);         \
      std::exit(1);                                                                       \
    }                                                                                     \
  } while (0)

namespace {

namespace cg = cooperative_groups;
using Clock = std::chrono::steady_clock;

constexpr int kElements = 1 << 16;  // 256 KB of float: a small layer's activation
constexpr int kThreads = 256;
constexpr int kKernels = 2700;      // about YOLOv9-t's kernels in one captured step
constexpr int kEvery = 6;           // one extra node per this many kernels (~450, like the memsets)
constexpr int kRuns = 40;

__global__ void scale_add(float* x, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = x[i] * 0.999f + 1.0f;
}

// A grid-wide barrier between two passes, as a persistent BatchNorm kernel has.
__global__ void two_pass_cooperative(float* x, int n) {
  cg::grid_group grid = cg::this_grid();
  for (int i = static_cast<int>(grid.thread_rank()); i < n; i += static_cast<int>(grid.size())) x[i] += 1.0f;
  grid.sync();
  for (int i = static_cast<int>(grid.thread_rank()); i < n; i += static_cast<int>(grid.size())) x[i] *= 0.5f;
}

enum class Extra { none, memset, cooperative };

const char* name_of(Extra extra) {
  switch (extra) {
    case Extra::memset: return "kernels + memsets";
    case Extra::cooperative: return "kernels + cooperative kernels";
    default: return "kernels only";
  }
}

void add_extra(Extra extra, float* data, float* scratch, int cooperative_blocks, cudaStream_t stream) {
  if (extra == Extra::memset) CHECK_CUDA(cudaMemsetAsync(scratch, 0, 4096, stream));
  if (extra == Extra::cooperative) {
    int n = kElements;
    void* args[] = {&data, &n};
    CHECK_CUDA(cudaLaunchCooperativeKernel(reinterpret_cast<void*>(two_pass_cooperative), dim3(cooperative_blocks),
                                           dim3(kThreads), args, 0, stream));
  }
}

// The captured chain, instantiated `copies` times (launched in turn: whether a second executable
// graph of the same chain lets the host run one launch ahead where one alone does not).
std::vector<cudaGraphExec_t> capture(Extra extra, int copies, float* data, float* scratch, int cooperative_blocks,
                                     cudaStream_t stream) {
  cudaGraph_t graph;
  CHECK_CUDA(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
  for (int k = 0; k < kKernels; ++k) {
    scale_add<<<(kElements + kThreads - 1) / kThreads, kThreads, 0, stream>>>(data, kElements);
    if (k % kEvery == 0) add_extra(extra, data, scratch, cooperative_blocks, stream);
  }
  CHECK_CUDA(cudaStreamEndCapture(stream, &graph));
  std::vector<cudaGraphExec_t> execs(static_cast<std::size_t>(copies));
  for (auto& exec : execs) CHECK_CUDA(cudaGraphInstantiate(&exec, graph, 0));
  CHECK_CUDA(cudaGraphDestroy(graph));
  return execs;
}

double ms_between(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

// One run's GPU time, the launches' host times, and issue vs finish for kRuns back to back.
void measure(Extra extra, int copies, float* data, float* scratch, int cooperative_blocks, cudaStream_t stream) {
  const auto execs = capture(extra, copies, data, scratch, cooperative_blocks, stream);
  const auto exec_for = [&execs](int r) { return execs[static_cast<std::size_t>(r) % execs.size()]; };
  for (int i = 0; i < 3 * copies; ++i) CHECK_CUDA(cudaGraphLaunch(exec_for(i), stream));  // upload and warm
  CHECK_CUDA(cudaStreamSynchronize(stream));
  const cudaGraphExec_t exec = execs.front();

  cudaEvent_t begin, end;
  CHECK_CUDA(cudaEventCreate(&begin));
  CHECK_CUDA(cudaEventCreate(&end));
  CHECK_CUDA(cudaEventRecord(begin, stream));
  CHECK_CUDA(cudaGraphLaunch(exec, stream));
  CHECK_CUDA(cudaEventRecord(end, stream));
  CHECK_CUDA(cudaEventSynchronize(end));
  float gpu_ms = 0;
  CHECK_CUDA(cudaEventElapsedTime(&gpu_ms, begin, end));

  std::vector<double> launch_ms;
  const auto start = Clock::now();
  for (int r = 0; r < kRuns; ++r) {
    const auto before = Clock::now();
    CHECK_CUDA(cudaGraphLaunch(exec_for(r), stream));
    launch_ms.push_back(ms_between(before, Clock::now()));
  }
  const auto issued = Clock::now();
  CHECK_CUDA(cudaStreamSynchronize(stream));
  const auto finished = Clock::now();
  std::sort(launch_ms.begin(), launch_ms.end());
  std::printf("%-30s %d exec%s: one run %.2f ms on the GPU; launch call median %.3f ms, largest %.3f ms; %d runs issued in %.1f ms, "
              "finished in %.1f ms\n",
              name_of(extra), copies, copies > 1 ? "s" : " ", gpu_ms, launch_ms[launch_ms.size() / 2], launch_ms.back(), kRuns, ms_between(start, issued),
              ms_between(start, finished));
  CHECK_CUDA(cudaEventDestroy(begin));
  CHECK_CUDA(cudaEventDestroy(end));
  for (auto graph_exec : execs) CHECK_CUDA(cudaGraphExecDestroy(graph_exec));
}

}  // namespace

int main() {
  float *data = nullptr, *scratch = nullptr;
  CHECK_CUDA(cudaMalloc(&data, kElements * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&scratch, 4096));
  CHECK_CUDA(cudaMemset(data, 0, kElements * sizeof(float)));
  cudaStream_t stream;
  CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  int device = 0, sms = 0, per_sm = 0;
  CHECK_CUDA(cudaGetDevice(&device));
  CHECK_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  CHECK_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, two_pass_cooperative, kThreads, 0));
  const int cooperative_blocks = std::min(sms * per_sm, (kElements + kThreads - 1) / kThreads);
  // The cooperative variants last: if this driver cannot capture a cooperative launch, the
  // probe stops there with the error, after the others have printed.
  const struct {
    Extra extra;
    int copies;
  } variants[] = {{Extra::none, 1},   {Extra::memset, 1},      {Extra::memset, 2},
                  {Extra::none, 1},   {Extra::cooperative, 1}, {Extra::cooperative, 2}};
  for (const auto& v : variants) {
    measure(v.extra, v.copies, data, scratch, cooperative_blocks, stream);
    std::fflush(stdout);
  }
  CHECK_CUDA(cudaStreamDestroy(stream));
  CHECK_CUDA(cudaFree(data));
  CHECK_CUDA(cudaFree(scratch));
  return 0;
}
