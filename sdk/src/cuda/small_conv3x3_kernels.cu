// Launchers of the small-channel 3x3 convolution (small_conv3x3_kernels.hpp): the band heights,
// the shared memory each kernel needs, and two small kernels of their own (the weight's layouts,
// the weight gradient's cast).
#include <cuda_runtime.h>

#include <algorithm>

#include "small_conv3x3_device.cuh"
#include "small_conv3x3_kernels.hpp"

namespace libreyolo::sdk::fused {
namespace {

constexpr int kForwardPixels = 160, kGradPixels = 320;  // a band's pixels, about (multiples of 16)
constexpr size_t kMostSharedBytes = 96 * 1024;

int rows_for(int64_t width, int target) {
  int rows = std::max<int>(1, static_cast<int>(target / width));
  while (rows * width % 16 != 0) ++rows;
  return rows;
}

int64_t padded(int64_t channels) { return (channels + 15) / 16 * 16; }

size_t forward_bytes(const SmallConvShape& s) {
  const int rows = rows_for(s.width, kForwardPixels);
  return ((rows + 2) * (s.width + 2) * padded(s.channels) + 9 * s.channels * padded(s.channels)) * sizeof(__half);
}

size_t grad_bytes(const SmallConvShape& s) {
  const int rows = rows_for(s.width, kGradPixels);
  return ((rows + 2) * (s.width + 2) * s.channels + rows * s.width * padded(s.channels)) * sizeof(__half);
}

// taps[tap][k][c] = w[k][tap][c]; flipped[8 - tap][c][k] = w[k][tap][c]; zeros beyond C.
__global__ void prepare_kernel(const __half* __restrict__ weight, __half* __restrict__ taps,
                               __half* __restrict__ flipped, int channels, int cp) {
  const int total = 9 * channels * cp;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < total; i += gridDim.x * blockDim.x) {
    const int inner = i % cp, outer = i / cp % channels, tap = i / (cp * channels);
    const bool real = inner < channels;
    // taps: out channel `outer`, in channel `inner`; flipped: out `outer` (x's), in `inner` (y's).
    taps[i] = real ? weight[(outer * 9 + tap) * channels + inner] : __float2half(0.f);
    flipped[i] = real ? weight[(inner * 9 + (8 - tap)) * channels + outer] : __float2half(0.f);
  }
}

// grad_weight[k][tap][c] = work[tap][k][c], rounded to float16.
__global__ void finish_kernel(const float* __restrict__ work, __half* __restrict__ grad_weight, int channels) {
  const int total = 9 * channels * channels;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < total; i += gridDim.x * blockDim.x) {
    const int c = i % channels, tap = i / channels % 9, k = i / (9 * channels);
    grad_weight[i] = __float2half(work[(tap * channels + k) * channels + c]);
  }
}

// Once per kernel (a static per instantiation), outside any graph capture in practice (the first
// step runs eagerly): the most shared memory any shape of small_conv3x3_fits may ask.
template <auto Kernel>
cudaError_t allow_most_shared() {
  static const cudaError_t allowed =
      cudaFuncSetAttribute(Kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(kMostSharedBytes));
  return allowed;
}

// A block per band of `rows` output rows, per image.
dim3 band_grid(const SmallConvShape& s, int rows) {
  return dim3(static_cast<unsigned>((s.height + rows - 1) / rows), static_cast<unsigned>(s.batch));
}

template <int CH>
int launch_forward(const SmallConvShape& s, const __half* x, const __half* taps, __half* y, cudaStream_t stream) {
  constexpr int kCP = (CH + 15) / 16 * 16;
  const int rows = rows_for(s.width, kForwardPixels);
  const size_t bytes = forward_bytes(s);
  constexpr auto kernel = small_conv::conv3x3_forward<kCP, CH>;
  if (const auto allowed = allow_most_shared<kernel>()) return static_cast<int>(allowed);
  const dim3 grid = band_grid(s, rows);
  const int threads = 32 * std::max(1, std::min(8, static_cast<int>(rows * s.width / 32)));
  kernel<<<grid, threads, bytes, stream>>>(x, taps, y, static_cast<int>(s.height), static_cast<int>(s.width), CH, CH,
                                           rows);
  return static_cast<int>(cudaGetLastError());
}

