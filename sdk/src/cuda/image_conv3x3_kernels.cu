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
// its sums once). A block of a 3x3 patch holds 4 warps and 16-28 KB of shared memory, so 8 fit a
// multiprocessor: 32 warps to hide the image reads' latency.
constexpr int kGradBlocksPerSm = 8;
// After a Focus (108 taps), 16 or 32 output channels: at 64 the weight gradient's tile of taps and
// of output gradients would need 48 KB and a byte of static shared memory.
constexpr int kFocusChannelsMost = 32;

image_conv::Geometry geometry_of(const ImageConvShape& s) {
  image_conv::Geometry g{};
  g.height = static_cast<int>(s.height);
  g.width = static_cast<int>(s.width);
  g.out_height = static_cast<int>(image_conv3x3_out_size(s.height, s.stride, s.focus));
  g.out_width = static_cast<int>(image_conv3x3_out_size(s.width, s.stride, s.focus));
  g.stride = static_cast<int>(s.stride);
  g.stride_n = s.stride_n;
  g.stride_c = s.stride_c;
  g.stride_h = s.stride_h;
  g.stride_w = s.stride_w;
  g.pixels = static_cast<int>(s.batch * g.out_height * g.out_width);
  return g;
}

template <int K, typename T, class Patch>
int launch_forward(const image_conv::Geometry& g, const void* x, const void* weight, void* y, cudaStream_t stream) {
  const auto blocks = static_cast<unsigned>(ceil_div(g.pixels, image_conv::kTile));
  image_conv::image_conv3x3_forward<K, T, Patch><<<blocks, image_conv::kThreads, 0, stream>>>(
      static_cast<const T*>(x), static_cast<const __half*>(weight), static_cast<__half*>(y), g);
  return static_cast<int>(cudaGetLastError());
}

template <int K, typename T, class Patch>
int launch_weight_grad(const image_conv::Geometry& g, const void* x, const void* grad_y, float* work,
                       void* grad_weight, cudaStream_t stream) {
  const auto tiles = static_cast<int>(ceil_div(g.pixels, image_conv::kTile));
  constexpr auto kernel = image_conv::image_conv3x3_weight_grad<K, T, Patch>;
  // As many blocks as are resident at once, at most kGradBlocksPerSm a multiprocessor (after a
  // Focus a block's 37-41 KB of shared memory leave room for five).
  int resident = 0;
  if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&resident, kernel, image_conv::kThreads, 0) != cudaSuccess || resident < 1)
    resident = 1;
  const int per_sm = std::min(resident, kGradBlocksPerSm);
  const auto blocks = static_cast<unsigned>(std::clamp<int64_t>(int64_t{per_sm} * multiprocessors(), 1, tiles));
  auto* arrivals = reinterpret_cast<unsigned*>(work + K * Patch::kTaps);
  kernel<<<blocks, image_conv::kThreads, 0, stream>>>(
      static_cast<const T*>(x), static_cast<const __half*>(grad_y), work, arrivals, static_cast<__half*>(grad_weight), g,
      tiles);
  return static_cast<int>(cudaGetLastError());
}

// The instantiation for the shape's output channels, input type and patch.
template <int K, typename Launch>
int for_type_and_patch(const ImageConvShape& s, Launch launch) {
  using image_conv::FocusPatch3x3;
  using image_conv::Patch3x3;
  if constexpr (K <= kFocusChannelsMost) {
    if (s.focus)
      return s.half_input ? launch.template run<K, __half, FocusPatch3x3>() : launch.template run<K, float, FocusPatch3x3>();
  }
  return s.half_input ? launch.template run<K, __half, Patch3x3>() : launch.template run<K, float, Patch3x3>();
}

template <typename Launch>
int for_shape(const ImageConvShape& s, Launch launch) {
  switch (s.out_channels) {
    case 16: return for_type_and_patch<16>(s, launch);
    case 32: return for_type_and_patch<32>(s, launch);
    case 64: return for_type_and_patch<64>(s, launch);
    default: return static_cast<int>(cudaErrorInvalidValue);
  }
}

struct Forward {
  const image_conv::Geometry& g;
  const void *x, *weight;
  void* y;
  cudaStream_t stream;
  template <int K, typename T, class Patch>
  int run() const { return launch_forward<K, T, Patch>(g, x, weight, y, stream); }
};

struct WeightGrad {
  const image_conv::Geometry& g;
  const void *x, *grad_y;
  float* work;
  void* grad_weight;
  cudaStream_t stream;
  template <int K, typename T, class Patch>
  int run() const { return launch_weight_grad<K, T, Patch>(g, x, grad_y, work, grad_weight, stream); }
};

}  // namespace

int64_t image_conv3x3_out_size(int64_t size, int64_t stride, bool focus) {
  return focus ? size / 2 : (size - 1) / stride + 1;
}

bool image_conv3x3_fits(const ImageConvShape& s) {
  constexpr int64_t kMost = std::numeric_limits<int>::max();
  const bool channels = s.out_channels == 16 || s.out_channels == 32 || s.out_channels == 64;
  const bool stride = s.focus ? s.stride == 1 && s.height % 2 == 0 && s.width % 2 == 0 : s.stride == 1 || s.stride == 2;
  if (s.focus && s.out_channels > kFocusChannelsMost) return false;
  if (!channels || !stride || s.batch <= 0 || s.height <= 0 || s.width <= 0) return false;
  const int64_t pixels =
      s.batch * image_conv3x3_out_size(s.height, s.stride, s.focus) * image_conv3x3_out_size(s.width, s.stride, s.focus);
  return s.height <= kMost / 2 && s.width <= kMost / 2 && pixels <= kMost - image_conv::kTile;
}

// The sums, then one float32-sized slot for the arrival count.
int64_t image_conv3x3_work_elements(const ImageConvShape& s) {
  return s.out_channels * (s.focus ? image_conv::FocusPatch3x3::kTaps : image_conv::Patch3x3::kTaps) + 1;
}

int image_conv3x3_forward(const ImageConvShape& s, const void* x, const void* weight, void* y, void* stream) {
  if (!image_conv3x3_fits(s)) return static_cast<int>(cudaErrorInvalidValue);
  const auto g = geometry_of(s);
  return for_shape(s, Forward{g, x, weight, y, static_cast<cudaStream_t>(stream)});
}

int image_conv3x3_weight_grad(const ImageConvShape& s, const void* x, const void* grad_y, float* work,
                              void* grad_weight, void* stream) {
  if (!image_conv3x3_fits(s)) return static_cast<int>(cudaErrorInvalidValue);
  auto* st = static_cast<cudaStream_t>(stream);
  if (const auto e = cudaMemsetAsync(work, 0, image_conv3x3_work_elements(s) * sizeof(float), st)) return static_cast<int>(e);
  const auto g = geometry_of(s);
  return for_shape(s, WeightGrad{g, x, grad_y, work, grad_weight, st});
}

const char* image_conv3x3_error_text(int code) { return cudaGetErrorString(static_cast<cudaError_t>(code)); }

}  // namespace libreyolo::sdk::fused
