// Issue #21 probe (not part of the build): does cuDNN's BatchNorm "Ex" API, which PyTorch already
// calls for channels-last float16 training (CUDNN_BATCHNORM_OPS_BN), also take the SiLU (cuDNN's
// SWISH activation, beta 1) as CUDNN_BATCHNORM_OPS_BN_ACTIVATION, forward and backward, at
// YOLOv9-t's and YOLOX-s's layer shapes? And is BN + activation in cuDNN cheaper than BN alone
// plus one SiLU pass each way? Prints per shape: the status of each call, its time, and the fused
// results' largest difference from BN alone followed by SiLU (computed on the host in float).
//
// Build and run on the GPU machine:
//   nvcc -O2 -std=c++17 -arch=sm_90 tests/tools/cudnn_bn_swish_probe.cu -lcudnn -o /tmp/probe && /tmp/probe
#include <cuda_fp16.h>
#include <cudnn.h>

#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#define CHECK_CUDA(x) do { cudaError_t e = (x); if (e != cudaSuccess) { std::printf("cuda %s at %d\n", cudaGetErrorString(e), __LINE__); std::exit(1); } } while (0)

namespace {

struct Shape { int n, c, h, w; };

__global__ void silu_forward(const __half* x, __half* y, size_t count) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < count; i += size_t(gridDim.x) * blockDim.x) {
    const float v = __half2float(x[i]);
    y[i] = __float2half(v / (1.f + __expf(-v)));
  }
}

__global__ void silu_backward(const __half* dy, const __half* x, __half* dx, size_t count) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < count; i += size_t(gridDim.x) * blockDim.x) {
    const float v = __half2float(x[i]);
    const float s = 1.f / (1.f + __expf(-v));
    dx[i] = __float2half(__half2float(dy[i]) * s * (1.f + v * (1.f - s)));
  }
}

template <typename T>
T* device(size_t count) {
  void* p = nullptr;
  CHECK_CUDA(cudaMalloc(&p, count * sizeof(T) + 256));
  return static_cast<T*>(p);
}

std::vector<float> to_host(const __half* p, size_t count) {
  std::vector<__half> h(count);
  CHECK_CUDA(cudaMemcpy(h.data(), p, count * sizeof(__half), cudaMemcpyDeviceToHost));
  std::vector<float> f(count);
  for (size_t i = 0; i < count; ++i) f[i] = __half2float(h[i]);
  return f;
}

std::vector<float> to_host(const float* p, size_t count) {
  std::vector<float> f(count);
  CHECK_CUDA(cudaMemcpy(f.data(), p, count * sizeof(float), cudaMemcpyDeviceToHost));
  return f;
}

void upload_half(__half* p, const std::vector<float>& values) {
  std::vector<__half> h(values.size());
  for (size_t i = 0; i < values.size(); ++i) h[i] = __float2half(values[i]);
  CHECK_CUDA(cudaMemcpy(p, h.data(), h.size() * sizeof(__half), cudaMemcpyHostToDevice));
}

float relative_difference(const std::vector<float>& a, const std::vector<float>& b) {
  float worst = 0.f, scale = 1e-12f;
  for (size_t i = 0; i < a.size(); ++i) {
    worst = std::fmax(worst, std::fabs(a[i] - b[i]));
    scale = std::fmax(scale, std::fabs(b[i]));
  }
  return worst / scale;
}

template <typename F>
float time_ms(F&& body, int repeats = 50) {
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  body();
  cudaEventRecord(start);
  for (int i = 0; i < repeats; ++i) body();
  cudaEventRecord(stop);
  cudaEventSynchronize(stop);
  float ms = 0.f;
  cudaEventElapsedTime(&ms, start, stop);
  return ms / repeats * 1000.f;  // microseconds per call
}

struct Buffers {
  size_t count;
  int channels;
  __half *x, *y_bn, *y_act, *silu_y, *dy, *dy_pre, *dx_bn, *dx_fused;
  float *scale, *bias, *running_mean, *running_var, *save_mean, *save_inv, *dscale, *dbias, *dscale_f, *dbias_f;
  void *workspace, *reserve;
};

