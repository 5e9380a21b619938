// Issue #21 probe (not part of the build): what do cuDNN's two training BatchNorm modes cost inside
// a CUDA graph at YOLOv9-t's channels-last float16 shapes? PyTorch calls the "Ex" API in
// CUDNN_BATCHNORM_SPATIAL_PERSISTENT mode, which puts a memset before every call each way (about
// 440 memset nodes in YOLOv9-t's step graph); CUDNN_BATCHNORM_SPATIAL may need none. Per shape and
// mode, 20 forward + backward pairs are recorded into one graph and replayed: the time per pair,
// the graph's nodes per pair (and how many are memsets), and the largest difference of the two
// modes' outputs and input gradients (relative to the persistent mode's largest magnitude).
//
// Build and run on the GPU machine (.gpu/common.sh: cudnn_tool tests/tools/cudnn_bn_mode_probe.cu bn_mode_probe):
//   nvcc -O2 -std=c++17 -arch=sm_90 tests/tools/cudnn_bn_mode_probe.cu -lcudnn -o /tmp/bn_mode_probe
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <cudnn.h>

#include <cmath>
#include <cstdio>
#include <vector>

#include "cudnn_probe_start.cuh"
#include "probe_support.cuh"

// cuDNN 9 marks these entry points deprecated; they are the ones PyTorch's BatchNorm calls.
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

