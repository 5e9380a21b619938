// Issue #21 probe (not part of the build): can kernels of our own run YOLOv9-t's small 3x3
// convolutions (16, 24 and 32 channels; stride 1, padding 1; channels-last float16) faster than
// cuDNN? docs/benchmarks.md ("Thirty-second session") measured cuDNN's forward + both gradients of
// these shapes at 16-56x their memory floor, three or four kernels of 5-20 us each; the design is
// in docs/fused-kernels.md ("Next: small-channel convolutions").
//
// Per shape, cuDNN's legacy API with its fastest algorithm per pass (cudnnFind*Ex) against:
//   forward        an implicit GEMM on tensor cores (mma.sync m16n8k16, float32 accumulators): a
//                  block per band of output rows of one image, the input band with its one-pixel
//                  halo and the weight in shared memory, nine taps of 16-channel steps;
//   input gradient the same kernel on the output gradient with the weight flipped and its channel
//                  roles swapped (stride 1: a correlation with the rotated kernel);
//   weight gradient one pass: each block multiplies its band's output gradient by its shifted
//                  input for all nine taps in registers and adds the result into a float32 buffer
//                  (one atomic add per element and block), not split-K.
// Ours are the SDK's launchers (sdk/src/cuda/small_conv3x3_kernels.cu, compiled into the probe)
// as the autograd function calls them: the forward, the input gradient and the weight
// gradient with its zeroing and cast. Times are CUDA-event means over 50 runs queued behind a
// kernel that holds the stream (so they are the GPU's, not the host's launch rate); values are
// compared with cuDNN's, relative to each result's largest magnitude; then a sweep of band heights
// and grids around the launchers' choices. cuDNN's legacy API here picks slower kernels than
// PyTorch's (the thirty-third session: 144.6 us for a forward PyTorch's cuDNN runs in about 10 us);
// compare ours with tests/tools/conv_kernel_breakdown.py's per-kernel times of the same call.
//
// Build and run on the GPU machine:
//   nvcc -O3 -std=c++17 -arch=sm_90 tests/tools/small_conv_probe.cu -lcudnn -o /tmp/small_conv && /tmp/small_conv
#include <cuda_fp16.h>
#include <cudnn.h>

#include "../../sdk/src/cuda/small_conv3x3_kernels.cu"  // the SDK's launchers and device code
#include "cudnn_probe_start.cuh"
#include "probe_support.cuh"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <random>
#include <string>
#include <vector>

