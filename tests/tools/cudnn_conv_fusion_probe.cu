// Issue #21 probe (not part of the build): can cuDNN's graph API run a convolution that applies
// the previous BatchNorm and SiLU to its input as it reads it (a "mainloop" prologue: per-channel
// scale, bias, SWISH) and gathers the next BatchNorm's statistics (per-channel sum and sum of
// squares) as it writes its output (GEN_STATS), in one kernel, for the YOLOs' layer shapes on
// this GPU? That fusion would remove BatchNorm's reading passes, where #21's remaining GPU time
// is (docs/benchmarks.md, "Thirty-first session"). ResNet-style training uses the same pattern
// with ReLU; whether SWISH is taken is the question, so each shape is asked five ways:
//   conv                      the convolution alone (the baseline)
//   conv+stats                the convolution with the statistics epilogue
//   relu prologue+conv+stats  scale, bias, ReLU on the input, convolution, statistics
//   swish prologue+conv+stats the same with SWISH (SiLU)
//   swish prologue+conv       without the statistics
// Per way: whether any of the first eight engines each heuristics mode offers (A, fallback)
// finalizes, the fastest such plan's time, and, for the fused ways, the largest difference from
// the same arithmetic done step by step (prologue by a kernel of this file, rounded to float16; the plain convolution; the
// statistics summed on the host in double). Only the forward is asked; the backward (the input
// gradient with the SiLU's and BatchNorm's backward in its prologue) is a later question.
//
// Build and run on the GPU machine (cuDNN from the CUDA image; PyTorch's wheel also ships one):
//   nvcc -O2 -std=c++17 -arch=sm_90 tests/tools/cudnn_conv_fusion_probe.cu -lcudnn -o /tmp/fusion_probe && /tmp/fusion_probe
#include <cuda_fp16.h>
#include <cudnn.h>

#include "cudnn_probe_start.cuh"
#include "probe_support.cuh"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace {

// One backend descriptor, destroyed with its owner. `status` keeps the first failing call's code.
struct Descriptor {
  cudnnBackendDescriptor_t handle = nullptr;
  cudnnStatus_t status = CUDNN_STATUS_SUCCESS;
  explicit Descriptor(cudnnBackendDescriptorType_t type) { note(cudnnBackendCreateDescriptor(type, &handle)); }
  ~Descriptor() {
    if (handle != nullptr) cudnnBackendDestroyDescriptor(handle);
  }
  Descriptor(const Descriptor&) = delete;
  Descriptor& operator=(const Descriptor&) = delete;
  void note(cudnnStatus_t s) {
    if (status == CUDNN_STATUS_SUCCESS) status = s;
  }
  template <typename T>
  Descriptor& set(cudnnBackendAttributeName_t name, cudnnBackendAttributeType_t type, int64_t count, const T* values) {
    note(cudnnBackendSetAttribute(handle, name, type, count, values));
    return *this;
  }
  Descriptor& set_descriptor(cudnnBackendAttributeName_t name, const Descriptor& other) {
    return set(name, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &other.handle);
  }
  // The graph's and the plan's cuDNN handle: deprecated attributes in cuDNN 9, which a later
  // version may refuse; the device is then the current one, so a refusal is not an error here.
  Descriptor& set_handle(cudnnBackendAttributeName_t name, cudnnHandle_t cudnn) {
    cudnnBackendSetAttribute(handle, name, CUDNN_TYPE_HANDLE, 1, &cudnn);
    return *this;
  }
  bool finalize() {
    note(cudnnBackendFinalize(handle));
    return status == CUDNN_STATUS_SUCCESS;
  }
};
using Owned = std::unique_ptr<Descriptor>;

struct Shape {
  int n, c, h, w, k, r, stride;
  int pad() const { return r / 2; }
  int out_h() const { return (h + 2 * pad() - r) / stride + 1; }
  int out_w() const { return (w + 2 * pad() - r) / stride + 1; }
};