template <int CH>
int launch_weight_grad(const SmallConvShape& s, const __half* x, const __half* grad_y, float* work,
                       cudaStream_t stream) {
  constexpr int kCP = (CH + 15) / 16 * 16;
  const int rows = rows_for(s.width, kGradPixels);
  const size_t bytes = grad_bytes(s);
  constexpr auto kernel = small_conv::conv3x3_weight_grad<CH, kCP>;
  if (const auto allowed = allow_most_shared<kernel>()) return static_cast<int>(allowed);
  const dim3 grid = band_grid(s, rows);
  kernel<<<grid, 256, bytes, stream>>>(x, grad_y, work, static_cast<int>(s.height), static_cast<int>(s.width), CH,
                                       rows);
  return static_cast<int>(cudaGetLastError());
}

int blocks_for(int64_t total) { return static_cast<int>(std::min<int64_t>((total + 255) / 256, 1024)); }

}  // namespace

bool small_conv3x3_fits(const SmallConvShape& s) {
  const bool channels = s.channels == 16 || s.channels == 24 || s.channels == 32;
  return channels && s.batch > 0 && s.batch <= 65535 && s.height > 0 && s.width > 0 &&
         forward_bytes(s) <= kMostSharedBytes && grad_bytes(s) <= kMostSharedBytes;
}

int64_t small_conv3x3_prepared_elements(const SmallConvShape& s) { return 9 * s.channels * padded(s.channels); }
int64_t small_conv3x3_work_elements(const SmallConvShape& s) { return 9 * s.channels * s.channels; }

int small_conv3x3_prepare(const SmallConvShape& s, const void* weight, void* taps, void* flipped, void* stream) {
  const int64_t total = small_conv3x3_prepared_elements(s);
  prepare_kernel<<<blocks_for(total), 256, 0, static_cast<cudaStream_t>(stream)>>>(
      static_cast<const __half*>(weight), static_cast<__half*>(taps), static_cast<__half*>(flipped),
      static_cast<int>(s.channels), static_cast<int>(padded(s.channels)));
  return static_cast<int>(cudaGetLastError());
}

int small_conv3x3_forward(const SmallConvShape& s, const void* x, const void* taps, void* y, void* stream) {
  const auto* in = static_cast<const __half*>(x);
  const auto* w = static_cast<const __half*>(taps);
  auto* out = static_cast<__half*>(y);
  auto* st = static_cast<cudaStream_t>(stream);
  switch (s.channels) {
    case 16: return launch_forward<16>(s, in, w, out, st);
    case 24: return launch_forward<24>(s, in, w, out, st);
    case 32: return launch_forward<32>(s, in, w, out, st);
    default: return static_cast<int>(cudaErrorInvalidValue);
  }
}

int small_conv3x3_weight_grad(const SmallConvShape& s, const void* x, const void* grad_y, float* work,
                              void* grad_weight, void* stream) {
  auto* st = static_cast<cudaStream_t>(stream);
  const int64_t total = small_conv3x3_work_elements(s);
  if (const auto e = cudaMemsetAsync(work, 0, total * sizeof(float), st)) return static_cast<int>(e);
  const auto* in = static_cast<const __half*>(x);
  const auto* gy = static_cast<const __half*>(grad_y);
  int code = static_cast<int>(cudaErrorInvalidValue);
  switch (s.channels) {
    case 16: code = launch_weight_grad<16>(s, in, gy, work, st); break;
    case 24: code = launch_weight_grad<24>(s, in, gy, work, st); break;
    case 32: code = launch_weight_grad<32>(s, in, gy, work, st); break;
    default: break;
  }
  if (code != 0) return code;
  finish_kernel<<<blocks_for(total), 256, 0, st>>>(work, static_cast<__half*>(grad_weight), static_cast<int>(s.channels));
  return static_cast<int>(cudaGetLastError());
}

const char* small_conv3x3_error_text(int code) { return cudaGetErrorString(static_cast<cudaError_t>(code)); }

}  // namespace libreyolo::sdk::fused