namespace {

#define CHECK_CUDNN(x)                                                                  \
  do {                                                                                  \
    cudnnStatus_t s_ = (x);                                                             \
    if (s_ != CUDNN_STATUS_SUCCESS) {                                                   \
      std::printf("cuDNN error %s at line %d\n", cudnnGetErrorString(s_), __LINE__);     \
      return false;                                                                     \
    }                                                                                   \
  } while (0)

struct Shape {
  int n, c, h, w;
};

constexpr int kPairs = 20;    // forward + backward pairs a graph
constexpr int kReplays = 10;

struct Buffers {
  __half *x, *y, *dy, *dx;
  float *scale, *bias, *dscale, *dbias, *running_mean, *running_var, *save_mean, *save_var;
  void *workspace, *reserve;
  size_t workspace_bytes = 0, reserve_bytes = 0;
};

struct Result {
  double us_per_pair = 0;
  int nodes_per_pair = 0, memsets_per_pair = 0;
  std::vector<float> y, dx;
};

// One forward and one backward, as PyTorch's cudnn_batch_norm and cudnn_batch_norm_backward call them.
bool pair(cudnnHandle_t h, cudnnBatchNormMode_t mode, cudnnTensorDescriptor_t x, cudnnTensorDescriptor_t p, Buffers& b) {
  const float one = 1.f, zero = 0.f;
  CHECK_CUDNN(cudnnBatchNormalizationForwardTrainingEx(
      h, mode, CUDNN_BATCHNORM_OPS_BN, &one, &zero, x, b.x, nullptr, nullptr, x, b.y, p, b.scale, b.bias, 0.03,
      b.running_mean, b.running_var, 1e-3, b.save_mean, b.save_var, nullptr, b.workspace, b.workspace_bytes, b.reserve,
      b.reserve_bytes));
  CHECK_CUDNN(cudnnBatchNormalizationBackwardEx(h, mode, CUDNN_BATCHNORM_OPS_BN, &one, &zero, &one, &zero, x, b.x, nullptr,
                                                nullptr, x, b.dy, nullptr, nullptr, x, b.dx, p, b.scale, nullptr, b.dscale,
                                                b.dbias, 1e-3, b.save_mean, b.save_var, nullptr, b.workspace,
                                                b.workspace_bytes, b.reserve, b.reserve_bytes));
  return true;
}

bool sizes(cudnnHandle_t h, cudnnBatchNormMode_t mode, cudnnTensorDescriptor_t x, cudnnTensorDescriptor_t p, Buffers& b) {
  size_t forward = 0, backward = 0;
  CHECK_CUDNN(cudnnGetBatchNormalizationForwardTrainingExWorkspaceSize(h, mode, CUDNN_BATCHNORM_OPS_BN, x, nullptr, x, p,
                                                                      nullptr, &forward));
  CHECK_CUDNN(cudnnGetBatchNormalizationBackwardExWorkspaceSize(h, mode, CUDNN_BATCHNORM_OPS_BN, x, x, x, nullptr, x, p,
                                                                nullptr, &backward));
  CHECK_CUDNN(cudnnGetBatchNormalizationTrainingExReserveSpaceSize(h, mode, CUDNN_BATCHNORM_OPS_BN, nullptr, x,
                                                                   &b.reserve_bytes));
  b.workspace_bytes = forward > backward ? forward : backward;
  b.workspace = probe::zeroed<char>(b.workspace_bytes);
  b.reserve = probe::zeroed<char>(b.reserve_bytes);
  return true;
}

// The graph of kPairs pairs: its time per pair over kReplays replays, its nodes and memsets per pair.
bool measure(cudnnHandle_t h, cudnnBatchNormMode_t mode, const Shape& s, Result& r) {
  const size_t count = size_t(s.n) * s.c * s.h * s.w;
  Buffers b{};
  b.x = probe::zeroed<__half>(count), b.y = probe::zeroed<__half>(count), b.dy = probe::zeroed<__half>(count), b.dx = probe::zeroed<__half>(count);
  for (float** f : {&b.scale, &b.bias, &b.dscale, &b.dbias, &b.running_mean, &b.running_var, &b.save_mean, &b.save_var}) {
    *f = probe::zeroed<float>(s.c);
  }
  probe::fill_sines<<<1024, 256>>>(b.x, count, 2.f, 0.f);
  probe::fill_sines<<<1024, 256>>>(b.dy, count, 0.1f, 1.f);
  std::vector<float> ones(s.c, 1.f);
  CHECK_CUDA(cudaMemcpy(b.scale, ones.data(), s.c * sizeof(float), cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(b.running_var, ones.data(), s.c * sizeof(float), cudaMemcpyHostToDevice));
  cudnnTensorDescriptor_t x, p;
  CHECK_CUDNN(cudnnCreateTensorDescriptor(&x));
  CHECK_CUDNN(cudnnCreateTensorDescriptor(&p));
  CHECK_CUDNN(cudnnSetTensor4dDescriptorEx(x, CUDNN_DATA_HALF, s.n, s.c, s.h, s.w, s.h * s.w * s.c, 1, s.w * s.c, s.c));
  CHECK_CUDNN(cudnnDeriveBNTensorDescriptor(p, x, mode));
  if (!sizes(h, mode, x, p, b)) return false;
  cudaStream_t stream;
  CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  CHECK_CUDNN(cudnnSetStream(h, stream));
  if (!pair(h, mode, x, p, b)) return false;  // warm-up, outside the graph
  CHECK_CUDA(cudaStreamSynchronize(stream));
  r.y = probe::host_copy(b.y, count);
  r.dx = probe::host_copy(b.dx, count);
  cudaGraph_t graph;
  CHECK_CUDA(cudaStreamBeginCapture(stream, cudaStreamCaptureModeRelaxed));
  for (int i = 0; i < kPairs; ++i) {
    if (!pair(h, mode, x, p, b)) return false;
  }
  CHECK_CUDA(cudaStreamEndCapture(stream, &graph));
  size_t nodes = 0;
  CHECK_CUDA(cudaGraphGetNodes(graph, nullptr, &nodes));
  std::vector<cudaGraphNode_t> list(nodes);
  CHECK_CUDA(cudaGraphGetNodes(graph, list.data(), &nodes));
  int memsets = 0;
  for (auto node : list) {
    cudaGraphNodeType type;
    CHECK_CUDA(cudaGraphNodeGetType(node, &type));
    memsets += type == cudaGraphNodeTypeMemset ? 1 : 0;
  }
  const float ms = probe::replay_ms(graph, stream, kReplays);
  r.us_per_pair = 1000.0 * ms / (kPairs * kReplays);
  r.nodes_per_pair = static_cast<int>(nodes) / kPairs;
  r.memsets_per_pair = memsets / kPairs;
  CHECK_CUDA(cudaGraphDestroy(graph));
  CHECK_CUDA(cudaStreamDestroy(stream));
  for (void* q : {(void*)b.x, (void*)b.y, (void*)b.dy, (void*)b.dx, (void*)b.scale, (void*)b.bias, (void*)b.dscale,
                  (void*)b.dbias, (void*)b.running_mean, (void*)b.running_var, (void*)b.save_mean, (void*)b.save_var,
                  b.workspace, b.reserve}) {
    CHECK_CUDA(cudaFree(q));
  }
  cudnnDestroyTensorDescriptor(x);
  cudnnDestroyTensorDescriptor(p);
  return true;
}

}  // namespace

int main() {
  cudnnHandle_t handle;
  if (!probe::start_cudnn(handle)) return 1;
  // YOLOv9-t's BatchNorm shapes at batch 16, 640 px (the large and the small ones of its census).
  const Shape shapes[] = {{16, 16, 320, 320}, {16, 32, 160, 160}, {16, 64, 160, 160}, {16, 32, 80, 80},
                          {16, 64, 80, 80},   {16, 128, 80, 80},  {16, 64, 40, 40},   {16, 96, 40, 40},
                          {16, 256, 40, 40},  {16, 64, 20, 20},   {16, 128, 20, 20},  {16, 256, 20, 20}};
  std::printf("shape: persistent us/pair (nodes, memsets) | spatial us/pair (nodes, memsets) | y, dx relative difference\n");
  for (const auto& s : shapes) {
    Result persistent, spatial;
    const bool a = measure(handle, CUDNN_BATCHNORM_SPATIAL_PERSISTENT, s, persistent);
    const bool b = measure(handle, CUDNN_BATCHNORM_SPATIAL, s, spatial);
    std::printf("%dx%dx%dx%d: ", s.n, s.c, s.h, s.w);
    if (a) std::printf("%.1f (%d, %d)", persistent.us_per_pair, persistent.nodes_per_pair, persistent.memsets_per_pair);
    std::printf(" | ");
    if (b) std::printf("%.1f (%d, %d)", spatial.us_per_pair, spatial.nodes_per_pair, spatial.memsets_per_pair);
    if (a && b) {
      std::printf(" | %.2e, %.2e", probe::largest_relative(spatial.y, persistent.y),
                  probe::largest_relative(spatial.dx, persistent.dx));
    }
    std::printf("\n");
  }
  cudnnDestroy(handle);
  return 0;
}