// A tensor descriptor in channels-last order: dims [n, c, h, w], strides of NHWC memory.
Owned tensor(int64_t uid, int64_t n, int64_t c, int64_t h, int64_t w, cudnnDataType_t type, bool is_virtual) {
  auto t = std::make_unique<Descriptor>(CUDNN_BACKEND_TENSOR_DESCRIPTOR);
  const int64_t dims[4] = {n, c, h, w}, strides[4] = {h * w * c, 1, w * c, c};
  const int64_t alignment = 16;
  t->set(CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &type)
      .set(CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, 4, dims)
      .set(CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, 4, strides)
      .set(CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 1, &uid)
      .set(CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, CUDNN_TYPE_INT64, 1, &alignment)
      .set(CUDNN_ATTR_TENSOR_IS_VIRTUAL, CUDNN_TYPE_BOOLEAN, 1, &is_virtual);
  t->finalize();
  return t;
}

// The tensors' unique ids in the variant pack.
enum Uid : int64_t { kX = 1, kW, kY, kScale, kBias, kSum, kSquares, kScaled = 100, kShifted, kActivated, kAccumulator };

// What follows the convolution in the graph: nothing; GEN_STATS's per-channel sum and sum of
// squares (the ConvBNfprop pattern); or one per-channel ADD reduction of the float accumulator
// beside the float16 output (the generic runtime fusion's epilogue allows one reduction on sm_90).
enum class Epilogue { kNone, kGenStats, kSum };

struct Way {
  const char* name;
  bool prologue;
  Epilogue epilogue;
  cudnnPointwiseMode_t activation;  // of the prologue
  cudnnDataType_t parameter_type = CUDNN_DATA_FLOAT;  // the prologue's scale and bias (cuDNN's own ReLU sample: half)
};

// GEN_STATS of `y`: per-channel sum and sum of squares into the kSum and kSquares tensors.
template <class Add>
cudnnBackendDescriptor_t gen_stats(const Shape& s, Descriptor* y, Add add) {
  auto* sum = add(tensor(kSum, 1, s.k, 1, 1, CUDNN_DATA_FLOAT, false));
  auto* squares = add(tensor(kSquares, 1, s.k, 1, 1, CUDNN_DATA_FLOAT, false));
  auto* stats = add(std::make_unique<Descriptor>(CUDNN_BACKEND_OPERATION_GEN_STATS_DESCRIPTOR));
  const cudnnGenStatsMode_t stats_mode = CUDNN_GENSTATS_SUM_SQSUM;
  const cudnnDataType_t precision = CUDNN_DATA_FLOAT;
  stats->set(CUDNN_ATTR_OPERATION_GENSTATS_MODE, CUDNN_TYPE_GENSTATS_MODE, 1, &stats_mode)
      .set(CUDNN_ATTR_OPERATION_GENSTATS_MATH_PREC, CUDNN_TYPE_DATA_TYPE, 1, &precision)
      .set_descriptor(CUDNN_ATTR_OPERATION_GENSTATS_XDESC, *y)
      .set_descriptor(CUDNN_ATTR_OPERATION_GENSTATS_SUMDESC, *sum)
      .set_descriptor(CUDNN_ATTR_OPERATION_GENSTATS_SQSUMDESC, *squares);
  stats->finalize();
  return stats->handle;
}

// A per-channel ADD reduction of `accumulator` into the kSum tensor.
template <class Add>
cudnnBackendDescriptor_t sum_reduction(const Shape& s, Descriptor* accumulator, Add add) {
  auto* sum = add(tensor(kSum, 1, s.k, 1, 1, CUDNN_DATA_FLOAT, false));
  auto* desc = add(std::make_unique<Descriptor>(CUDNN_BACKEND_REDUCTION_DESCRIPTOR));
  const cudnnReduceTensorOp_t op = CUDNN_REDUCE_TENSOR_ADD;
  const cudnnDataType_t precision = CUDNN_DATA_FLOAT;
  desc->set(CUDNN_ATTR_REDUCTION_OPERATOR, CUDNN_TYPE_REDUCTION_OPERATOR_TYPE, 1, &op)
      .set(CUDNN_ATTR_REDUCTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &precision);
  desc->finalize();
  auto* reduction = add(std::make_unique<Descriptor>(CUDNN_BACKEND_OPERATION_REDUCTION_DESCRIPTOR));
  reduction->set_descriptor(CUDNN_ATTR_OPERATION_REDUCTION_XDESC, *accumulator)
      .set_descriptor(CUDNN_ATTR_OPERATION_REDUCTION_YDESC, *sum)
      .set_descriptor(CUDNN_ATTR_OPERATION_REDUCTION_DESC, *desc);
  reduction->finalize();
  return reduction->handle;
}

