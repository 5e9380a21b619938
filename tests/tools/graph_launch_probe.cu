// Issue #21 probe (not part of the build): does relaunching a CUDA graph that is still running
// block the host, and do memset nodes or cooperative kernel nodes make it? YOLOv9-t trained end to
// end at 796-806 images/s with cuDNN's BatchNorm (a memset before each call, ~440 a step) and at
// 931-943 with PyTorch's (no memsets), while its synchronised step differed by under 1%
// (docs/benchmarks.md, "Twenty-ninth session"): if a launch waits for the previous run of the
// same graph only when the graph holds memsets (or cuDNN's cooperative kernels), the host cannot
// run ahead with cuDNN's BatchNorm, and the step's host issue time adds to every step.
//
// Third (after the forty-seventh session's run, which found memset nodes slow and blocking and
// kernel-only graphs fast whatever their shape): do device-to-device memcpy nodes behave like
// memsets, and does a graph with only 3 memsets pay as one with 450 does?
//
// Second question (forty-seventh session): does the launch's host time follow the graph's shape?
// CUDA 12.6 drivers launch a straight-line graph of kernel nodes in constant time, while the step
// graph is not one: the weight gradients fork onto a second stream and join back (about 240 a
// YOLOv9-t step), and the merged BatchNorm memsets' kernel at the start has an edge to every
// BatchNorm call it clears (about 440). The variants "side branches" (a kernel forked onto a second
// stream every sixth kernel, joined three kernels later) and "head edges" (a first kernel with an
// edge to every sixth kernel, each redundant: the chain orders them already) ask what each shape
// costs against the chain alone, the launch timed alone (the GPU idle) and back to back.
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

enum class Extra { none, memset, cooperative, side_branches, head_edges, memcpy, few_memsets };

const char* name_of(Extra extra) {
  switch (extra) {
    case Extra::memset: return "kernels + memsets";
    case Extra::memcpy: return "kernels + D2D memcpys";
    case Extra::few_memsets: return "kernels + 3 memsets";
    case Extra::cooperative: return "kernels + cooperative kernels";
    case Extra::side_branches: return "kernels + side branches";
    case Extra::head_edges: return "kernels + head edges";
    default: return "kernels only";
  }
}

// What the capture needs besides the main stream: a second stream and events for the forks, joins
// and head edges (an event may be recorded again during a capture; a wait takes its latest record).
struct Lanes {
  cudaStream_t main = nullptr, side = nullptr;
  cudaEvent_t fork = nullptr, join = nullptr, head = nullptr;
  float *data = nullptr, *scratch = nullptr;
  int cooperative_blocks = 0;
};

void launch_scale_add(float* x, cudaStream_t stream) {
  scale_add<<<(kElements + kThreads - 1) / kThreads, kThreads, 0, stream>>>(x, kElements);
}

// After the chain's k-th kernel. Side branches: fork a kernel on the scratch buffer onto the side
// stream at k % kEvery == 0 and join it three kernels later, as a weight gradient on the second
// stream does. Head edges: the next kernel also waits for the chain's first kernel (the head).
void add_extra(Extra extra, int k, const Lanes& lanes) {
  const cudaStream_t stream = lanes.main;
  if (extra == Extra::memset && k % kEvery == 0) CHECK_CUDA(cudaMemsetAsync(lanes.scratch, 0, 4096, stream));
  // A device-to-device copy (PyTorch's copy_ of a contiguous tensor on one device records one).
  if (extra == Extra::memcpy && k % kEvery == 0)
    CHECK_CUDA(cudaMemcpyAsync(lanes.scratch, lanes.data, 4096, cudaMemcpyDeviceToDevice, stream));
  // Does one memset node suffice to make a launch slow, or does the cost grow with their number?
  if (extra == Extra::few_memsets && k % (kKernels / 3) == 0) CHECK_CUDA(cudaMemsetAsync(lanes.scratch, 0, 4096, stream));
  if (extra == Extra::cooperative && k % kEvery == 0) {
    float* data = lanes.data;
    int n = kElements;
    void* args[] = {&data, &n};
    CHECK_CUDA(cudaLaunchCooperativeKernel(reinterpret_cast<void*>(two_pass_cooperative), dim3(lanes.cooperative_blocks),
                                           dim3(kThreads), args, 0, stream));
  }
  if (extra == Extra::side_branches && k % kEvery == 0) {
    CHECK_CUDA(cudaEventRecord(lanes.fork, stream));
    CHECK_CUDA(cudaStreamWaitEvent(lanes.side, lanes.fork, 0));
    launch_scale_add(lanes.scratch, lanes.side);
    CHECK_CUDA(cudaEventRecord(lanes.join, lanes.side));
  }
  if (extra == Extra::side_branches && k % kEvery == 3) CHECK_CUDA(cudaStreamWaitEvent(stream, lanes.join, 0));
  if (extra == Extra::head_edges && k == 0) CHECK_CUDA(cudaEventRecord(lanes.head, stream));
  if (extra == Extra::head_edges && k > 0 && k % kEvery == 0) CHECK_CUDA(cudaStreamWaitEvent(stream, lanes.head, 0));
}

