// Launchers of the image convolution (image_conv3x3_kernels.hpp, image_conv3x3_device.cuh).
#include <cuda_runtime.h>

#include <algorithm>
#include <limits>

#include "image_conv3x3_device.cuh"
#include "image_conv3x3_kernels.hpp"
#include "launch_size.cuh"
#include "multiprocessors.cuh"

namespace libreyolo::sdk::fused {
namespace {

// The weight gradient's grid: blocks per multiprocessor walking all tiles (each block then adds
// its sums once). A block holds 4 warps and 15-28 KB of shared memory, so 8 fit a multiprocessor:
// 32 warps to hide the image reads' latency.
constexpr int kGradBlocksPerSm = 8;

image_conv::Geometry geometry_of(const ImageConvShape& s) {
  image_conv::Geometry g{};
  g.height = static_cast<int>(s.height);
  g.width = static_cast<int>(s.width);
  g.out_height = static_cast<int>(image_conv3x3_out_size(s.height, s.stride));
  g.out_width = static_cast<int>(image_conv3x3_out_size(s.width, s.stride));
  g.stride = static_cast<int>(s.stride);
  g.stride_n = s.stride_n;
  g.stride_c = s.stride_c;
  g.stride_h = s.stride_h;
  g.stride_w = s.stride_w;
  g.pixels = static_cast<int>(s.batch * g.out_height * g.out_width);
  return g;
}

template <int K, typename T>
int launch_forward(const image_conv::Geometry& g, const void* x, const void* weight, void* y, cudaStream_t stream) {
  const auto blocks = static_cast<unsigned>(ceil_div(g.pixels, image_conv::kTile));
  image_conv::image_conv3x3_forward<K, T><<<blocks, image_conv::kThreads, 0, stream>>>(
      static_cast<const T*>(x), static_cast<const __half*>(weight), static_cast<__half*>(y), g);
  return static_cast<int>(cudaGetLastError());
}

template <int K, typename T>
int launch_weight_grad(const image_conv::Geometry& g, const void* x, const void* grad_y, float* work,
                       void* grad_weight, cudaStream_t stream) {
  const auto tiles = static_cast<int>(ceil_div(g.pixels, image_conv::kTile));
  const auto blocks = static_cast<unsigned>(std::clamp<int64_t>(int64_t{kGradBlocksPerSm} * multiprocessors(), 1, tiles));
  auto* arrivals = reinterpret_cast<unsigned*>(work + K * image_conv::kTaps);
  image_conv::image_conv3x3_weight_grad<K, T><<<blocks, image_conv::kThreads, 0, stream>>>(
      static_cast<const T*>(x), static_cast<const __half*>(grad_y), work, arrivals, static_cast<__half*>(grad_weight), g,
      tiles);
  return static_cast<int>(cudaGetLastError());
}

// The instantiation for the shape's output channels and input type.
template <typename Launch>
int for_channels(const ImageConvShape& s, Launch launch) {
  switch (s.out_channels) {
    case 16: return s.half_input ? launch.template run<16, __half>() : launch.template run<16, float>();
    case 32: return s.half_input ? launch.template run<32, __half>() : launch.template run<32, float>();
    case 64: return s.half_input ? launch.template run<64, __half>() : launch.template run<64, float>();
    default: return static_cast<int>(cudaErrorInvalidValue);
  }
}

struct Forward {
  const image_conv::Geometry& g;
  const void *x, *weight;
  void* y;
  cudaStream_t stream;
  template <int K, typename T>
  int run() const { return launch_forward<K, T>(g, x, weight, y, stream); }
};

struct WeightGrad {
  const image_conv::Geometry& g;
  const void *x, *grad_y;
  float* work;
  void* grad_weight;
  cudaStream_t stream;
  template <int K, typename T>
  int run() const { return launch_weight_grad<K, T>(g, x, grad_y, work, grad_weight, stream); }
};

}  // namespace

int64_t image_conv3x3_out_size(int64_t size, int64_t stride) { return (size - 1) / stride + 1; }

bool image_conv3x3_fits(const ImageConvShape& s) {
  constexpr int64_t kMost = std::numeric_limits<int>::max();
  const bool channels = s.out_channels == 16 || s.out_channels == 32 || s.out_channels == 64;
  if (!channels || (s.stride != 1 && s.stride != 2) || s.batch <= 0 || s.height <= 0 || s.width <= 0) return false;
  const int64_t pixels = s.batch * image_conv3x3_out_size(s.height, s.stride) * image_conv3x3_out_size(s.width, s.stride);
  return s.height <= kMost / 2 && s.width <= kMost / 2 && pixels <= kMost - image_conv::kTile;
}

// The sums, then one float32-sized slot for the arrival count.
int64_t image_conv3x3_work_elements(const ImageConvShape& s) { return s.out_channels * image_conv::kTaps + 1; }

int image_conv3x3_forward(const ImageConvShape& s, const void* x, const void* weight, void* y, void* stream) {
  if (!image_conv3x3_fits(s)) return static_cast<int>(cudaErrorInvalidValue);
  const auto g = geometry_of(s);
  return for_channels(s, Forward{g, x, weight, y, static_cast<cudaStream_t>(stream)});
}

int image_conv3x3_weight_grad(const ImageConvShape& s, const void* x, const void* grad_y, float* work,
                              void* grad_weight, void* stream) {
  if (!image_conv3x3_fits(s)) return static_cast<int>(cudaErrorInvalidValue);
  auto* st = static_cast<cudaStream_t>(stream);
  if (const auto e = cudaMemsetAsync(work, 0, image_conv3x3_work_elements(s) * sizeof(float), st)) return static_cast<int>(e);
  const auto g = geometry_of(s);
  return for_channels(s, WeightGrad{g, x, grad_y, work, grad_weight, st});
}

const char* image_conv3x3_error_text(int code) { return cudaGetErrorString(static_cast<cudaError_t>(code)); }

}  // namespace libreyolo::sdk::fused