// The graph's operations for one way (they and their tensors live in `keep`).
std::vector<cudnnBackendDescriptor_t> operations(const Shape& s, const Way& way, std::vector<Owned>& keep) {
  auto add = [&keep](Owned d) { keep.push_back(std::move(d)); return keep.back().get(); };
  auto pointwise = [&](cudnnPointwiseMode_t mode, Descriptor* x, Descriptor* b, Descriptor* y) {
    auto* desc = add(std::make_unique<Descriptor>(CUDNN_BACKEND_POINTWISE_DESCRIPTOR));
    const cudnnDataType_t precision = CUDNN_DATA_FLOAT;
    desc->set(CUDNN_ATTR_POINTWISE_MODE, CUDNN_TYPE_POINTWISE_MODE, 1, &mode)
        .set(CUDNN_ATTR_POINTWISE_MATH_PREC, CUDNN_TYPE_DATA_TYPE, 1, &precision);
    desc->finalize();
    auto* op = add(std::make_unique<Descriptor>(CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR));
    op->set_descriptor(CUDNN_ATTR_OPERATION_POINTWISE_PW_DESCRIPTOR, *desc)
        .set_descriptor(CUDNN_ATTR_OPERATION_POINTWISE_XDESC, *x)
        .set_descriptor(CUDNN_ATTR_OPERATION_POINTWISE_YDESC, *y);
    if (b != nullptr) op->set_descriptor(CUDNN_ATTR_OPERATION_POINTWISE_BDESC, *b);
    op->finalize();
    return op->handle;
  };
  std::vector<cudnnBackendDescriptor_t> ops;
  auto* x = add(tensor(kX, s.n, s.c, s.h, s.w, CUDNN_DATA_HALF, false));
  Descriptor* conv_input = x;
  if (way.prologue) {
    auto* scale = add(tensor(kScale, 1, s.c, 1, 1, way.parameter_type, false));
    auto* bias = add(tensor(kBias, 1, s.c, 1, 1, way.parameter_type, false));
    auto* scaled = add(tensor(kScaled, s.n, s.c, s.h, s.w, CUDNN_DATA_FLOAT, true));
    auto* shifted = add(tensor(kShifted, s.n, s.c, s.h, s.w, CUDNN_DATA_FLOAT, true));
    conv_input = add(tensor(kActivated, s.n, s.c, s.h, s.w, CUDNN_DATA_FLOAT, true));
    ops.push_back(pointwise(CUDNN_POINTWISE_MUL, x, scale, scaled));
    ops.push_back(pointwise(CUDNN_POINTWISE_ADD, scaled, bias, shifted));
    ops.push_back(pointwise(way.activation, shifted, nullptr, conv_input));
  }
  auto* w = add(tensor(kW, s.k, s.c, s.r, s.r, CUDNN_DATA_HALF, false));
  auto* y = add(tensor(kY, s.n, s.k, s.out_h(), s.out_w(), CUDNN_DATA_HALF, false));
  Descriptor* conv_output = y;
  if (way.epilogue == Epilogue::kSum)
    conv_output = add(tensor(kAccumulator, s.n, s.k, s.out_h(), s.out_w(), CUDNN_DATA_FLOAT, true));
  auto* conv = add(std::make_unique<Descriptor>(CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR));
  const cudnnDataType_t compute = CUDNN_DATA_FLOAT;
  const cudnnConvolutionMode_t mode = CUDNN_CROSS_CORRELATION;
  const int64_t dims = 2, ones[2] = {1, 1}, strides[2] = {s.stride, s.stride}, pads[2] = {s.pad(), s.pad()};
  conv->set(CUDNN_ATTR_CONVOLUTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &compute)
      .set(CUDNN_ATTR_CONVOLUTION_CONV_MODE, CUDNN_TYPE_CONVOLUTION_MODE, 1, &mode)
      .set(CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS, CUDNN_TYPE_INT64, 1, &dims)
      .set(CUDNN_ATTR_CONVOLUTION_DILATIONS, CUDNN_TYPE_INT64, 2, ones)
      .set(CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES, CUDNN_TYPE_INT64, 2, strides)
      .set(CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS, CUDNN_TYPE_INT64, 2, pads)
      .set(CUDNN_ATTR_CONVOLUTION_POST_PADDINGS, CUDNN_TYPE_INT64, 2, pads);
  conv->finalize();
  auto* forward = add(std::make_unique<Descriptor>(CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR));
  const float alpha = 1.f, beta = 0.f;
  forward->set_descriptor(CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC, *conv)
      .set_descriptor(CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X, *conv_input)
      .set_descriptor(CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W, *w)
      .set_descriptor(CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y, *conv_output)
      .set(CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_ALPHA, CUDNN_TYPE_FLOAT, 1, &alpha)
      .set(CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_BETA, CUDNN_TYPE_FLOAT, 1, &beta);
  forward->finalize();
  ops.push_back(forward->handle);
  if (way.epilogue == Epilogue::kGenStats) ops.push_back(gen_stats(s, y, add));
  if (way.epilogue == Epilogue::kSum) {
    ops.push_back(pointwise(CUDNN_POINTWISE_IDENTITY, conv_output, nullptr, y));
    ops.push_back(sum_reduction(s, conv_output, add));
  }
  for (const auto& d : keep)
    if (d->status != CUDNN_STATUS_SUCCESS) {
      std::printf("    building the graph failed: %s\n", cudnnGetErrorString(d->status));
      return {};
    }
  return ops;
}