std::size_t edge_count(cudaGraph_t graph) {
  std::size_t count = 0;
#if CUDART_VERSION >= 13000
  CHECK_CUDA(cudaGraphGetEdges(graph, nullptr, nullptr, nullptr, &count));
#else
  CHECK_CUDA(cudaGraphGetEdges(graph, nullptr, nullptr, &count));
#endif
  return count;
}

// The captured chain, instantiated `copies` times (launched in turn: whether a second executable
// graph of the same chain lets the host run one launch ahead where one alone does not).
std::vector<cudaGraphExec_t> capture(Extra extra, int copies, const Lanes& lanes) {
  cudaGraph_t graph;
  CHECK_CUDA(cudaStreamBeginCapture(lanes.main, cudaStreamCaptureModeGlobal));
  for (int k = 0; k < kKernels; ++k) {
    launch_scale_add(lanes.data, lanes.main);
    add_extra(extra, k, lanes);
  }
  if (extra == Extra::side_branches) CHECK_CUDA(cudaStreamWaitEvent(lanes.main, lanes.join, 0));
  CHECK_CUDA(cudaStreamEndCapture(lanes.main, &graph));
  std::size_t nodes = 0;
  CHECK_CUDA(cudaGraphGetNodes(graph, nullptr, &nodes));
  std::printf("%-30s graph of %zu nodes, %zu edges\n", name_of(extra), nodes, edge_count(graph));
  std::vector<cudaGraphExec_t> execs(static_cast<std::size_t>(copies));
  for (auto& exec : execs) CHECK_CUDA(cudaGraphInstantiate(&exec, graph, 0));
  CHECK_CUDA(cudaGraphDestroy(graph));
  return execs;
}

