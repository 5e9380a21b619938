// Issue #21 probe (not part of the build): what does cuDNN's persistent training BatchNorm (the mode
// PyTorch asks for on channels-last float16) set with the memset it puts before every call, and
// what would the step gain if those memsets left the graph's critical path? YOLOv9-t's step graph
// holds about 440 of them (1.3 us each, 0.65 ms a step on an H100, plus a dependency each).
//
// Per shape, kPairs forward + backward pairs are recorded into one graph, each call with a
// workspace of its own in one arena (as a layer-owned workspace would be). Then:
//   - where each memset writes (the call's workspace, the reserve space, elsewhere), how many bytes,
//     with what value;
//   - A: the graph as recorded; B: the memsets writing into the arena detached from the nodes
//     before them (they only wait for the graph's start: nothing else touches their workspace);
//     C: those memsets replaced by one memset of the whole arena that every call waits for;
//     time per pair of each, and whether B's and C's outputs, input gradients and parameter
//     gradients equal A's bit for bit.
//
// Build and run on the GPU machine (.gpu/common.sh: cudnn_tool tests/tools/cudnn_bn_memset_probe.cu bn_memset_probe):
//   nvcc -O2 -std=c++17 -arch=sm_90 tests/tools/cudnn_bn_memset_probe.cu -lcudnn -o /tmp/bn_memset_probe
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <cudnn.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include "cudnn_probe_start.cuh"
#include "probe_support.cuh"

// cuDNN 9 marks these entry points deprecated; they are the ones PyTorch's BatchNorm calls.
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

namespace {

constexpr cudnnBatchNormMode_t kMode = CUDNN_BATCHNORM_SPATIAL_PERSISTENT;
constexpr int kPairs = 20;
constexpr int kReplays = 20;

struct Shape {
  int n, c, h, w;
};

size_t rounded(size_t bytes) { return (bytes + 255) / 256 * 256; }

// One shape's buffers: the tensors all pairs share, and the arena of per-call workspaces.
struct Setup {
  Shape s{};
  size_t count = 0, forward_bytes = 0, backward_bytes = 0, slot_bytes = 0, reserve_bytes = 0;
  __half *x = nullptr, *y = nullptr, *dy = nullptr, *dx = nullptr;
  float *scale, *bias, *dscale, *dbias, *running_mean, *running_var, *save_mean, *save_var;
  char *arena = nullptr, *reserve = nullptr;
  cudnnTensorDescriptor_t xd = nullptr, pd = nullptr;