Buffers allocate(const Shape& s) {
  Buffers b{};
  b.count = size_t(s.n) * s.c * s.h * s.w;
  b.channels = s.c;
  for (__half** p : {&b.x, &b.y_bn, &b.y_act, &b.silu_y, &b.dy, &b.dy_pre, &b.dx_bn, &b.dx_fused}) *p = device<__half>(b.count);
  for (float** p : {&b.scale, &b.bias, &b.running_mean, &b.running_var, &b.save_mean, &b.save_inv, &b.dscale,
                    &b.dbias, &b.dscale_f, &b.dbias_f})
    *p = device<float>(s.c);
  b.workspace = device<char>(64 << 20);
  b.reserve = device<char>(64 << 20);
  std::mt19937 rng(0);
  std::normal_distribution<float> normal(0.f, 1.f);
  std::vector<float> x(b.count), dy(b.count), scale(s.c), bias(s.c), ones(s.c, 1.f), zeros(s.c, 0.f);
  for (auto& v : x) v = 0.5f + 2.f * normal(rng);
  for (auto& v : dy) v = 0.01f * normal(rng);
  for (auto& v : scale) v = 1.f + 0.2f * normal(rng);
  for (auto& v : bias) v = 0.3f * normal(rng);
  upload_half(b.x, x);
  upload_half(b.dy, dy);
  CHECK_CUDA(cudaMemcpy(b.scale, scale.data(), s.c * 4, cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(b.bias, bias.data(), s.c * 4, cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(b.running_mean, zeros.data(), s.c * 4, cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(b.running_var, ones.data(), s.c * 4, cudaMemcpyHostToDevice));
  return b;
}

void probe(cudnnHandle_t handle, const Shape& s) {
  Buffers b = allocate(s);
  cudnnTensorDescriptor_t data, param;
  cudnnCreateTensorDescriptor(&data);
  cudnnCreateTensorDescriptor(&param);
  cudnnSetTensor4dDescriptor(data, CUDNN_TENSOR_NHWC, CUDNN_DATA_HALF, s.n, s.c, s.h, s.w);
  const auto mode = CUDNN_BATCHNORM_SPATIAL_PERSISTENT;
  cudnnDeriveBNTensorDescriptor(param, data, mode);
  cudnnActivationDescriptor_t swish;
  cudnnCreateActivationDescriptor(&swish);
  cudnnSetActivationDescriptor(swish, CUDNN_ACTIVATION_SWISH, CUDNN_NOT_PROPAGATE_NAN, 0.0);
  cudnnSetActivationDescriptorSwishBeta(swish, 1.0);
  const float one = 1.f, zero = 0.f;
  const double eps = 1e-3, momentum = 0.03;

  auto forward = [&](cudnnBatchNormOps_t ops, cudnnActivationDescriptor_t act, __half* y) {
    size_t ws = 0, rs = 0;
    cudnnGetBatchNormalizationForwardTrainingExWorkspaceSize(handle, mode, ops, data, nullptr, data, param, act, &ws);
    cudnnGetBatchNormalizationTrainingExReserveSpaceSize(handle, mode, ops, act, data, &rs);
    return cudnnBatchNormalizationForwardTrainingEx(handle, mode, ops, &one, &zero, data, b.x, nullptr, nullptr, data,
                                                    y, param, b.scale, b.bias, momentum, b.running_mean,
                                                    b.running_var, eps, b.save_mean, b.save_inv, act, b.workspace,
                                                    ws, b.reserve, rs);
  };
  auto backward = [&](cudnnBatchNormOps_t ops, cudnnActivationDescriptor_t act, const __half* y, const __half* dy,
                      __half* dx, float* dscale, float* dbias) {
    size_t ws = 0, rs = 0;
    cudnnGetBatchNormalizationBackwardExWorkspaceSize(handle, mode, ops, data, data, data, nullptr, data, param, act,
                                                      &ws);
    cudnnGetBatchNormalizationTrainingExReserveSpaceSize(handle, mode, ops, act, data, &rs);
    return cudnnBatchNormalizationBackwardEx(handle, mode, ops, &one, &zero, &one, &zero, data, b.x, data, y, data, dy,
                                             nullptr, nullptr, data, dx, param, b.scale, b.bias, dscale, dbias, eps,
                                             b.save_mean, b.save_inv, act, b.workspace, ws, b.reserve, rs);
  };
  const dim3 grid(1024), block(256);

  const auto st_bn = forward(CUDNN_BATCHNORM_OPS_BN, nullptr, b.y_bn);
  const auto st_act = forward(CUDNN_BATCHNORM_OPS_BN_ACTIVATION, swish, b.y_act);
  CHECK_CUDA(cudaDeviceSynchronize());
  std::printf("N%d C%d %dx%d: forward BN %s, BN+swish %s\n", s.n, s.c, s.h, s.w, cudnnGetErrorString(st_bn),
              cudnnGetErrorString(st_act));
  if (st_bn != CUDNN_STATUS_SUCCESS) return;

  // Reference: BN alone, then SiLU (host, float), then the backward through both.
  silu_forward<<<grid, block>>>(b.y_bn, b.silu_y, b.count);
  silu_backward<<<grid, block>>>(b.dy, b.y_bn, b.dy_pre, b.count);
  const auto st_bwd_bn = backward(CUDNN_BATCHNORM_OPS_BN, nullptr, b.y_bn, b.dy_pre, b.dx_bn, b.dscale, b.dbias);
  CHECK_CUDA(cudaDeviceSynchronize());
  const float t_fwd_bn = time_ms([&] { forward(CUDNN_BATCHNORM_OPS_BN, nullptr, b.y_bn); });
  const float t_silu = time_ms([&] { silu_forward<<<grid, block>>>(b.y_bn, b.silu_y, b.count); });
  const float t_bwd_bn = time_ms([&] { backward(CUDNN_BATCHNORM_OPS_BN, nullptr, b.y_bn, b.dy_pre, b.dx_bn, b.dscale, b.dbias); });
  const float t_silu_bwd = time_ms([&] { silu_backward<<<grid, block>>>(b.dy, b.y_bn, b.dy_pre, b.count); });
  std::printf("  composed: BN fwd %.1f us + SiLU fwd %.1f us, SiLU bwd %.1f us + BN bwd %.1f us (bwd status %s)\n",
              t_fwd_bn, t_silu, t_silu_bwd, t_bwd_bn, cudnnGetErrorString(st_bwd_bn));
  if (st_act != CUDNN_STATUS_SUCCESS) return;

  forward(CUDNN_BATCHNORM_OPS_BN_ACTIVATION, swish, b.y_act);
  const auto st_bwd_act =
      backward(CUDNN_BATCHNORM_OPS_BN_ACTIVATION, swish, b.y_act, b.dy, b.dx_fused, b.dscale_f, b.dbias_f);
  CHECK_CUDA(cudaDeviceSynchronize());
  const float t_fwd_act = time_ms([&] { forward(CUDNN_BATCHNORM_OPS_BN_ACTIVATION, swish, b.y_act); });
  float t_bwd_act = -1.f;
  if (st_bwd_act == CUDNN_STATUS_SUCCESS)
    t_bwd_act = time_ms([&] { backward(CUDNN_BATCHNORM_OPS_BN_ACTIVATION, swish, b.y_act, b.dy, b.dx_fused, b.dscale_f, b.dbias_f); });
  std::printf("  fused:    BN+swish fwd %.1f us, bwd %.1f us (bwd status %s)\n", t_fwd_act, t_bwd_act,
              cudnnGetErrorString(st_bwd_act));
  std::printf("  differences (relative to the largest value): y %.2e", relative_difference(to_host(b.y_act, b.count), to_host(b.silu_y, b.count)));
  if (st_bwd_act == CUDNN_STATUS_SUCCESS)
    std::printf(", dx %.2e, dscale %.2e, dbias %.2e", relative_difference(to_host(b.dx_fused, b.count), to_host(b.dx_bn, b.count)),
                relative_difference(to_host(b.dscale_f, s.c), to_host(b.dscale, s.c)),
                relative_difference(to_host(b.dbias_f, s.c), to_host(b.dbias, s.c)));
  std::printf("\n");
}

}  // namespace

int main() {
  cudnnHandle_t handle;
  cudnnCreate(&handle);
  std::printf("cuDNN %zu\n", cudnnGetVersion());
  for (const Shape& s : {Shape{16, 16, 320, 320}, Shape{16, 32, 160, 160}, Shape{16, 64, 80, 80},
                         Shape{16, 128, 40, 40}, Shape{16, 64, 40, 40}, Shape{16, 256, 20, 20}, Shape{16, 64, 20, 20},
                         Shape{16, 24, 80, 80}})
    probe(handle, s);
  return 0;
}