double ms_between(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

// The host time of one launch call while the GPU is idle (synchronised before each): the "host
// issue" of a step whose previous step has finished. Median of kRuns.
double idle_launch_ms(cudaGraphExec_t exec, cudaStream_t stream) {
  std::vector<double> launch_ms;
  for (int r = 0; r < kRuns; ++r) {
    CHECK_CUDA(cudaStreamSynchronize(stream));
    const auto before = Clock::now();
    CHECK_CUDA(cudaGraphLaunch(exec, stream));
    launch_ms.push_back(ms_between(before, Clock::now()));
  }
  CHECK_CUDA(cudaStreamSynchronize(stream));
  std::sort(launch_ms.begin(), launch_ms.end());
  return launch_ms[launch_ms.size() / 2];
}

float one_run_gpu_ms(cudaGraphExec_t exec, cudaStream_t stream) {
  cudaEvent_t begin, end;
  CHECK_CUDA(cudaEventCreate(&begin));
  CHECK_CUDA(cudaEventCreate(&end));
  CHECK_CUDA(cudaEventRecord(begin, stream));
  CHECK_CUDA(cudaGraphLaunch(exec, stream));
  CHECK_CUDA(cudaEventRecord(end, stream));
  CHECK_CUDA(cudaEventSynchronize(end));
  float gpu_ms = 0;
  CHECK_CUDA(cudaEventElapsedTime(&gpu_ms, begin, end));
  CHECK_CUDA(cudaEventDestroy(begin));
  CHECK_CUDA(cudaEventDestroy(end));
  return gpu_ms;
}

// One run's GPU time, a launch's host time on an idle GPU, and kRuns launched back to back: each
// call's host time and issue vs finish.
void measure(Extra extra, int copies, const Lanes& lanes) {
  const cudaStream_t stream = lanes.main;
  const auto execs = capture(extra, copies, lanes);
  const auto exec_for = [&execs](int r) { return execs[static_cast<std::size_t>(r) % execs.size()]; };
  for (int i = 0; i < 3 * copies; ++i) CHECK_CUDA(cudaGraphLaunch(exec_for(i), stream));  // upload and warm
  CHECK_CUDA(cudaStreamSynchronize(stream));
  const float gpu_ms = one_run_gpu_ms(execs.front(), stream);
  const double idle_ms = idle_launch_ms(execs.front(), stream);

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
  std::printf("%-30s %d exec%s: one run %.2f ms on the GPU; launch on an idle GPU %.3f ms; back to back: launch call "
              "median %.3f ms, largest %.3f ms, %d runs issued in %.1f ms, finished in %.1f ms\n",
              name_of(extra), copies, copies > 1 ? "s" : " ", gpu_ms, idle_ms, launch_ms[launch_ms.size() / 2],
              launch_ms.back(), kRuns, ms_between(start, issued), ms_between(start, finished));
  for (auto graph_exec : execs) CHECK_CUDA(cudaGraphExecDestroy(graph_exec));
}

}  // namespace

int main() {
  Lanes lanes;
  CHECK_CUDA(cudaMalloc(&lanes.data, kElements * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&lanes.scratch, kElements * sizeof(float)));
  CHECK_CUDA(cudaMemset(lanes.data, 0, kElements * sizeof(float)));
  CHECK_CUDA(cudaMemset(lanes.scratch, 0, kElements * sizeof(float)));
  CHECK_CUDA(cudaStreamCreateWithFlags(&lanes.main, cudaStreamNonBlocking));
  CHECK_CUDA(cudaStreamCreateWithFlags(&lanes.side, cudaStreamNonBlocking));
  for (cudaEvent_t* event : {&lanes.fork, &lanes.join, &lanes.head})
    CHECK_CUDA(cudaEventCreateWithFlags(event, cudaEventDisableTiming));
  int device = 0, sms = 0, per_sm = 0, driver = 0, runtime = 0;
  CHECK_CUDA(cudaGetDevice(&device));
  CHECK_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  CHECK_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, two_pass_cooperative, kThreads, 0));
  CHECK_CUDA(cudaDriverGetVersion(&driver));
  CHECK_CUDA(cudaRuntimeGetVersion(&runtime));
  std::printf("CUDA driver %d, runtime %d; %d kernels a chain, an extra every %d\n", driver, runtime, kKernels, kEvery);
  lanes.cooperative_blocks = std::min(sms * per_sm, (kElements + kThreads - 1) / kThreads);
  // The cooperative variants last: if this driver cannot capture a cooperative launch, the
  // probe stops there with the error, after the others have printed.
  const struct {
    Extra extra;
    int copies;
  } variants[] = {{Extra::none, 1},          {Extra::head_edges, 1},  {Extra::side_branches, 1},
                  {Extra::memset, 1},        {Extra::memset, 2},      {Extra::memcpy, 1},
                  {Extra::few_memsets, 1},   {Extra::none, 1},
                  {Extra::cooperative, 1},   {Extra::cooperative, 2}};
  for (const auto& v : variants) {
    measure(v.extra, v.copies, lanes);
    std::fflush(stdout);
  }
  return 0;
}