// The engine configurations heuristics `mode` offers for `graph`.
std::vector<Owned> engine_configs(const Descriptor& graph, cudnnBackendHeurMode_t mode) {
  Descriptor heuristics(CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR);
  heuristics.set_descriptor(CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, graph)
      .set(CUDNN_ATTR_ENGINEHEUR_MODE, CUDNN_TYPE_HEUR_MODE, 1, &mode);
  if (!heuristics.finalize()) return {};
  int64_t count = 0;
  cudnnBackendGetAttribute(heuristics.handle, CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 0, &count,
                           nullptr);
  std::vector<Owned> configs;
  std::vector<cudnnBackendDescriptor_t> handles;
  for (int64_t i = 0; i < count; ++i) {
    configs.push_back(std::make_unique<Descriptor>(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR));
    handles.push_back(configs.back()->handle);
  }
  int64_t returned = 0;
  if (count > 0)
    cudnnBackendGetAttribute(heuristics.handle, CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR, count,
                             &returned, handles.data());
  configs.resize(static_cast<size_t>(std::max<int64_t>(0, std::min(returned, count))));
  return configs;
}

struct Buffers {
  __half *x, *w, *y;
  float *scale, *bias, *sum, *squares;
  __half *scale_half, *bias_half;  // the same values (exact in float16) for the half-typed ways
};

// Milliseconds per run of `plan` over `runs` runs, or a negative value when it fails to run.
// The variant pack names the way's tensors only (cuDNN refuses a pack with more than its graph's).
float time_plan(cudnnHandle_t handle, const Descriptor& plan, const Buffers& b, const Way& way, int runs,
                cudnnStatus_t* failure = nullptr) {
  int64_t workspace_size = 0;
  cudnnBackendGetAttribute(plan.handle, CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE, CUDNN_TYPE_INT64, 1, nullptr,
                           &workspace_size);
  void* workspace = nullptr;
  if (workspace_size > 0) CHECK_CUDA(cudaMalloc(&workspace, workspace_size));
  const bool half_parameters = way.parameter_type == CUDNN_DATA_HALF;
  std::vector<int64_t> uids = {kX, kW, kY};
  std::vector<void*> pointers = {b.x, b.w, b.y};
  if (way.prologue) {
    uids.insert(uids.end(), {kScale, kBias});
    pointers.push_back(half_parameters ? static_cast<void*>(b.scale_half) : b.scale);
    pointers.push_back(half_parameters ? static_cast<void*>(b.bias_half) : b.bias);
  }
  if (way.epilogue != Epilogue::kNone) uids.push_back(kSum), pointers.push_back(b.sum);
  if (way.epilogue == Epilogue::kGenStats) uids.push_back(kSquares), pointers.push_back(b.squares);
  const auto count = static_cast<int64_t>(uids.size());
  Descriptor pack(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR);
  pack.set(CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64, count, uids.data())
      .set(CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR, count, pointers.data())
      .set(CUDNN_ATTR_VARIANT_PACK_WORKSPACE, CUDNN_TYPE_VOID_PTR, 1, &workspace);
  float ms = -1.f;
  const cudnnStatus_t first = pack.finalize() ? cudnnBackendExecute(handle, plan.handle, pack.handle) : pack.status;
  if (failure != nullptr) *failure = first;
  if (first == CUDNN_STATUS_SUCCESS) {
    cudaEvent_t start, stop;
    CHECK_CUDA(cudaEventCreate(&start));
    CHECK_CUDA(cudaEventCreate(&stop));
    CHECK_CUDA(cudaEventRecord(start));
    for (int i = 0; i < runs; ++i) cudnnBackendExecute(handle, plan.handle, pack.handle);
    CHECK_CUDA(cudaEventRecord(stop));
    CHECK_CUDA(cudaEventSynchronize(stop));
    CHECK_CUDA(cudaEventElapsedTime(&ms, start, stop));
    ms /= runs;
    // One more run leaves this plan's outputs (sums start from zero where it adds into them).
    CHECK_CUDA(cudaMemset(b.sum, 0, sizeof(float) * 4096));
    CHECK_CUDA(cudaMemset(b.squares, 0, sizeof(float) * 4096));
    cudnnBackendExecute(handle, plan.handle, pack.handle);
    CHECK_CUDA(cudaDeviceSynchronize());
  }
  if (workspace != nullptr) cudaFree(workspace);
  return ms;
}