namespace {

namespace fused = libreyolo::sdk::fused;
// The most copies of the weight gradient's sums the sweep tries (fused::kGradReplicas is the
// launchers' choice).
constexpr int kMostReplicas = 8;

struct Shape {
  int n, c, k, h, w;  // 3x3, stride 1, padding 1; c and k multiples of 8
};

// ---- host side ----

struct Device {
  __half *x, *w_krsc, *y, *dy, *dx, *dw_krsc;         // cuDNN's tensors (NHWC, KRSC)
  __half *y_ours, *dx_ours, *dw_ours;  // the SDK launchers' (dw KRSC too)
  float* work;                         // the weight gradient's float32 sums and arrival count
};

template <class T>
T* device_copy(const std::vector<T>& host) {
  T* d = nullptr;
  CHECK_CUDA(cudaMalloc(&d, host.size() * sizeof(T)));
  CHECK_CUDA(cudaMemcpy(d, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice));
  return d;
}

std::vector<__half> random_halves(size_t count, float scale, std::mt19937& rng) {
  std::uniform_real_distribution<float> dist(-scale, scale);
  std::vector<__half> v(count);
  for (auto& e : v) e = __float2half(dist(rng));
  return v;
}

// Holds the stream for `cycles` clock cycles: time_ms queues its runs behind it, so the GPU runs
// them back to back however slowly the host launches (a build beside the probe made the host the
// limit for kernels of 6-27 us in the thirty-fifth session).
__global__ void hold_stream(long long cycles) {
  const long long start = clock64();
  while (clock64() - start < cycles) {
  }
}

float time_ms(const std::function<void()>& work, int runs) {
  work();
  CHECK_CUDA(cudaDeviceSynchronize());
  cudaEvent_t start, stop;
  CHECK_CUDA(cudaEventCreate(&start));
  CHECK_CUDA(cudaEventCreate(&stop));
  hold_stream<<<1, 1>>>(20'000'000);  // about 10 ms at 2 GHz, 14 at the 1.44 GHz Nsight locks
  CHECK_CUDA(cudaEventRecord(start));
  for (int i = 0; i < runs; ++i) work();
  CHECK_CUDA(cudaEventRecord(stop));
  CHECK_CUDA(cudaEventSynchronize(stop));
  float ms = 0;
  CHECK_CUDA(cudaEventElapsedTime(&ms, start, stop));
  CHECK_CUDA(cudaEventDestroy(start));
  CHECK_CUDA(cudaEventDestroy(stop));
  return ms / runs;
}

struct CudnnConv {
  cudnnHandle_t handle;
  cudnnTensorDescriptor_t x, y;
  cudnnFilterDescriptor_t w;
  cudnnConvolutionDescriptor_t conv;
  cudnnConvolutionFwdAlgo_t fwd;
  cudnnConvolutionBwdDataAlgo_t bwd_data;
  cudnnConvolutionBwdFilterAlgo_t bwd_filter;
  void* workspace = nullptr;
  size_t workspace_size = size_t(256) << 20;
};

// Descriptors and each pass's fastest algorithm as cudnnFind*Ex measures them on these buffers.
void cudnn_setup(CudnnConv& cd, const Shape& s, Device& d) {
  CHECK_CUDNN_EXIT(cudnnCreateTensorDescriptor(&cd.x));
  CHECK_CUDNN_EXIT(cudnnCreateTensorDescriptor(&cd.y));
  CHECK_CUDNN_EXIT(cudnnCreateFilterDescriptor(&cd.w));
  CHECK_CUDNN_EXIT(cudnnCreateConvolutionDescriptor(&cd.conv));
  CHECK_CUDNN_EXIT(cudnnSetTensor4dDescriptor(cd.x, CUDNN_TENSOR_NHWC, CUDNN_DATA_HALF, s.n, s.c, s.h, s.w));
  CHECK_CUDNN_EXIT(cudnnSetTensor4dDescriptor(cd.y, CUDNN_TENSOR_NHWC, CUDNN_DATA_HALF, s.n, s.k, s.h, s.w));
  CHECK_CUDNN_EXIT(cudnnSetFilter4dDescriptor(cd.w, CUDNN_DATA_HALF, CUDNN_TENSOR_NHWC, s.k, s.c, 3, 3));
  CHECK_CUDNN_EXIT(cudnnSetConvolution2dDescriptor(cd.conv, 1, 1, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
  CHECK_CUDNN_EXIT(cudnnSetConvolutionMathType(cd.conv, CUDNN_TENSOR_OP_MATH));
  CHECK_CUDA(cudaMalloc(&cd.workspace, cd.workspace_size));
  int found = 0;
  cudnnConvolutionFwdAlgoPerf_t fwd;
  CHECK_CUDNN_EXIT(cudnnFindConvolutionForwardAlgorithmEx(cd.handle, cd.x, d.x, cd.w, d.w_krsc, cd.conv, cd.y, d.y, 1, &found,
                                                     &fwd, cd.workspace, cd.workspace_size));
  cd.fwd = fwd.algo;
  cudnnConvolutionBwdDataAlgoPerf_t data;
  CHECK_CUDNN_EXIT(cudnnFindConvolutionBackwardDataAlgorithmEx(cd.handle, cd.w, d.w_krsc, cd.y, d.dy, cd.conv, cd.x, d.dx, 1,
                                                          &found, &data, cd.workspace, cd.workspace_size));
  cd.bwd_data = data.algo;
  cudnnConvolutionBwdFilterAlgoPerf_t filter;
  CHECK_CUDNN_EXIT(cudnnFindConvolutionBackwardFilterAlgorithmEx(cd.handle, cd.x, d.x, cd.y, d.dy, cd.conv, cd.w, d.dw_krsc,
                                                            1, &found, &filter, cd.workspace, cd.workspace_size));
  cd.bwd_filter = filter.algo;
}

struct Timings {
  float forward, data, filter;
};

// cuDNN's three passes, each with its fastest algorithm; their outputs left in d.y, d.dx, d.dw_krsc.
Timings time_cudnn(cudnnHandle_t handle, CudnnConv& cd, Device& d) {
  const float one = 1.f, zero = 0.f;
  Timings t{};
  t.forward = time_ms([&] {
    CHECK_CUDNN_EXIT(cudnnConvolutionForward(handle, &one, cd.x, d.x, cd.w, d.w_krsc, cd.conv, cd.fwd, cd.workspace,
                                        cd.workspace_size, &zero, cd.y, d.y));
  }, 50);
  t.data = time_ms([&] {
    CHECK_CUDNN_EXIT(cudnnConvolutionBackwardData(handle, &one, cd.w, d.w_krsc, cd.y, d.dy, cd.conv, cd.bwd_data,
                                             cd.workspace, cd.workspace_size, &zero, cd.x, d.dx));
  }, 50);
  t.filter = time_ms([&] {
    CHECK_CUDNN_EXIT(cudnnConvolutionBackwardFilter(handle, &one, cd.x, d.x, cd.y, d.dy, cd.conv, cd.bwd_filter,
                                               cd.workspace, cd.workspace_size, &zero, cd.w, d.dw_krsc));
  }, 50);
  return t;
}

// The SDK's launchers (fused::small_conv3x3_*, compiled into this probe), as its autograd function
// calls them: the forward, the input gradient, the weight gradient (zeroing included).
Timings time_ours(const Shape& s, Device& d) {
  const fused::SmallConvShape shape{s.n, s.c, s.h, s.w};
  const auto launched = [](int code) {
    if (code != 0) std::printf("launch failed: %s\n", fused::small_conv3x3_error_text(code)), std::exit(1);
  };
  Timings t{};
  t.forward = time_ms([&] {
    launched(fused::small_conv3x3_forward(shape, d.x, d.w_krsc, d.y_ours, nullptr));
  }, 50);
  t.data = time_ms([&] { launched(fused::small_conv3x3_input_grad(shape, d.dy, d.w_krsc, d.dx_ours, nullptr)); }, 50);
  t.filter = time_ms([&] {
    launched(fused::small_conv3x3_weight_grad(shape, d.x, d.dy, d.work, d.dw_ours, nullptr));
  }, 50);
  CHECK_CUDA(cudaDeviceSynchronize());
  return t;
}

// Other band heights and grids than the launchers' choices (fused::forward_rows, grad_rows and
// kGradBlocksPerSm): each forward band height, then the weight gradient (zeroing + kernel) per band
// height and grid; microseconds, the launchers' own choice marked *.
template <int CH>
void sweep_shape(const Shape& s, Device& d) {
  const fused::SmallConvShape shape{s.n, s.c, s.h, s.w};
  const int sms = fused::multiprocessors(), chosen_rows = fused::forward_rows(shape), chosen_grad = fused::grad_rows(shape);
  std::printf("  forward (rows: us):");
  int last = 0;
  for (const int pixels : {16, 32, 48, 64, 80, 96, 128, 160, 240, 320}) {
    const int rows = fused::rows_for(s.w, pixels);
    if (rows == last) continue;
    last = rows;
    int code = 0;
    const float t = time_ms([&] { code = fused::launch_forward<CH, false>(shape, d.x, d.w_krsc, d.y_ours, nullptr, rows); }, 50);
    if (code != 0) break;
    std::printf(" %d%s: %.1f", rows, rows == chosen_rows ? "*" : "", t * 1e3f);
  }
  std::printf("\n  weight gradient (rows x blocks / copies of the sums: us):");
  last = 0;
  const size_t work_bytes = (size_t(kMostReplicas) * 9 * s.c * s.c + 1) * sizeof(float);
  for (const int pixels : {32, 64, 128, 160, 320, 640}) {
    const int rows = fused::rows_for(s.w, pixels);
    if (rows == last) continue;
    last = rows;
    for (const int blocks : {sms / 2, sms, 2 * sms, 4 * sms, 1 << 30}) {
      for (const int replicas : {1, kMostReplicas}) {
        int code = 0;
        const float t = time_ms([&] {
          CHECK_CUDA(cudaMemsetAsync(d.work, 0, work_bytes));
          code = fused::launch_weight_grad<CH>(shape, d.x, d.dy, d.work, d.dw_ours, nullptr, rows, blocks, replicas);
        }, 50);
        if (code != 0) break;
        const bool mine = rows == chosen_grad && blocks == fused::kGradBlocksPerSm * sms && replicas == fused::kGradReplicas;
        std::printf(" %dx%s/%d%s: %.1f", rows, blocks == (1 << 30) ? "all" : std::to_string(blocks).c_str(), replicas,
                    mine ? "*" : "", t * 1e3f);
      }
    }
  }
  std::printf("\n");
  // The copies summed right: the launchers' band height and grid with the most copies, against cuDNN.
  const size_t w_count = size_t(s.c) * 9 * s.c;
  CHECK_CUDA(cudaMemset(d.work, 0, work_bytes));
  if (fused::launch_weight_grad<CH>(shape, d.x, d.dy, d.work, d.dw_ours, nullptr, chosen_grad,
                                    int64_t{fused::kGradBlocksPerSm} * sms, kMostReplicas) == 0) {
    std::printf("  weight gradient with %d copies against cuDNN: %.2e (relative)\n", kMostReplicas,
                probe::largest_relative(probe::host_copy(d.dw_ours, w_count), probe::host_copy(d.dw_krsc, w_count)));
  }
}

void probe_shape(cudnnHandle_t handle, const Shape& s, std::mt19937& rng) {
  const size_t in_count = size_t(s.n) * s.h * s.w * s.c, out_count = size_t(s.n) * s.h * s.w * s.k;
  const size_t w_count = size_t(s.k) * 9 * s.c;
  const auto w_host = random_halves(w_count, 0.1f, rng);
  const fused::SmallConvShape shape{s.n, s.c, s.h, s.w};
  if (s.c != s.k || !fused::small_conv3x3_fits(shape)) {
    std::printf("%dx%dx%dx%d -> %d: not a shape the kernels take\n", s.n, s.c, s.h, s.w, s.k);
    return;
  }
  Device d{};
  d.x = device_copy(random_halves(in_count, 1.f, rng));
  d.dy = device_copy(random_halves(out_count, 1.f, rng));
  d.w_krsc = device_copy(w_host);
  for (__half** p : {&d.y, &d.y_ours}) CHECK_CUDA(cudaMalloc(p, out_count * sizeof(__half)));
  for (__half** p : {&d.dx, &d.dx_ours}) CHECK_CUDA(cudaMalloc(p, in_count * sizeof(__half)));
  for (__half** p : {&d.dw_krsc, &d.dw_ours}) CHECK_CUDA(cudaMalloc(p, w_count * sizeof(__half)));
  CHECK_CUDA(cudaMalloc(&d.work, std::max<size_t>(fused::small_conv3x3_work_elements(shape),
                                                   size_t(kMostReplicas) * 9 * s.c * s.c + 1) *
                                      sizeof(float)));
  CudnnConv cd;
  cd.handle = handle;
  cudnn_setup(cd, s, d);
  const Timings theirs = time_cudnn(handle, cd, d), ours = time_ours(s, d);
  std::printf("%dx%dx%dx%d, %d -> %d channels, 3x3 (cuDNN algorithms %d/%d/%d):\n", s.n, s.c, s.h, s.w, s.c, s.k,
              int(cd.fwd), int(cd.bwd_data), int(cd.bwd_filter));
  std::printf("  cuDNN  forward %7.1f us, input gradient %7.1f us, weight gradient %7.1f us, all %7.1f us\n",
              theirs.forward * 1e3f, theirs.data * 1e3f, theirs.filter * 1e3f,
              (theirs.forward + theirs.data + theirs.filter) * 1e3f);
  std::printf("  ours   forward %7.1f us, input gradient %7.1f us, weight gradient %7.1f us, all %7.1f us\n",
              ours.forward * 1e3f, ours.data * 1e3f, ours.filter * 1e3f, (ours.forward + ours.data + ours.filter) * 1e3f);
  std::printf("  ours against cuDNN: output %.2e, input gradient %.2e, weight gradient %.2e (relative)\n",
              probe::largest_relative(probe::host_copy(d.y_ours, out_count), probe::host_copy(d.y, out_count)),
              probe::largest_relative(probe::host_copy(d.dx_ours, in_count), probe::host_copy(d.dx, in_count)),
              probe::largest_relative(probe::host_copy(d.dw_ours, w_count), probe::host_copy(d.dw_krsc, w_count)));
  switch (s.c) {
    case 16: sweep_shape<16>(s, d); break;
    case 24: sweep_shape<24>(s, d); break;
    case 32: sweep_shape<32>(s, d); break;
    default: break;
  }
  for (void* p : {static_cast<void*>(d.x), static_cast<void*>(d.dy), static_cast<void*>(d.w_krsc),
                  static_cast<void*>(d.y),
                  static_cast<void*>(d.y_ours), static_cast<void*>(d.dx), static_cast<void*>(d.dx_ours),
                  static_cast<void*>(d.dw_krsc), static_cast<void*>(d.dw_ours), static_cast<void*>(d.work),
                  cd.workspace})
    cudaFree(p);
}

}  // namespace

// argv[1], where given, keeps only the shapes whose "CxH" name it equals (for Nsight Compute: the
// kernels of one shape, e.g. "24x40" for 24 channels at 40 x 40).
int main(int argc, char** argv) {
  cudnnHandle_t handle;
  if (!probe::start_cudnn(handle)) return 1;
  std::mt19937 rng(21);
  // YOLOv9-t's costliest small convolutions at batch 16, 640 px (tests/tools/conv_kernel_breakdown.py).
  const Shape shapes[] = {{16, 16, 16, 80, 80}, {16, 24, 24, 40, 40}, {16, 32, 32, 20, 20},
                          {16, 16, 16, 160, 160}, {16, 32, 32, 80, 80}, {16, 24, 24, 20, 20}};
  for (const auto& s : shapes) {
    if (argc > 1 && std::to_string(s.c) + "x" + std::to_string(s.h) != argv[1]) continue;
    probe_shape(handle, s, rng);
  }
  cudnnDestroy(handle);
  return 0;
}