  char* workspace(int call) const { return arena + size_t(call) * slot_bytes; }
  size_t arena_bytes() const { return slot_bytes * 2 * kPairs; }
};

void prepare(cudnnHandle_t h, const Shape& s, Setup& u) {
  u.s = s;
  u.count = size_t(s.n) * s.c * s.h * s.w;
  u.x = probe::zeroed<__half>(u.count), u.y = probe::zeroed<__half>(u.count), u.dy = probe::zeroed<__half>(u.count);
  u.dx = probe::zeroed<__half>(u.count);
  for (float** f : {&u.scale, &u.bias, &u.dscale, &u.dbias, &u.running_mean, &u.running_var, &u.save_mean, &u.save_var}) {
    *f = probe::zeroed<float>(s.c);
  }
  probe::fill_sines<<<1024, 256>>>(u.x, u.count, 2.f, 0.f);
  probe::fill_sines<<<1024, 256>>>(u.dy, u.count, 0.1f, 1.f);
  std::vector<float> ones(s.c, 1.f);
  CHECK_CUDA(cudaMemcpy(u.scale, ones.data(), s.c * sizeof(float), cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(u.running_var, ones.data(), s.c * sizeof(float), cudaMemcpyHostToDevice));
  CHECK_CUDNN_EXIT(cudnnCreateTensorDescriptor(&u.xd));
  CHECK_CUDNN_EXIT(cudnnCreateTensorDescriptor(&u.pd));
  CHECK_CUDNN_EXIT(cudnnSetTensor4dDescriptorEx(u.xd, CUDNN_DATA_HALF, s.n, s.c, s.h, s.w, s.h * s.w * s.c, 1, s.w * s.c, s.c));
  CHECK_CUDNN_EXIT(cudnnDeriveBNTensorDescriptor(u.pd, u.xd, kMode));
  CHECK_CUDNN_EXIT(cudnnGetBatchNormalizationForwardTrainingExWorkspaceSize(h, kMode, CUDNN_BATCHNORM_OPS_BN, u.xd, nullptr,
                                                                      u.xd, u.pd, nullptr, &u.forward_bytes));
  CHECK_CUDNN_EXIT(cudnnGetBatchNormalizationBackwardExWorkspaceSize(h, kMode, CUDNN_BATCHNORM_OPS_BN, u.xd, u.xd, u.xd,
                                                                nullptr, u.xd, u.pd, nullptr, &u.backward_bytes));
  CHECK_CUDNN_EXIT(cudnnGetBatchNormalizationTrainingExReserveSpaceSize(h, kMode, CUDNN_BATCHNORM_OPS_BN, nullptr, u.xd,
                                                                   &u.reserve_bytes));
  u.slot_bytes = rounded(std::max(u.forward_bytes, u.backward_bytes));
  u.arena = probe::zeroed<char>(u.arena_bytes());
  u.reserve = probe::zeroed<char>(u.reserve_bytes);
}

void release(Setup& u) {
  for (void* q : {(void*)u.x, (void*)u.y, (void*)u.dy, (void*)u.dx, (void*)u.scale, (void*)u.bias, (void*)u.dscale,
                  (void*)u.dbias, (void*)u.running_mean, (void*)u.running_var, (void*)u.save_mean, (void*)u.save_var,
                  (void*)u.arena, (void*)u.reserve}) {
    CHECK_CUDA(cudaFree(q));
  }
  cudnnDestroyTensorDescriptor(u.xd);
  cudnnDestroyTensorDescriptor(u.pd);
}

// Pair i: the forward with workspace 2i, the backward with workspace 2i + 1.
void pair(cudnnHandle_t h, const Setup& u, int i) {
  const float one = 1.f, zero = 0.f;
  CHECK_CUDNN_EXIT(cudnnBatchNormalizationForwardTrainingEx(
      h, kMode, CUDNN_BATCHNORM_OPS_BN, &one, &zero, u.xd, u.x, nullptr, nullptr, u.xd, u.y, u.pd, u.scale, u.bias, 0.03,
      u.running_mean, u.running_var, 1e-3, u.save_mean, u.save_var, nullptr, u.workspace(2 * i), u.forward_bytes,
      u.reserve, u.reserve_bytes));
  CHECK_CUDNN_EXIT(cudnnBatchNormalizationBackwardEx(
      h, kMode, CUDNN_BATCHNORM_OPS_BN, &one, &zero, &one, &zero, u.xd, u.x, nullptr, nullptr, u.xd, u.dy, nullptr,
      nullptr, u.xd, u.dx, u.pd, u.scale, nullptr, u.dscale, u.dbias, 1e-3, u.save_mean, u.save_var, nullptr,
      u.workspace(2 * i + 1), u.backward_bytes, u.reserve, u.reserve_bytes));
}

std::vector<cudaGraphNode_t> nodes_of(cudaGraph_t graph) {
  size_t count = 0;
  CHECK_CUDA(cudaGraphGetNodes(graph, nullptr, &count));
  std::vector<cudaGraphNode_t> list(count);
  CHECK_CUDA(cudaGraphGetNodes(graph, list.data(), &count));
  return list;
}

bool inside(const void* p, size_t bytes, const char* base, size_t size) {
  const auto a = reinterpret_cast<std::uintptr_t>(p), b = reinterpret_cast<std::uintptr_t>(base);
  return a >= b && a + bytes <= b + size;
}

// The memset nodes writing into the arena; the others are counted in `elsewhere` and said once.
std::vector<cudaGraphNode_t> arena_memsets(cudaGraph_t graph, const Setup& u, bool say, int& elsewhere) {
  std::vector<cudaGraphNode_t> found;
  elsewhere = 0;
  for (auto node : nodes_of(graph)) {
    cudaGraphNodeType type;
    CHECK_CUDA(cudaGraphNodeGetType(node, &type));
    if (type != cudaGraphNodeTypeMemset) continue;
    cudaMemsetParams p{};
    CHECK_CUDA(cudaGraphMemsetNodeGetParams(node, &p));
    const size_t bytes = size_t(p.elementSize) * p.width * (p.height == 0 ? 1 : p.height);
    const bool in_arena = inside(p.dst, bytes, u.arena, u.arena_bytes());
    if (say && found.size() + elsewhere < 2) {
      const auto offset = reinterpret_cast<const char*>(p.dst) - u.arena;
      std::printf("  memset: %zu bytes of value %u (element %u, height %zu) at %s offset %lld of its slot\n", bytes,
                  p.value, p.elementSize, p.height,
                  in_arena ? "the arena," : (inside(p.dst, bytes, u.reserve, u.reserve_bytes + 256) ? "the reserve," : "another address,"),
                  in_arena ? static_cast<long long>(offset % u.slot_bytes) : -1LL);
    }
    if (in_arena && p.value == 0) found.push_back(node);
    else ++elsewhere;
  }
  return found;
}

std::vector<cudaGraphNode_t> before(cudaGraphNode_t node) {
  size_t count = 0;
  CHECK_CUDA(cudaGraphNodeGetDependencies(node, nullptr, nullptr, &count));
  std::vector<cudaGraphNode_t> list(count);
  if (count > 0) CHECK_CUDA(cudaGraphNodeGetDependencies(node, list.data(), nullptr, &count));
  return list;
}

std::vector<cudaGraphNode_t> after(cudaGraphNode_t node) {
  size_t count = 0;
  CHECK_CUDA(cudaGraphNodeGetDependentNodes(node, nullptr, nullptr, &count));
  std::vector<cudaGraphNode_t> list(count);
  if (count > 0) CHECK_CUDA(cudaGraphNodeGetDependentNodes(node, list.data(), nullptr, &count));
  return list;
}

// Edges from every node in `from` to every node in `to`.
void connect(cudaGraph_t graph, const std::vector<cudaGraphNode_t>& from, const std::vector<cudaGraphNode_t>& to) {
  for (auto a : from) {
    for (auto b : to) CHECK_CUDA(cudaGraphAddDependencies(graph, &a, &b, nullptr, 1));
  }
}

// Takes a memset out of the chain it was recorded in: what waited for it now waits for what it
// waited for (the call's inputs), and it waits for nothing.
void unchain(cudaGraph_t graph, cudaGraphNode_t memset) {
  const auto preceding = before(memset);
  connect(graph, preceding, after(memset));
  std::vector<cudaGraphNode_t> to(preceding.size(), memset);
  if (!preceding.empty()) CHECK_CUDA(cudaGraphRemoveDependencies(graph, preceding.data(), to.data(), nullptr, to.size()));
}

// B: each arena memset waits for nothing (its call still waits for it and for its inputs).
void detach(cudaGraph_t graph, const std::vector<cudaGraphNode_t>& memsets) {
  for (auto node : memsets) unchain(graph, node);
}

// C: the arena memsets replaced by one of the whole arena, before every node that waited for one.
void merge(cudaGraph_t graph, const std::vector<cudaGraphNode_t>& memsets, const Setup& u) {
  std::vector<cudaGraphNode_t> waiting;
  for (auto node : memsets) {
    unchain(graph, node);
    const auto next = after(node);
    waiting.insert(waiting.end(), next.begin(), next.end());
    CHECK_CUDA(cudaGraphDestroyNode(node));
  }
  cudaMemsetParams p{};
  p.dst = u.arena;
  p.value = 0;
  p.elementSize = 1;
  p.width = u.arena_bytes();
  p.height = 1;
  cudaGraphNode_t whole;
  CHECK_CUDA(cudaGraphAddMemsetNode(&whole, graph, nullptr, 0, &p));
  connect(graph, {whole}, waiting);
}

struct Outcome {
  double us_per_pair = 0;
  std::vector<float> y, dx;
  std::vector<float> dscale;
};

// The recorded graph changed by `variant` (0 as recorded, 1 detached, 2 merged), replayed and timed.
Outcome run(cudnnHandle_t h, Setup& u, cudaStream_t stream, int variant, bool say) {
  CHECK_CUDA(cudaStreamBeginCapture(stream, cudaStreamCaptureModeRelaxed));
  for (int i = 0; i < kPairs; ++i) pair(h, u, i);
  cudaGraph_t graph;
  CHECK_CUDA(cudaStreamEndCapture(stream, &graph));
  int elsewhere = 0;
  const auto memsets = arena_memsets(graph, u, say, elsewhere);
  if (say) {
    std::printf("  %zu nodes for %d pairs; memsets into the workspaces: %zu, other memsets: %d\n", nodes_of(graph).size(),
                kPairs, memsets.size(), elsewhere);
  }
  if (variant == 1) detach(graph, memsets);
  if (variant == 2) merge(graph, memsets, u);
  const float ms = probe::replay_ms(graph, stream, kReplays);
  Outcome o;
  o.us_per_pair = 1000.0 * ms / (kPairs * kReplays);
  o.y = probe::host_copy(u.y, u.count);
  o.dx = probe::host_copy(u.dx, u.count);
  o.dscale.resize(u.s.c);
  CHECK_CUDA(cudaMemcpy(o.dscale.data(), u.dscale, u.s.c * sizeof(float), cudaMemcpyDeviceToHost));
  CHECK_CUDA(cudaGraphDestroy(graph));
  return o;
}

bool same_bits(const Outcome& a, const Outcome& b) {
  const auto equal = [](const std::vector<float>& p, const std::vector<float>& q) {
    return p.size() == q.size() && std::memcmp(p.data(), q.data(), p.size() * sizeof(float)) == 0;
  };
  return equal(a.y, b.y) && equal(a.dx, b.dx) && equal(a.dscale, b.dscale);
}

}  // namespace

int main() {
  cudnnHandle_t handle;
  if (!probe::start_cudnn(handle)) return 1;
  const Shape shapes[] = {{16, 16, 320, 320}, {16, 32, 160, 160}, {16, 64, 160, 160}, {16, 32, 80, 80},
                          {16, 64, 80, 80},   {16, 128, 80, 80},  {16, 64, 40, 40},   {16, 96, 40, 40},
                          {16, 256, 40, 40},  {16, 64, 20, 20},   {16, 128, 20, 20},  {16, 256, 20, 20}};
  cudaStream_t stream;
  CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  CHECK_CUDNN_EXIT(cudnnSetStream(handle, stream));
  std::printf("shape (workspace bytes forward/backward, reserve): A recorded | B detached | C one memset, us/pair; B, C bits equal A's\n");
  for (const auto& s : shapes) {
    Setup u;
    prepare(handle, s, u);
    std::printf("%dx%dx%dx%d (%zu/%zu, %zu)\n", s.n, s.c, s.h, s.w, u.forward_bytes, u.backward_bytes, u.reserve_bytes);
    pair(handle, u, 0);  // warm-up, outside the graph
    CHECK_CUDA(cudaStreamSynchronize(stream));
    const Outcome a = run(handle, u, stream, 0, true);
    const Outcome b = run(handle, u, stream, 1, false);
    const Outcome c = run(handle, u, stream, 2, false);
    std::printf("  %.2f | %.2f | %.2f us/pair; bits equal: %s, %s\n", a.us_per_pair, b.us_per_pair, c.us_per_pair,
                same_bits(b, a) ? "yes" : "NO", same_bits(c, a) ? "yes" : "NO");
    CHECK_CUDA(cudaStreamSynchronize(stream));
    release(u);
  }
  CHECK_CUDA(cudaStreamDestroy(stream));
  cudnnDestroy(handle);
  return 0;
}