struct Outcome {
  int engines_offered = 0, plans_finalized = 0;
  float best_ms = -1.f;
  std::string first_refusal;
};

constexpr int kConfigsPerMode = 8;

// Builds the way's graph, finalizes a plan for every configuration the heuristics offer, times
// those that run; leaves the fastest plan's outputs in the buffers.
Outcome run_way(cudnnHandle_t handle, const Shape& s, const Way& way, const Buffers& b) {
  Outcome out;
  std::vector<Owned> keep;
  auto ops = operations(s, way, keep);
  if (ops.empty()) return out;
  Descriptor graph(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR);
  graph.set(CUDNN_ATTR_OPERATIONGRAPH_OPS, CUDNN_TYPE_BACKEND_DESCRIPTOR, static_cast<int64_t>(ops.size()), ops.data())
      .set_handle(CUDNN_ATTR_OPERATIONGRAPH_HANDLE, handle);
  if (!graph.finalize()) {
    out.first_refusal = std::string("operation graph: ") + cudnnGetErrorString(graph.status);
    return out;
  }
  std::unique_ptr<Descriptor> best_plan;
  for (const auto mode : {CUDNN_HEUR_MODE_A, CUDNN_HEUR_MODE_FALLBACK}) {
    int tried = 0;
    for (auto& config : engine_configs(graph, mode)) {
      ++out.engines_offered;
      // The heuristics' first few: runtime-fusion engines compile each plan (seconds apiece).
      if (++tried > kConfigsPerMode) continue;
      auto plan = std::make_unique<Descriptor>(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR);
      plan->set_handle(CUDNN_ATTR_EXECUTION_PLAN_HANDLE, handle)
          .set_descriptor(CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, *config);
      if (!plan->finalize()) {
        if (out.first_refusal.empty()) out.first_refusal = cudnnGetErrorString(plan->status);
        continue;
      }
      ++out.plans_finalized;
      cudnnStatus_t failure = CUDNN_STATUS_SUCCESS;
      const float ms = time_plan(handle, *plan, b, way, 20, &failure);
      if (failure != CUDNN_STATUS_SUCCESS && out.first_refusal.empty())
        out.first_refusal = std::string("execute: ") + cudnnGetErrorString(failure);
      if (ms > 0.f && (out.best_ms < 0.f || ms < out.best_ms)) {
        out.best_ms = ms;
        best_plan = std::move(plan);
      }
    }
  }
  if (best_plan) time_plan(handle, *best_plan, b, way, 1);  // its outputs, for the comparison
  return out;
}

__global__ void prologue(const __half* x, const float* scale, const float* bias, __half* out, size_t count, int c,
                         bool swish) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < count; i += size_t(gridDim.x) * blockDim.x) {
    const int channel = static_cast<int>(i % c);  // channels-last: the channel varies fastest
    const float v = __half2float(x[i]) * scale[channel] + bias[channel];
    out[i] = __float2half(swish ? v / (1.f + __expf(-v)) : fmaxf(v, 0.f));
  }
}

// The fused way's output and statistics against the step-by-step arithmetic: the prologue by a
// kernel (rounded to float16), then the plain convolution, the statistics on the host.
void compare(cudnnHandle_t handle, const Shape& s, const Way& way, const Buffers& fused) {
  const size_t in_count = size_t(s.n) * s.c * s.h * s.w, out_count = size_t(s.n) * s.k * s.out_h() * s.out_w();
  const auto fused_y = probe::host_copy(fused.y, out_count);
  std::vector<float> fused_sum(s.k), fused_squares(s.k);
  CHECK_CUDA(cudaMemcpy(fused_sum.data(), fused.sum, s.k * sizeof(float), cudaMemcpyDeviceToHost));
  CHECK_CUDA(cudaMemcpy(fused_squares.data(), fused.squares, s.k * sizeof(float), cudaMemcpyDeviceToHost));
  Buffers plain = fused;
  CHECK_CUDA(cudaMalloc(&plain.x, in_count * sizeof(__half)));
  CHECK_CUDA(cudaMalloc(&plain.y, out_count * sizeof(__half)));
  if (way.prologue)
    prologue<<<1024, 256>>>(fused.x, fused.scale, fused.bias, plain.x, in_count, s.c,
                            way.activation == CUDNN_POINTWISE_SWISH_FWD);
  else
    CHECK_CUDA(cudaMemcpy(plain.x, fused.x, in_count * sizeof(__half), cudaMemcpyDeviceToDevice));
  run_way(handle, s, Way{"conv", false, Epilogue::kNone, CUDNN_POINTWISE_RELU_FWD}, plain);
  const auto y = probe::host_copy(plain.y, out_count);
  std::vector<float> sum(s.k, 0.f), squares(s.k, 0.f);
  std::vector<double> sum_d(s.k, 0.0), squares_d(s.k, 0.0);
  for (size_t i = 0; i < out_count; ++i) {
    sum_d[i % s.k] += y[i];
    squares_d[i % s.k] += double(y[i]) * y[i];
  }
  for (int k = 0; k < s.k; ++k) sum[k] = float(sum_d[k]), squares[k] = float(squares_d[k]);
  std::printf("      vs step by step: output %.2e", probe::largest_relative(fused_y, y));
  if (way.epilogue != Epilogue::kNone) std::printf(", sum %.2e", probe::largest_relative(fused_sum, sum));
  if (way.epilogue == Epilogue::kGenStats)
    std::printf(", sum of squares %.2e", probe::largest_relative(fused_squares, squares));
  std::printf(" (relative to each one's largest magnitude)\n");
  cudaFree(plain.x);
  cudaFree(plain.y);
}

template <typename T>
T* filled(size_t count, float low, float high, std::mt19937& rng) {
  std::uniform_real_distribution<float> dist(low, high);
  std::vector<T> host(count);
  for (auto& v : host) v = T(dist(rng));
  T* device = nullptr;
  CHECK_CUDA(cudaMalloc(&device, count * sizeof(T)));
  CHECK_CUDA(cudaMemcpy(device, host.data(), count * sizeof(T), cudaMemcpyHostToDevice));
  return device;
}

// Rounds `count` floats on the device to float16 in place and returns a float16 copy: the float and
// half-typed ways then apply the same scale and bias.
__half* as_half(float* values, int count) {
  std::vector<float> host(count);
  CHECK_CUDA(cudaMemcpy(host.data(), values, count * sizeof(float), cudaMemcpyDeviceToHost));
  std::vector<__half> halves(count);
  for (int i = 0; i < count; ++i) halves[i] = __float2half(host[i]), host[i] = __half2float(halves[i]);
  CHECK_CUDA(cudaMemcpy(values, host.data(), count * sizeof(float), cudaMemcpyHostToDevice));
  __half* device = nullptr;
  CHECK_CUDA(cudaMalloc(&device, count * sizeof(__half)));
  CHECK_CUDA(cudaMemcpy(device, halves.data(), count * sizeof(__half), cudaMemcpyHostToDevice));
  return device;
}

void probe_shape(cudnnHandle_t handle, const Shape& s, std::mt19937& rng) {
  std::printf("%dx%dx%dx%d -> %d channels, %dx%d stride %d (channels-last float16):\n", s.n, s.c, s.h, s.w, s.k, s.r,
              s.r, s.stride);
  const size_t in_count = size_t(s.n) * s.c * s.h * s.w, out_count = size_t(s.n) * s.k * s.out_h() * s.out_w();
  Buffers b{};
  b.x = filled<__half>(in_count, -2.f, 2.f, rng);
  b.w = filled<__half>(size_t(s.k) * s.c * s.r * s.r, -0.1f, 0.1f, rng);
  b.scale = filled<float>(s.c, 0.5f, 1.5f, rng);
  b.bias = filled<float>(s.c, -0.5f, 0.5f, rng);
  b.scale_half = as_half(b.scale, s.c);
  b.bias_half = as_half(b.bias, s.c);
  CHECK_CUDA(cudaMalloc(&b.y, out_count * sizeof(__half)));
  CHECK_CUDA(cudaMalloc(&b.sum, 4096 * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&b.squares, 4096 * sizeof(float)));
  constexpr auto kRelu = CUDNN_POINTWISE_RELU_FWD, kSwish = CUDNN_POINTWISE_SWISH_FWD;
  constexpr auto kHalf = CUDNN_DATA_HALF;
  const Way ways[] = {{"conv", false, Epilogue::kNone, kRelu},
                      {"conv+stats", false, Epilogue::kGenStats, kRelu},
                      {"conv+sum", false, Epilogue::kSum, kRelu},
                      {"relu prologue+conv+stats", true, Epilogue::kGenStats, kRelu},
                      {"swish prologue+conv+stats", true, Epilogue::kGenStats, kSwish},
                      {"swish prologue+conv", true, Epilogue::kNone, kSwish},
                      {"swish prologue+conv+sum", true, Epilogue::kSum, kSwish},
                      {"relu prologue+conv+stats, half scale/bias", true, Epilogue::kGenStats, kRelu, kHalf},
                      {"swish prologue+conv+stats, half scale/bias", true, Epilogue::kGenStats, kSwish, kHalf},
                      {"swish prologue+conv, half scale/bias", true, Epilogue::kNone, kSwish, kHalf}};
  for (const auto& way : ways) {
    const auto out = run_way(handle, s, way, b);
    std::printf("  %-44s engines offered %d, plans finalized %d, ", way.name, out.engines_offered, out.plans_finalized);
    if (out.best_ms > 0.f)
      std::printf("fastest %.1f us\n", out.best_ms * 1000.f);
    else
      std::printf("none runs%s%s\n", out.first_refusal.empty() ? "" : ": ", out.first_refusal.c_str());
    if (out.best_ms > 0.f && (way.prologue || way.epilogue != Epilogue::kNone)) compare(handle, s, way, b);
  }
  for (void* p : {static_cast<void*>(b.x), static_cast<void*>(b.w), static_cast<void*>(b.y), static_cast<void*>(b.scale),
                  static_cast<void*>(b.bias), static_cast<void*>(b.sum), static_cast<void*>(b.squares),
                  static_cast<void*>(b.scale_half), static_cast<void*>(b.bias_half)})
    cudaFree(p);
}

}  // namespace

int main() {
  cudnnHandle_t handle;
  if (!probe::start_cudnn(handle)) return 1;
  std::mt19937 rng(21);
  // YOLOv9-t's and YOLOX-s's convolutions at batch 16 and 640 px: 3x3 at each map size, a strided
  // 3x3, and 1x1s (tests/tools/pointwise_conv_probe.py lists them all).
  const Shape shapes[] = {{16, 32, 80, 80, 32, 3, 1},   {16, 64, 40, 40, 64, 3, 1},  {16, 128, 20, 20, 128, 3, 1},
                          {16, 32, 160, 160, 64, 3, 2}, {16, 64, 80, 80, 64, 1, 1},  {16, 128, 40, 40, 64, 1, 1},
                          {16, 64, 160, 160, 64, 3, 1}};
  for (const auto& s : shapes) probe_shape(handle, s, rng);
  cudnnDestroy(handle);
  return 0;
}
